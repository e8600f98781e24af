package ratelimit

import (
	"context"
	"sync"
)

// Memory is a Counter in this process's memory: right when one instance
// serves, wrong when several do (each would allow the limit).
type Memory struct {
	mu sync.Mutex
	m  map[memKey]*memCount
}

type memKey struct {
	key   string
	start int64
}

type memCount struct {
	n   int
	end int64
}

// NewMemory returns an empty in-process counter.
func NewMemory() *Memory { return &Memory{m: map[memKey]*memCount{}} }

// RateTake implements Counter.
func (m *Memory) RateTake(_ context.Context, key string, start, end int64, limit int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memKey{key, start}
	c := m.m[k]
	if c == nil {
		c = &memCount{end: end}
		m.m[k] = c
	}
	if c.n >= limit {
		return false, nil
	}
	c.n++
	return true, nil
}

// RateGive implements Counter.
func (m *Memory) RateGive(_ context.Context, key string, start int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.m[memKey{key, start}]; c != nil && c.n > 0 {
		c.n--
	}
	return nil
}

// RatePrune implements Counter.
func (m *Memory) RatePrune(_ context.Context, now int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, c := range m.m {
		if c.end <= now {
			delete(m.m, k)
		}
	}
	return nil
}

// Len is the number of windows held (tests).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
