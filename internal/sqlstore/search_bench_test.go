package sqlstore

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearch: a search over a house of 10,000 pieces (a fifth of them
// linen shirts), beside another house of 10,000, on both engines. Issue 16
// asks for under 50 ms of server time.
//
//	go test -run '^$' -bench Search -benchtime 200x ./internal/sqlstore/
func BenchmarkSearch(b *testing.B) {
	for _, e := range ledgerEngines() {
		b.Run(e.name, func(b *testing.B) {
			ctx := context.Background()
			db := openLedgerDB(b, e, time.Now)
			var house string
			for i := range 2 {
				user, h := newLedgerHouse(b, db)
				folder := newFolder(b, db, h, nil)
				seedAssets(b, db, h, user, folder.ID, 10_000)
				if _, err := db.RawExec(ctx, `UPDATE assets SET name = CASE WHEN created_at % 5 = 0 THEN 'Linen shirt ' || id
					WHEN created_at % 5 = 1 THEN 'Cotton tee ' || id ELSE 'Wool coat ' || id END WHERE organization_id = ?`, h); err != nil {
					b.Fatal(err)
				}
				if err := db.write(ctx, func(tx *Tx) error { return reindexPieces(ctx, tx, h, `1 = 1`) }); err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					house = h
				}
			}
			for _, q := range [][]string{{"linen"}, {"lin", "sh"}, {"wool", "coat", "sku"}} {
				b.Run(q[0], func(b *testing.B) {
					cpu := cpuTime()
					for b.Loop() {
						rs, err := db.Search(ctx, house, q, 20)
						if err != nil || len(rs) != 20 {
							b.Fatalf("%d results, %v", len(rs), err)
						}
					}
					// The process's CPU time per search (PostgreSQL's own is in its server process):
					// on a machine shared by other work, wall time says more about the neighbours.
					b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				})
			}
		})
	}
}
