package ratelimit_test

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"studio/internal/dbtest"
	"studio/internal/errs"
	"studio/internal/ratelimit"
	"studio/internal/sqlstore"
)

// counters are the Counters under test: memory always, the database on
// SQLite always and on PostgreSQL when TEST_DATABASE_URL is set. Each
// database is a copy of one migrated once per test binary (dbtest):
// migrating a fresh one for every check cost seconds each under -race.
func counters(t *testing.T) map[string]func(t *testing.T) ratelimit.Counter {
	out := map[string]func(t *testing.T) ratelimit.Counter{
		"memory": func(*testing.T) ratelimit.Counter { return ratelimit.NewMemory() },
		"sqlite": func(t *testing.T) ratelimit.Counter {
			return openDB(t, sqlstore.Options{DataDir: dbtest.MigratedDir(t, "sqlite", func(dir string) error {
				return migrate(sqlstore.Options{DataDir: dir})
			})})
		},
	}
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		out["postgres"] = func(t *testing.T) ratelimit.Counter {
			return openDB(t, sqlstore.Options{DataDir: t.TempDir(), DatabaseURL: dbtest.MigratedDatabase(t, base, "studio", func(url string) error {
				return migrate(sqlstore.Options{DatabaseURL: url})
			})})
		}
	}
	return out
}

func openDB(t *testing.T, opts sqlstore.Options) *sqlstore.DB {
	db, err := sqlstore.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migrate applies the migrations to the database opts names.
func migrate(opts sqlstore.Options) error {
	db, err := sqlstore.Open(context.Background(), opts)
	if err != nil {
		return err
	}
	return db.Close()
}

// clock is a settable clock.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time      { return time.UnixMilli(c.ms.Load()) }
func (c *clock) add(d time.Duration) { c.ms.Add(d.Milliseconds()) }
func newClock(at time.Time) *clock   { c := &clock{}; c.ms.Store(at.UnixMilli()); return c }
func take(t *testing.T, l *ratelimit.Limiter, key string, limit int, w time.Duration) (bool, time.Duration) {
	t.Helper()
	ok, retry, err := l.Take(t.Context(), key, limit, w)
	if err != nil {
		t.Fatal(err)
	}
	return ok, retry
}

// TestConformance runs the same checks against every Counter.
func TestConformance(t *testing.T) {
	checks := []struct {
		name string
		run  func(t *testing.T, c ratelimit.Counter)
	}{
		{"limit then refuse until the window ends", testLimit},
		{"concurrent takes never pass the limit", testConcurrent},
		{"keys are independent", testKeys},
		{"cancel gives a slot back", testCancel},
		{"prune forgets ended windows only", testPrune},
		{"limit zero refuses", testZero},
	}
	for name, newCounter := range counters(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range checks {
				t.Run(c.name, func(t *testing.T) { c.run(t, newCounter(t)) })
			}
		})
	}
}

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func testLimit(t *testing.T, c ratelimit.Counter) {
	clk := newClock(t0.Add(15 * time.Second))
	l := ratelimit.New(c, clk.now)
	for i := range 3 {
		if ok, _ := take(t, l, "k", 3, time.Minute); !ok {
			t.Fatalf("take %d refused under the limit", i+1)
		}
	}
	ok, retry := take(t, l, "k", 3, time.Minute)
	if ok || retry != 45*time.Second {
		t.Fatalf("4th take: ok=%v retry=%v; want refused with 45s left", ok, retry)
	}
	clk.add(44 * time.Second)
	if ok, retry := take(t, l, "k", 3, time.Minute); ok || retry != time.Second {
		t.Fatalf("a second before the window ends: ok=%v retry=%v", ok, retry)
	}
	clk.add(time.Second) // the next window
	if ok, _ := take(t, l, "k", 3, time.Minute); !ok {
		t.Fatal("the next window refuses")
	}
	// A week window is one window for the whole week (epoch-aligned).
	if ok, _ := take(t, l, "week", 1, 7*24*time.Hour); !ok {
		t.Fatal("week: first take refused")
	}
	clk.add(24 * time.Hour)
	if ok, retry := take(t, l, "week", 1, 7*24*time.Hour); ok || retry <= 0 || retry > 6*24*time.Hour {
		t.Fatalf("week: a day later ok=%v retry=%v; want refused until the week ends", ok, retry)
	}
}

