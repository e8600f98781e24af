// Package ratelimit counts events per key in fixed windows, for the limits
// the service sets on addresses and houses (sign-in tries, and later share
// links, invitations, previews and redemptions).
//
// A window of length d starts at a multiple of d since the Unix epoch, so
// every instance agrees on it without talking. A Take counts one event in
// the current window unless limit events are already counted there; the
// check and the count are one atomic step, so concurrent Takes never admit
// more than limit. A Reservation can be given back (Cancel), e.g. when the
// attempt it stood for turned out not to count (a sign-in that succeeded).
//
// Counts live in a Counter: Memory for one process (the default on SQLite),
// or the database (sqlstore.DB) when several instances share PostgreSQL.
// Both pass one conformance suite (ratelimit_test.go).
package ratelimit

import (
	"context"
	"sync/atomic"
	"time"

	"studio/internal/errs"
)

// Counter keeps the counts. Implementations are safe for concurrent use.
type Counter interface {
	// RateTake adds one to key's count in the window that starts at start
	// (Unix ms) and ends at end, unless the count already reached limit;
	// it reports whether it added. Check and add are one atomic step.
	RateTake(ctx context.Context, key string, start, end int64, limit int) (bool, error)
	// RateGive takes one back from key's count in the window that starts at
	// start, never below zero.
	RateGive(ctx context.Context, key string, start int64) error
	// RatePrune forgets the windows that ended at or before now (Unix ms).
	RatePrune(ctx context.Context, now int64) error
}

// Limiter applies limits to keys over a Counter.
type Limiter struct {
	c         Counter
	now       func() time.Time
	pruneFrom atomic.Int64 // Unix ms of the next prune
}

// PruneEvery is how often a Limiter forgets ended windows: the first Take
// after this long since the last prune does it.
const PruneEvery = time.Minute

// New returns a limiter over c; now is the clock (time.Now when nil).
func New(c Counter, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{c: c, now: now}
}

// Reservation is one event counted by Take, or the refusal to count it.
type Reservation struct {
	OK bool
	// RetryAfter is, when refused, the time left until the window ends.
	RetryAfter time.Duration
	l          *Limiter
	key        string
	start      int64
}

// Take counts one event for key in the current window of length window.
// When limit events are already counted there it counts nothing, allowed
// is false, and retryAfter is the time left in the window.
func (l *Limiter) Take(ctx context.Context, key string, limit int, window time.Duration) (allowed bool, retryAfter time.Duration, err error) {
	r, err := l.Reserve(ctx, key, limit, window)
	return r.OK, r.RetryAfter, err
}

// Reserve is Take returning a Reservation that can be given back.
func (l *Limiter) Reserve(ctx context.Context, key string, limit int, window time.Duration) (Reservation, error) {
	now := l.now().UnixMilli()
	w := window.Milliseconds()
	if w <= 0 {
		w = 1
	}
	start := now - now%w
	end := start + w
	r := Reservation{l: l, key: key, start: start, RetryAfter: time.Duration(end-now) * time.Millisecond}
	l.prune(ctx, now)
	if limit <= 0 {
		return r, nil
	}
	ok, err := l.c.RateTake(ctx, key, start, end, limit)
	if err != nil || !ok {
		return r, err
	}
	r.OK, r.RetryAfter = true, 0
	return r, nil
}

// Cancel gives the event back: the window counts one fewer. It does nothing
// for a refused reservation. Giving back after the window ended changes
// nothing that matters (the window no longer limits anyone).
func (r *Reservation) Cancel(ctx context.Context) error {
	if !r.OK || r.l == nil {
		return nil
	}
	r.OK = false
	return r.l.c.RateGive(ctx, r.key, r.start)
}

func (l *Limiter) prune(ctx context.Context, now int64) {
	next := l.pruneFrom.Load()
	if now < next || !l.pruneFrom.CompareAndSwap(next, now+PruneEvery.Milliseconds()) {
		return
	}
	// A failed prune only leaves dead windows for the next one.
	_ = l.c.RatePrune(ctx, now)
}

// Refused is the RATE_LIMITED error for a refusal: 429 with Retry-After of
// the whole seconds left (at least 1).
func Refused(retryAfter time.Duration) error {
	secs := int64((retryAfter + time.Second - 1) / time.Second)
	return errs.With(errs.RateLimited, "retryAfter", max(secs, 1))
}
