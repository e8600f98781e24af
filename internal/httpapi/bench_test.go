package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/httpapi"
)

// BenchmarkAuthenticatedList measures the authenticated request path of
// GET /posts with an API key (key lookup, role check, the house's read,
// JSON encode, logging) against a bare handler doing the same read and
// encode, on the same SQLite store:
//
//	go test -run='^$' -bench=AuthenticatedList -benchmem ./internal/httpapi/
func BenchmarkAuthenticatedList(b *testing.B) {
	e := apptest.Engines(b)[0]
	a := apptest.New(b, e)
	owner := a.SignUp(b, "bench")
	key := a.Key(b, owner, "member")
	for i := 0; i < 10; i++ {
		a.Do(b, "POST", "/posts", key, map[string]string{"title": "Look book", "body": "Spring, ten frames."})
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps, err := a.DB.ListPosts(r.Context(), owner.HouseID)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ps)
	})
	run := func(b *testing.B, h http.Handler, auth string) {
		b.ReportAllocs()
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req := httptest.NewRequest("GET", "/posts", nil)
				if auth != "" {
					req.Header.Set("Authorization", "Bearer "+auth)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
	b.Run("studio", func(b *testing.B) { run(b, a.Server, key.Key) })
	b.Run("bare", func(b *testing.B) { run(b, bare, "") })
}

// BenchmarkHealth measures the cheapest JSON route, GET /health, through
// the whole middleware stack (request id, panic guard, the log line, the
// route's preparation) against a bare handler pinging the same database
// and encoding the same body. The load tool's figure is
// scripts/loadtest.sh's.
//
//	go test -run='^$' -bench=Health -benchmem ./internal/httpapi/
func BenchmarkHealth(b *testing.B) {
	a := apptest.New(b, apptest.Engines(b)[0])
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := a.DB.Ping(r.Context()); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(httpapi.Health{Status: "ok", Service: "studio"})
	})
	run := func(b *testing.B, h http.Handler) {
		b.ReportAllocs()
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
				if rec.Code != 200 {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
	b.Run("studio", func(b *testing.B) { run(b, a.Server) })
	b.Run("bare", func(b *testing.B) { run(b, bare) })
}

// reportCPU reports the process's CPU time per operation (user and
// system, all goroutines: the handler's and the collector's), which the
// machine's load moves far less than the wall time: call its result when
// the measured loop ends.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Nanoseconds())/1000/float64(b.N), "cpu-us/op")
	}
}
