package httpapi

import (
	"context"
	"sync"
	"time"

	"studio/internal/errs"
)

// A route marked Heavy in the table reads something that grows with the
// house (its whole library, every job): a house may run only a few of them
// at once. The others wait their turn for a bounded time and are then
// answered 429 RATE_LIMITED with Retry-After, so one house flooding its
// heavy reads holds at most its share of the database connections and CPU,
// and other houses' requests and /health stay served.
const (
	heavyPerHouse = 2               // heavy requests a house runs at once
	heavyWait     = 2 * time.Second // how long another one waits for a turn
	heavyRetry    = 1               // the Retry-After of a refusal, in seconds
)

// errHeavyBusy refuses a heavy request that waited too long for its turn.
var errHeavyBusy = errs.With(errs.Msg(errs.RateLimited,
	"This house already runs as many large reads as it may at once; try again in a moment."), "retryAfter", int64(heavyRetry))

// houseGuard counts each house's heavy requests in flight.
type houseGuard struct {
	per  int
	wait time.Duration

	mu     sync.Mutex
	houses map[string]*houseSlots
}

type houseSlots struct {
	sem   chan struct{}
	users int // holders and waiters; the entry goes when none are left
}

func newHouseGuard(per int, wait time.Duration) *houseGuard {
	return &houseGuard{per: per, wait: wait, houses: map[string]*houseSlots{}}
}

// acquire waits for one of the house's turns: it returns the release, or
// errHeavyBusy when no turn came within the wait, or the context's error.
func (g *houseGuard) acquire(ctx context.Context, house string) (func(), error) {
	g.mu.Lock()
	hs := g.houses[house]
	if hs == nil {
		hs = &houseSlots{sem: make(chan struct{}, g.per)}
		g.houses[house] = hs
	}
	hs.users++
	wait := g.wait
	g.mu.Unlock()

	leave := func() {
		g.mu.Lock()
		if hs.users--; hs.users == 0 {
			delete(g.houses, house)
		}
		g.mu.Unlock()
	}
	select {
	case hs.sem <- struct{}{}:
		return func() { <-hs.sem; leave() }, nil
	default:
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case hs.sem <- struct{}{}:
		return func() { <-hs.sem; leave() }, nil
	case <-timer.C:
		leave()
		return nil, errHeavyBusy
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// inFlight reports how many heavy requests of the house hold a turn.
func (g *houseGuard) inFlight(house string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if hs := g.houses[house]; hs != nil {
		return len(hs.sem)
	}
	return 0
}
