// Command bare serves GET /posts of one house from the studio's own SQLite
// file with no authentication, logging or middleware: the ceiling the
// studio's authenticated GET /posts is measured against with a load tool.
//
//	go run ./internal/loadtest/bare -data ./data -house <house id> -addr 127.0.0.1:8081
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"

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
	http.HandleFunc("GET /posts", func(w http.ResponseWriter, r *http.Request) {
		ps, err := db.ListPosts(r.Context(), *house)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ps)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