func testConcurrent(t *testing.T, c ratelimit.Counter) {
	l := ratelimit.New(c, newClock(t0).now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			ok, _, err := l.Take(context.Background(), "burst", 10, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 10 {
		t.Fatalf("%d of 100 concurrent takes allowed; want exactly 10", allowed.Load())
	}
}

func testKeys(t *testing.T, c ratelimit.Counter) {
	l := ratelimit.New(c, newClock(t0).now)
	if ok, _ := take(t, l, "a", 1, time.Minute); !ok {
		t.Fatal("a refused")
	}
	if ok, _ := take(t, l, "b", 1, time.Minute); !ok {
		t.Fatal("b refused after a reached its limit")
	}
	if ok, _ := take(t, l, "a", 1, time.Minute); ok {
		t.Fatal("a allowed past its limit")
	}
}

func testCancel(t *testing.T, c ratelimit.Counter) {
	l := ratelimit.New(c, newClock(t0).now)
	ctx := t.Context()
	r1, err := l.Reserve(ctx, "k", 2, time.Minute)
	if err != nil || !r1.OK {
		t.Fatal(r1, err)
	}
	r2, _ := l.Reserve(ctx, "k", 2, time.Minute)
	refused, _ := l.Reserve(ctx, "k", 2, time.Minute)
	if !r2.OK || refused.OK {
		t.Fatalf("second %v, third %v; want allowed, refused", r2.OK, refused.OK)
	}
	if err := refused.Cancel(ctx); err != nil { // gives nothing back
		t.Fatal(err)
	}
	if ok, _ := take(t, l, "k", 2, time.Minute); ok {
		t.Fatal("cancelling a refusal freed a slot")
	}
	if err := r1.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r1.Cancel(ctx); err != nil { // twice is once
		t.Fatal(err)
	}
	if ok, _ := take(t, l, "k", 2, time.Minute); !ok {
		t.Fatal("a cancelled slot was not given back")
	}
	if ok, _ := take(t, l, "k", 2, time.Minute); ok {
		t.Fatal("a double cancel gave back two slots")
	}
}

func testPrune(t *testing.T, c ratelimit.Counter) {
	ctx := t.Context()
	start, end := t0.UnixMilli(), t0.Add(time.Minute).UnixMilli()
	for _, k := range []string{"old", "live"} {
		e := end
		if k == "live" {
			e = end + 1
		}
		if ok, err := c.RateTake(ctx, k, start, e, 1); !ok || err != nil {
			t.Fatal(k, ok, err)
		}
	}
	if err := c.RatePrune(ctx, end); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.RateTake(ctx, "old", start, end, 1); !ok {
		t.Error("an ended window was not pruned")
	}
	if ok, _ := c.RateTake(ctx, "live", start, end+1, 1); ok {
		t.Error("a live window was pruned")
	}
	if m, ok := c.(*ratelimit.Memory); ok {
		if err := c.RatePrune(ctx, end+1); err != nil || m.Len() != 0 {
			t.Errorf("memory holds %d windows after pruning all", m.Len())
		}
	}
}

func testZero(t *testing.T, c ratelimit.Counter) {
	l := ratelimit.New(c, newClock(t0).now)
	if ok, retry := take(t, l, "k", 0, time.Minute); ok || retry != time.Minute {
		t.Fatalf("limit 0: ok=%v retry=%v", ok, retry)
	}
}

// TestPrunesAsItGoes: the limiter forgets ended windows by itself, so a
// flood of distinct keys does not grow the counter without end.
func TestPrunesAsItGoes(t *testing.T) {
	clk := newClock(t0)
	m := ratelimit.NewMemory()
	l := ratelimit.New(m, clk.now)
	for i := range 1000 {
		take(t, l, "addr-"+string(rune('a'+i%26))+time.Duration(i).String(), 10, time.Minute)
	}
	clk.add(ratelimit.PruneEvery + time.Minute)
	take(t, l, "late", 10, time.Minute)
	if m.Len() != 1 {
		t.Fatalf("%d windows held after the flood's windows ended; want 1", m.Len())
	}
}

func TestRefused(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want int64
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1001 * time.Millisecond, 2}, {45 * time.Second, 45}} {
		e, ok := errs.As(ratelimit.Refused(tt.in))
		if !ok || e.Code != "RATE_LIMITED" || e.Fields["retryAfter"] != tt.want {
			t.Errorf("Refused(%v) = %v; want RATE_LIMITED retryAfter %d", tt.in, e, tt.want)
		}
	}
}
