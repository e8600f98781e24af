package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"studio/internal/job"
	"studio/internal/sweep"
	"studio/internal/worker"
)

// Worker is the working face of a process: the pool that claims and
// develops queued jobs, and the loops beside it (the pack builder, the
// webhook senders, the sweeps, the referral credits, the digest's cadence
// and the automatic top-ups). It builds no HTTP server: `studio worker` runs only this.
type Worker struct {
	Pool *worker.Pool // the workers; they run only when Run is called
	core *Core
}

// NewWorker builds the worker role on core; Run starts it. Once built, a
// submit through this process's API or another instance's event wakes it.
func NewWorker(core *Core) *Worker {
	cfg := core.Config
	// What a provider is told beside the tool's own instructions, in rank
	// order (job.Rank*): the brand clause and the riding marks, standing
	// notes in force, the memories in force where the house lets them
	// reach develops, then the frame's own words.
	director := job.Sources{core.brands.Source(), core.Judge.NotesSource(), core.memories.Source(), job.FrameWords}
	pool := worker.New(core.DB, core.Blobs, core.Engine, wakeOnDone{core.Hooks.Wake}, core.Log,
		worker.Options{Concurrency: cfg.Workers, Lease: cfg.JobLease, Poll: cfg.WorkerPoll, Deadline: cfg.RenderDeadline,
			Decoding: core.decoding, Now: core.now, Director: director, Judge: core.Judge, Meter: core.Metrics})
	wake := pool.Wake
	core.workers.Store(&wake)
	return &Worker{Pool: pool, core: core}
}

// Run develops queued jobs, builds queued packs and sends webhook
// deliveries until ctx ends, then lets in-flight renders finish (or
// returns them to the queue).
func (w *Worker) Run(ctx context.Context) error {
	c := w.core
	c.keepHolds(ctx)
	c.Log.Info("workers running", "engine", c.Engine.Name(), "tools", c.Engine.Tools(), "concurrency", c.Config.Workers)
	var wg sync.WaitGroup
	var packErr, sweepErr, hookErr, deskErr error
	wg.Go(func() { packErr = c.Packs.Run(ctx) })
	wg.Go(func() { hookErr = c.Hooks.Run(ctx) })
	// Support screenshots older than SUPPORT_SHOT_RETENTION_DAYS go at start and then hourly.
	wg.Go(func() {
		deskErr = c.Desk.Run(ctx, time.Hour, func(n int, err error) {
			c.Log.Info("support screenshots removed", "count", n, "err", err)
		})
	})
	// Bytes a crash left without a row, and stale temporary files, go once
	// at start and then every STUDIO_SWEEP_EVERY.
	sweeper := sweep.New(c.DB, c.Blobs, sweep.Options{Grace: c.Config.SweepGrace, Every: c.Config.SweepEvery, Log: c.Log})
	wg.Go(func() { sweepErr = sweeper.Run(ctx) })
	// Referral rewards whose hold ended are credited at start and then hourly.
	wg.Go(func() { w.creditRewards(ctx, time.Hour) })
	// The analyst digest runs itself when its cadence is on and due, checked every 10 minutes.
	wg.Go(func() { w.runDigest(ctx, 10*time.Minute) })
	// Automatic top-ups a settle queued are charged within seconds.
	wg.Go(func() { c.Billing.RunAutocharges(ctx, 5*time.Second) })
	err := w.Pool.Run(ctx)
	wg.Wait()
	return errors.Join(err, packErr, sweepErr, hookErr, deskErr)
}

// ServeMetrics answers GET /metrics (behind METRICS_TOKEN) on ln until ctx
// ends: the one route a `studio worker` serves (METRICS_ADDR), so that the
// series only workers move (develops ended, render durations, provider
// errors, webhook deliveries, e-mail sends) can be scraped.
func (w *Worker) ServeMetrics(ctx context.Context, ln net.Listener) error {
	c := w.core
	if c.Config.MetricsToken == "" {
		return errors.Join(errors.New("METRICS_ADDR needs METRICS_TOKEN"), ln.Close())
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", c.Metrics.Handler(c.Config.MetricsToken))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	c.Log.Info("serving metrics", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// creditRewards credits the referral program's held host rewards whose
// hold ended, now and then every period, until ctx ends. Each reward is
// credited once however many instances run this.
func (w *Worker) creditRewards(ctx context.Context, every time.Duration) {
	log := w.core.Log
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := w.core.DB.CreditDueRewards(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("referral rewards", "err", err)
		} else if n > 0 {
			log.Info("referral rewards credited", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runDigest computes the analyst digest whenever its cadence is enabled
// and the latest digest is as old as its hours, now and then every
// period, until ctx ends. One instance of many computes each due digest.
func (w *Worker) runDigest(ctx context.Context, every time.Duration) {
	log := w.core.Log
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if ran, err := w.core.Digest.RunDue(ctx); err != nil && ctx.Err() == nil {
			log.Warn("analyst digest", "err", err)
		} else if ran {
			log.Info("analyst digest computed on its cadence")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// wakeOnDone tells the webhook senders of this process when a frame
// lands, so develop.done leaves at once rather than at their next poll.
// (The job's event left with the transaction that ended it:
// sqlstore.OnEvents.)
type wakeOnDone struct {
	wake func()
}

func (w wakeOnDone) JobChanged(_ context.Context, j job.Job) {
	if j.Status == job.Done {
		w.wake()
	}
}
