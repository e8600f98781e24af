// Package river_test compares the workers' claim path with River v0.51.2's
// on the same PostgreSQL server (issue 30): a module of its own, so River
// is no dependency of the service. It measures River fetching and
// completing jobs whose work does nothing, with 1 and 4 workers; the
// service's own claim is BenchmarkClaimPostgres in internal/sqlstore.
//
//	cd bench/river && TEST_DATABASE_URL=postgres://... go test -run '^$' -bench River -benchtime 500x
package river_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

type noopArgs struct {
	House int `json:"house"`
}

func (noopArgs) Kind() string { return "noop" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
}

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

func BenchmarkRiver(b *testing.B) {
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		b.Skip("TEST_DATABASE_URL is not set")
	}
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			url := freshDatabase(b, base)
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			defer pool.Close()
			driver := riverpgxv5.New(pool)
			m, err := rivermigrate.New(driver, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
				b.Fatal(err)
			}
			ws := river.NewWorkers()
			river.AddWorker(ws, &noopWorker{})
			client, err := river.NewClient(driver, &river.Config{
				Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}},
				Workers:       ws,
				FetchCooldown: time.Millisecond,
			})
			if err != nil {
				b.Fatal(err)
			}
			params := make([]river.InsertManyParams, b.N)
			for i := range params {
				params[i] = river.InsertManyParams{Args: noopArgs{House: i % 20}}
			}
			if _, err := client.InsertMany(ctx, params); err != nil {
				b.Fatal(err)
			}
			done, cancel := client.Subscribe(river.EventKindJobCompleted)
			defer cancel()
			b.ResetTimer()
			if err := client.Start(ctx); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				select {
				case <-done:
				case <-time.After(time.Minute):
					b.Fatal("no job completed within a minute")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			if err := client.Stop(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// freshDatabase creates a database for one run on base's server and drops
// it at the end.
func freshDatabase(b *testing.B, base string) string {
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	name := fmt.Sprintf("river_bench_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close()
	})
	i := strings.LastIndex(base, "/")
	rest := ""
	if q := strings.IndexByte(base[i:], '?'); q >= 0 {
		rest = base[i+q:]
	}
	return base[:i+1] + name + rest
}
