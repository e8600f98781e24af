package sweep

import (
	"context"
	"log/slog"
	"time"
)

// Holds (issue 28): every hold has an owner that outlives a crash. A
// hold of no job pays for a call this process makes and names the process
// as its holder; the process renews its holder's lease in the database
// while it lives. At start and every lease, any instance voids the holds
// no owner can resolve any more (the store's VoidStrandedHolds: a call's
// hold past its deadline or whose holder's lease lapsed, and the holds of
// jobs and pipeline frames that ended without resolving theirs). A crashed
// process's calls' holds are voided within about two leases of the crash.

// HoldStore is what the holds' sweep needs.
type HoldStore interface {
	RenewHolder(ctx context.Context, id string, until time.Time) error
	VoidStrandedHolds(ctx context.Context, now time.Time) (int, error)
}

// Holds keeps one process's holder lease and sweeps stranded holds.
type Holds struct {
	store  HoldStore
	holder string
	lease  time.Duration
	now    func() time.Time
	log    *slog.Logger
}

// NewHolds returns the holds' keeper for holder, whose lease lasts lease
// (at least a second).
func NewHolds(store HoldStore, holder string, lease time.Duration, now func() time.Time, log *slog.Logger) *Holds {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Holds{store: store, holder: holder, lease: max(lease, time.Second), now: now, log: log}
}

// Renew writes the holder's lease once.
func (h *Holds) Renew(ctx context.Context) error {
	return h.store.RenewHolder(ctx, h.holder, h.now().Add(h.lease))
}

// Sweep voids the stranded holds once and says how many it resolved.
func (h *Holds) Sweep(ctx context.Context) (int, error) {
	return h.store.VoidStrandedHolds(ctx, h.now())
}

// Run renews the lease three times a lease and sweeps at start and then
// every lease (a minute at most), until ctx ends.
func (h *Holds) Run(ctx context.Context) {
	renew := time.NewTicker(h.lease / 3)
	defer renew.Stop()
	sweep := time.NewTicker(min(h.lease, time.Minute))
	defer sweep.Stop()
	h.sweepOnce(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			if err := h.Renew(ctx); err != nil && ctx.Err() == nil {
				h.log.Warn("holds: renew the holder's lease", "holder", h.holder, "err", err)
			}
		case <-sweep.C:
			h.sweepOnce(ctx)
		}
	}
}

func (h *Holds) sweepOnce(ctx context.Context) {
	n, err := h.Sweep(ctx)
	if err != nil && ctx.Err() == nil {
		h.log.Warn("holds: sweep stranded holds", "err", err)
	} else if n > 0 {
		h.log.Info("holds: stranded holds resolved", "count", n)
	}
}
