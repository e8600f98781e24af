package poll

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestLoop: a round takes work until none is left, a failure ends the
// round and is reported, a wake-up starts a round before the idle period,
// and the loop returns when its context ends.
func TestLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		wake := make(chan struct{}, 1)
		queue := []error{nil, nil, errors.New("boom"), nil}
		var steps, fails atomic.Int32

		step := func() (bool, error) {
			steps.Add(1)
			if len(queue) == 0 {
				return false, nil
			}
			err := queue[0]
			queue = queue[1:]
			return true, err
		}
		done := make(chan struct{})
		go func() {
			Loop(ctx, wake, func() time.Duration { return time.Hour }, step, func(error) { fails.Add(1) })
			close(done)
		}()
		synctest.Wait()
		if steps.Load() != 3 || fails.Load() != 1 {
			t.Fatalf("first round: %d steps, %d fails; want 3 steps ending in the failure", steps.Load(), fails.Load())
		}
		wake <- struct{}{}
		synctest.Wait()
		if steps.Load() != 5 || fails.Load() != 1 {
			t.Fatalf("after a wake-up: %d steps, %d fails; want the last item and one empty look", steps.Load(), fails.Load())
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if steps.Load() != 6 {
			t.Fatalf("after the idle period: %d steps; want one more look", steps.Load())
		}
		cancel()
		<-done
	})
}
