package httpapi

import (
	"context"
	"time"
)

// HoldHeavy takes every heavy turn of the house and sets how long another
// heavy request waits for one; release gives the turns back.
func (s *Server) HoldHeavy(house string, wait time.Duration) (release func()) {
	s.heavy.mu.Lock()
	s.heavy.wait = wait
	s.heavy.mu.Unlock()
	var releases []func()
	for range s.heavy.per {
		r, err := s.heavy.acquire(context.Background(), house)
		if err != nil {
			panic(err)
		}
		releases = append(releases, r)
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}

// HeavyInFlight reports how many heavy requests of the house hold a turn.
func (s *Server) HeavyInFlight(house string) int { return s.heavy.inFlight(house) }
