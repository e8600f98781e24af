// Package poll holds the loop every queue consumer here shares: wait for a
// wake-up or the idle timer, then take work until none is left.
package poll

import (
	"context"
	"time"
)

// Loop runs until ctx ends. Each round it calls step until step reports no
// work or fails (fail hears the error), then waits for
// wake, for the period idle answers, or for ctx's end. The first round
// starts at once.
func Loop(ctx context.Context, wake <-chan struct{}, idle func() time.Duration, step func() (bool, error), fail func(error)) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-wake:
		}
		for ctx.Err() == nil {
			worked, err := step()
			if err != nil {
				fail(err)
				break
			}
			if !worked {
				break
			}
		}
		timer.Reset(idle())
	}
}
