package httpapi_test

import (
	"context"
	"testing"
	"time"

	"studio/internal/app"
	"studio/internal/apptest"
)

// TestWorkersWakeAcrossInstances: a job submitted on one instance is
// claimed at once by another instance's idle workers, woken by PostgreSQL
// NOTIFY, though they poll only once a minute. The job is submitted once
// every worker of two has made its first look and gone idle, so only a
// wake can bring it.
func TestWorkersWakeAcrossInstances(t *testing.T) {
	engines := apptest.Engines(t)
	if len(engines) < 2 {
		t.Skip("TEST_DATABASE_URL is not set")
	}
	e := engines[1]
	slow := func(c *app.Config) { c.WorkerPoll = time.Minute }
	one, two := apptest.New(t, e, slow), apptest.New(t, e, slow)
	owner := one.SignUp(t, "owner")
	key := one.Key(t, owner, "member")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = two.RunWorkers(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(30 * time.Second); two.Pool.Idle() < two.Config.Workers; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of two's %d workers went idle within 30 s", two.Pool.Idle(), two.Config.Workers)
		}
	}

	start := time.Now()
	id := submitJob(t, one, key, "upscale")
	for {
		j, err := one.DB.Job(context.Background(), owner.HouseID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == "done" {
			t.Logf("claimed and developed on the other instance after %v", time.Since(start))
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("job still %s after 30 s: the other instance's workers were not woken", j.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
