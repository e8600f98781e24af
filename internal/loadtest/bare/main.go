// Command bare serves, from the studio's own SQLite file, what the studio's
// measured routes do with no authentication, logging or middleware: the
// ceilings scripts/loadtest.sh measures the studio against with a load
// tool.
//
//	GET /health      a bare hello: encodes the same body as the studio's /health, touching nothing
//	GET /posts       the house's posts
//	GET /posts/{id}  one post of the house
//
//	go run ./internal/loadtest/bare -data ./data -house <house id> -addr 127.0.0.1:8081
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"time"

	"studio/internal/httpapi"
	"studio/internal/sqlstore"
)

func main() {
	data := flag.String("data", "./data", "the studio's data folder")
	house := flag.String("house", "", "the house whose posts are served")
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	flag.Parse()
	db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: *data})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	started := time.Now()
	send := func(w http.ResponseWriter, v any, err error) {
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	http.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		send(w, httpapi.Health{Status: "ok", Service: "studio", Uptime: int64(time.Since(started).Seconds())}, nil)
	})
	http.HandleFunc("GET /posts", func(w http.ResponseWriter, r *http.Request) {
		ps, err := db.ListPosts(r.Context(), *house)
		send(w, ps, err)
	})
	http.HandleFunc("GET /posts/{id}", func(w http.ResponseWriter, r *http.Request) {
		p, err := db.GetPost(r.Context(), *house, r.PathValue("id"))
		send(w, p, err)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
