package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// BenchmarkJobs measures the queue against the ceiling of each engine
// measured the same way (one transaction inserting one row through the
// same writer):
//
//   - submit: the hold, the job row and its event in one transaction;
//
//   - claim/4-workers: four goroutines claiming from a filled queue (each
//     claim is the select, the event seq and the lease in one transaction).
//
//     go test -run='^$' -bench=Jobs -benchtime=2000x ./internal/sqlstore/
func BenchmarkJobs(b *testing.B) {
	for _, e := range ledgerEngines() {
		b.Run(e.name, func(b *testing.B) {
			ctx := context.Background()
			db := openLedgerDB(b, e, time.Now)
			if _, err := db.RawExec(ctx, `CREATE TABLE jobs_bench_raw (id TEXT PRIMARY KEY, n BIGINT NOT NULL)`); err != nil {
				b.Fatal(err)
			}
			user, house := newLedgerHouse(b, db)
			if err := db.AddCredit(ctx, house, ledger.NewTopUp(1<<40, "")); err != nil {
				b.Fatal(err)
			}
			submit := func() error {
				j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: house, UserID: user,
					Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: "f", Cost: 2, CreatedAt: ts.Of(time.Now())}
				_, _, err := db.SubmitJob(ctx, j)
				return err
			}
			b.Run("raw-tx", func(b *testing.B) {
				for b.Loop() {
					if err := db.write(ctx, func(tx *Tx) error {
						_, err := tx.Exec(ctx, `INSERT INTO jobs_bench_raw (id, n) VALUES (?, ?)`, uuid.NewString(), 1)
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
			})
			b.Run("submit", func(b *testing.B) {
				for b.Loop() {
					if err := submit(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
			})
			b.Run("claim/4-workers", func(b *testing.B) {
				b.StopTimer()
				for range b.N {
					if err := submit(); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				var claimed atomic.Int64
				var wg sync.WaitGroup
				for w := range 4 {
					wg.Go(func() {
						for claimed.Load() < int64(b.N) {
							_, ok, err := db.Claim(ctx, "bench-"+string(rune('a'+w)), time.Now().Add(time.Minute))
							if err != nil {
								b.Error(err)
								return
							}
							if !ok {
								return
							}
							claimed.Add(1)
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(claimed.Load())/b.Elapsed().Seconds(), "claims/s")
			})
		})
	}
}
