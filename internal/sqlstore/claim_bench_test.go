package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// BenchmarkClaimPostgres measures the claim path of the workers on
// PostgreSQL (docs: the queue at 100 times the load): b.N develops queued
// over 20 houses, then claimed by 1 and by 4 claimers at once, each claim
// the one statement a worker runs (FOR UPDATE SKIP LOCKED and the house's
// event seq), and each claim alone or followed by the job's end (a failure
// that voids its hold: one transaction, as a settle is). At most 600 (a house's 60-token grant pays 30 holds of 2).
// It skips without TEST_DATABASE_URL.
//
//	go test -run '^$' -bench ClaimPostgres -benchtime 500x ./internal/sqlstore/
func BenchmarkClaimPostgres(b *testing.B) {
	var pg ledgerEngine
	for _, e := range ledgerEngines() {
		if e.url != "" {
			pg = e
		}
	}
	if pg.url == "" {
		b.Skip("TEST_DATABASE_URL is not set")
	}
	for _, tt := range []struct {
		claimers int
		end      bool // each claim is followed by its end (a failure voiding the hold), as River completes each job
	}{{1, false}, {4, false}, {1, true}, {4, true}} {
		claimers := tt.claimers
		b.Run(fmt.Sprintf("claimers=%d/end=%v", claimers, tt.end), func(b *testing.B) {
			ctx := context.Background()
			db := openLedgerDB(b, pg, time.Now)
			houses := make([][2]string, 20)
			for i := range houses {
				houses[i][0], houses[i][1] = newLedgerHouse(b, db)
			}
			for i := range b.N {
				h := houses[i%len(houses)]
				j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "upscale", Status: job.Queued, HouseID: h[1], UserID: h[0],
					Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
					Cost: 2, CreatedAt: ts.Of(time.Now())}
				if _, _, err := db.SubmitJob(ctx, j); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range claimers {
				wg.Go(func() {
					for {
						worker := fmt.Sprintf("bench-%d", w)
						j, ok, err := db.Claim(ctx, worker, time.Now().Add(time.Minute))
						if err != nil {
							b.Error(err)
							return
						}
						if !ok {
							return
						}
						if tt.end {
							if _, err := db.Fail(ctx, j, worker, job.Failure{Reason: "bench"}); err != nil {
								b.Error(err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
		})
	}
}
