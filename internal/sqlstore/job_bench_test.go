package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
// measured the same way (raw-tx: one transaction inserting one row through
// the same writer):
//
//   - submit: the hold, the job row and its event in one transaction,
//     against raw-submit, the same writes as plain statements;
//
//   - claim/4-workers: four goroutines claiming from a filled queue beside
//     300,000 finished jobs (each claim is the job, the event seq and the
//     lease: one statement on PostgreSQL, two in a transaction on SQLite),
//     against raw-claim/4-workers, one statement marking the oldest queued
//     job running; claim-plan checks the claim's plan uses jobs_queued.
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
			// raw-submit is the submit's ceiling: the same writes (the
			// house's seq, the hold, its reservation, the credit, the job)
			// as plain statements in one transaction, nothing read but the
			// seq, the credit known beforehand.
			var credit string
			if err := db.read().QueryRow(ctx, `SELECT id FROM ledger_credits WHERE organization_id = ? ORDER BY available DESC LIMIT 1`, house).Scan(&credit); err != nil {
				b.Fatal(err)
			}
			b.Run("raw-submit", func(b *testing.B) {
				for b.Loop() {
					id, hold := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
					now := time.Now().UnixMilli()
					if err := db.write(ctx, func(tx *Tx) error {
						var seq int64
						if err := tx.QueryRow(ctx, `UPDATE organizations SET event_seq = event_seq + 1 WHERE id = ? RETURNING event_seq`, house).Scan(&seq); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, `INSERT INTO ledger_holds (id, organization_id, job_id, tokens, state, user_id, created_at)
							VALUES (?, ?, ?, 2, 'pending', ?, ?)`, hold, house, id, user, now); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, `INSERT INTO ledger_hold_credits (hold_id, credit_id, organization_id, tokens)
							VALUES (?, ?, ?, 2)`, hold, credit, house); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, `UPDATE ledger_credits SET available = available - 2 WHERE organization_id = ? AND id = ?`, house, credit); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
							fingerprint, cost, hold_id, event_seq, created_at) VALUES (?, ?, ?, 'upscale', '1k', 'queued', '{}', '[]', 'f', 2, ?, ?, ?)`,
							id, house, user, hold, seq, now)
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
			})
			b.Run("submit", func(b *testing.B) {
				for b.Loop() {
					if err := submit(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
			})
			// Claims run over a table holding 300,000 finished jobs (the
			// queued partial index keeps them out of the claim's way) and
			// b.N queued ones; raw-claim is the ceiling: one statement
			// marking the oldest queued job running, no event, no house.
			if _, err := db.RawExec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
				fingerprint, cost, event_seq, created_at)
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
				SELECT 'old-' || i, ?, ?, 'upscale', '1k', 'done', '{}', '[]', 'f', 2, 0, i FROM n`, house, user); err != nil {
				b.Fatal(err)
			}
			if _, err := db.RawExec(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			raw := `UPDATE jobs SET status = 'running', lease_owner = ? WHERE id = (
				SELECT id FROM jobs INDEXED BY jobs_queued WHERE status = 'queued' ORDER BY created_at, id LIMIT 1) RETURNING id`
			plan := `EXPLAIN QUERY PLAN SELECT id, organization_id FROM jobs INDEXED BY jobs_queued WHERE status = 'queued' ORDER BY created_at, id LIMIT 1`
			if db.engine == Postgres {
				raw = `UPDATE jobs SET status = 'running', lease_owner = ? WHERE id = (
					SELECT id FROM jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`
				plan = `EXPLAIN ` + qClaimPostgres
			}
			claims := func(b *testing.B, claim func(worker string) (bool, error)) {
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
							ok, err := claim("bench-" + string(rune('a'+w)))
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
			}
			b.Run("claim-plan", func(b *testing.B) {
				var args []any
				if db.engine == Postgres {
					args = []any{"w", 1, 1}
				}
				rows, err := db.writer().Query(ctx, plan, args...)
				if err != nil {
					b.Fatal(err)
				}
				var lines []string
				cols, _ := rows.Columns()
				for rows.Next() {
					vals := make([]any, len(cols))
					ptrs := make([]any, len(cols))
					for i := range vals {
						ptrs[i] = &vals[i]
					}
					_ = rows.Scan(ptrs...)
					lines = append(lines, fmt.Sprint(vals...))
				}
				rows.Close()
				if !strings.Contains(strings.Join(lines, "\n"), "jobs_queued") {
					b.Fatalf("the claim does not use jobs_queued at 300,000 rows:\n%s", strings.Join(lines, "\n"))
				}
				b.Logf("claim plan at 300,000 finished jobs:\n%s", strings.Join(lines, "\n"))
				for b.Loop() {
				}
			})
			b.Run("raw-claim/4-workers", func(b *testing.B) {
				claims(b, func(worker string) (bool, error) {
					var id string
					err := db.write(ctx, func(tx *Tx) error { return tx.QueryRow(ctx, raw, worker).Scan(&id) })
					if errors.Is(err, sql.ErrNoRows) {
						return false, nil
					}
					return err == nil, err
				})
			})
			b.Run("claim/4-workers", func(b *testing.B) {
				claims(b, func(worker string) (bool, error) {
					_, ok, err := db.Claim(ctx, worker, time.Now().Add(time.Minute))
					return ok, err
				})
			})
		})
	}
}
