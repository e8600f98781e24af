package sqlstore

import (
	"context"
	"strings"
	"testing"
)

// TestPostgresSessionsRunSerial: the store's PostgreSQL sessions run no
// parallel query (max_parallel_workers_per_gather 0) unless the URL sets
// it. With a large ledger history the planner chose a parallel plan for
// the balance, whose workers took 20-30 ms to start for rows read in one.
func TestPostgresSessionsRunSerial(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		if e.url == "" {
			t.Skip("PostgreSQL only")
		}
		ctx := context.Background()
		url := migratedDatabase(t, e.url)
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		tests := []struct {
			name, url, want string
		}{
			{"default", url, "0"},
			{"set by the URL", url + sep + pgParallel + "=2", "2"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				db, err := Open(ctx, Options{DatabaseURL: tt.url})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				// A transaction holds one connection, so the read outside it
				// is answered by a second session.
				tx, err := db.w.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = tx.Rollback() }()
				var inTx, outside string
				if err := tx.QueryRowContext(ctx, "SHOW "+pgParallel).Scan(&inTx); err != nil {
					t.Fatal(err)
				}
				if err := db.r.QueryRowContext(ctx, "SHOW "+pgParallel).Scan(&outside); err != nil {
					t.Fatal(err)
				}
				if inTx != tt.want || outside != tt.want {
					t.Errorf("%s = %s and %s; want %s", pgParallel, inTx, outside, tt.want)
				}
			})
		}
	})
}
