package sqlstore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/ledger"
)

// BenchmarkLedger measures holds a second (a take and a post: two
// transactions, as a develop makes them) against the ceiling of the engine
// measured the same way: a transaction through the same writer that inserts
// one row into a trivial table and commits. "serial" is one caller on one
// house; "parallel" is GOMAXPROCS*4 callers over 8 houses (a house's ledger
// writes queue on its lock; houses do not wait for each other on PostgreSQL,
// while SQLite has one writer for all).
//
//	go test -run='^$' -bench=Ledger ./internal/sqlstore/
func BenchmarkLedger(b *testing.B) {
	for _, e := range ledgerEngines() {
		b.Run(e.name, func(b *testing.B) {
			ctx := context.Background()
			db := openLedgerDB(b, e, time.Now)
			if _, err := db.RawExec(ctx, `CREATE TABLE ledger_bench_raw (id TEXT PRIMARY KEY, n BIGINT NOT NULL)`); err != nil {
				b.Fatal(err)
			}
			houses := make([]string, 8)
			for i := range houses {
				_, houses[i] = newLedgerHouse(b, db)
				if err := db.AddCredit(ctx, houses[i], ledger.NewTopUp(1<<40, "")); err != nil {
					b.Fatal(err)
				}
			}
			raw := func() error {
				return db.write(ctx, func(tx *Tx) error {
					_, err := tx.Exec(ctx, `INSERT INTO ledger_bench_raw (id, n) VALUES (?, ?)`, uuid.NewString(), 1)
					return err
				})
			}
			hold := func(house string) error {
				h := ledger.NewHold(uuid.NewString(), 3)
				if err := db.TakeHold(ctx, house, h); err != nil {
					return err
				}
				return db.PostHold(ctx, house, h.ID)
			}
			b.Run("raw-tx/serial", func(b *testing.B) {
				for b.Loop() {
					if err := raw(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
			})
			b.Run("hold+post/serial", func(b *testing.B) {
				for b.Loop() {
					if err := hold(houses[0]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
			})
			b.Run("raw-tx/parallel", func(b *testing.B) {
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := raw(); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
			})
			b.Run("hold+post/parallel", func(b *testing.B) {
				var next atomic.Int64
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					house := houses[next.Add(1)%int64(len(houses))]
					for pb.Next() {
						if err := hold(house); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
			})
			b.StopTimer()
			for _, h := range houses {
				if err := db.CheckLedger(ctx, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
