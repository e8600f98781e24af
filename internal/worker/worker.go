// Package worker develops queued jobs: it claims a job with a lease,
// renews the lease while the engine renders, stores the frame as an asset
// of the house and settles the hold, or fails the job and releases it.
// A rescuer returns jobs whose lease ran out (a crashed worker) to the
// queue, or fails them after too many tries, so no hold is stranded.
//
// Every develop has a render deadline (DECISIONS §11): Options.Deadline
// (STUDIO_RENDER_DEADLINE) or the tool's own, counted from its first claim.
// Past it the job fails with PROVIDER_TIMEOUT and its hold is voided; the
// engine's context ends, which tells its provider to cancel; and the
// worker is free at that instant, whether or not the engine has returned
// (a provider whose connection never answers, an engine that does not
// look at its context): the engine finishes stopping on its own. A job the
// rescuer finds past its deadline fails the same way instead of returning
// to the queue, so a restart never resubmits it.
package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/blob"
	"studio/internal/engine"
	"studio/internal/imagemem"
	"studio/internal/job"
	"studio/internal/poll"
	"studio/internal/tool"
)

// Store is what the worker needs from persistence.
type Store interface {
	Claim(ctx context.Context, worker string, leaseUntil time.Time) (job.Job, bool, error)
	Heartbeat(ctx context.Context, house, id, worker string, leaseUntil time.Time) (bool, error)
	// InputKeys returns the blob key of each input asset, in order (deleted
	// assets included: their bytes remain).
	InputKeys(ctx context.Context, house string, inputs []job.Input) ([]string, error)
	// Finish stores the frame as an asset, posts the hold, marks the job
	// done and takes its event, in one transaction.
	Finish(ctx context.Context, j job.Job, worker string, f job.Frame) (job.Job, error)
	// Fail marks the job failed with its code and sentence and voids its
	// hold, in one transaction.
	Fail(ctx context.Context, j job.Job, worker string, f job.Failure) (job.Job, error)
	// Release returns a job this worker holds to the queue.
	Release(ctx context.Context, j job.Job, worker string) (job.Job, error)
	// Rescue requeues running jobs whose lease ended before now, or fails
	// those past their render deadline (PROVIDER_TIMEOUT) and those that
	// already had maxAttempts tries.
	Rescue(ctx context.Context, now time.Time, maxAttempts int, deadline job.Deadlines) ([]job.Job, error)
	// RecordDirection records on the job what its provider is told: the
	// composed prompt and the references before the run, then the prompt
	// and pictures the engine sent (operators only).
	RecordDirection(ctx context.Context, j job.Job, d job.Direction) error
}

// Judge writes the verdicts of settled frames (judge.Service): JudgeNext
// judges one due frame and reports false when none was due.
type Judge interface {
	JudgeNext(ctx context.Context, worker string) (bool, error)
}

// Options tune a worker pool.
type Options struct {
	Concurrency int           // jobs rendered at once (default 2)
	Lease       time.Duration // how long a claim lasts without a heartbeat (default 30 s)
	Poll        time.Duration // how often an idle worker looks for work (default 1 s)
	MaxAttempts int           // tries before a rescued job fails (default 3)
	Grace       time.Duration // how long shutdown waits for in-flight renders (default 20 s)
	// Deadline is how long a claimed develop may render, counted from its
	// first claim, before it fails with PROVIDER_TIMEOUT (default 10 min,
	// STUDIO_RENDER_DEADLINE); DeadlineOf gives a tool's own, longer one
	// (0 for the default; by default the tool's declaration, tool.Tool.Deadline).
	Deadline   time.Duration
	DeadlineOf func(tool string) time.Duration
	// Decoding is the memory for decoded inputs, shared by the process; a
	// render takes what its inputs need before it starts (1 GiB of its own
	// when nil).
	Decoding *imagemem.Budget
	Now      func() time.Time
	// Director composes each develop's direction (prompt and references)
	// right before the engine is called; nil tells the engine nothing.
	Director job.Director
	// Judge, when set, runs beside the renders: a settled frame is judged
	// after it settled, never before.
	Judge Judge
	// Meter, when set, is told of each render that ended here (the
	// /metrics series).
	Meter Meter
}

// Meter hears each render's end: the engine that served it, the tool, how
// long the engine took, and the failure code ("" when the frame settled).
// A render handed back at shutdown or after a lost lease is not told.
type Meter interface {
	Rendered(engine, tool string, took time.Duration, failure string)
}

// Pool is a set of workers in one process.
type Pool struct {
	store  Store
	blobs  blob.Store
	engine engine.Engine
	notify job.Notifier
	log    *slog.Logger
	opts   Options
	id     string
	wake   chan struct{}
	judged chan struct{} // a frame settled: the judge has work
	idle   atomic.Int32  // render loops waiting for a wake or their next look
	// renders are the engine calls in flight, including those a worker
	// stopped waiting for at their deadline: shutdown gives them the grace
	// period to finish stopping.
	renders sync.WaitGroup
}

// DefaultDeadline is the render deadline when none is configured
// (DECISIONS §11).
const DefaultDeadline = 10 * time.Minute

// errDeadline ends a render that passed its deadline.
var errDeadline = errors.New("worker: the render deadline passed")

// deadline is how long a claimed develop of the tool may render.
func (p *Pool) deadline(name string) time.Duration {
	if d := p.opts.DeadlineOf(name); d > 0 {
		return d
	}
	return p.opts.Deadline
}

// declaredDeadline is the tool's own render deadline as the registry
// declares it (0: the configured one).
func declaredDeadline(name string) time.Duration {
	t, _ := tool.Get(name)
	return t.Deadline
}

// New returns a pool. Call Run to start it.
func New(store Store, blobs blob.Store, eng engine.Engine, notify job.Notifier, log *slog.Logger, opts Options) *Pool {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 2
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 3
	}
	if opts.Grace <= 0 {
		opts.Grace = 20 * time.Second
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	if opts.DeadlineOf == nil {
		opts.DeadlineOf = declaredDeadline
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Decoding == nil {
		opts.Decoding = imagemem.New(0)
	}
	return &Pool{store: store, blobs: blobs, engine: eng, notify: notify, log: log, opts: opts,
		id: "w-" + uuid.NewString()[:8], wake: make(chan struct{}, 1), judged: make(chan struct{}, 1)}
}

// Wake tells an idle worker that work may be waiting (after a submit, or a
// NOTIFY from another instance).
func (p *Pool) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run works until ctx ends. Then it stops claiming and gives in-flight
// renders the grace period to finish; those that do not are returned to
// the queue, so their holds resolve later, exactly once.
func (p *Pool) Run(ctx context.Context) error {
	// Renders outlive ctx by the grace period.
	renderCtx, cancelRenders := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRenders()
	var wg sync.WaitGroup
	for i := range p.opts.Concurrency {
		wg.Go(func() { p.loop(ctx, renderCtx, p.id+"-"+strconv.Itoa(i)) })
	}
	wg.Go(func() { p.rescueLoop(ctx) })
	if p.opts.Judge != nil {
		wg.Go(func() { p.judgeLoop(ctx, renderCtx, p.id+"-judge") })
	}
	<-ctx.Done()
	loops, all := make(chan struct{}), make(chan struct{})
	go func() { wg.Wait(); close(loops) }()
	go func() { <-loops; p.renders.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(p.opts.Grace):
		// An engine still stopping past the grace period is left to the
		// process's end; the loops return once their renders are cancelled.
		cancelRenders()
		<-loops
	}
	return nil
}

func (p *Pool) loop(ctx, renderCtx context.Context, name string) {
	waiting := false // poll.Loop calls both functions on this goroutine
	poll.Loop(ctx, p.wake,
		func() time.Duration {
			waiting = true
			p.idle.Add(1)
			return p.every()
		},
		func() (bool, error) {
			if waiting {
				waiting = false
				p.idle.Add(-1)
			}
			return p.One(renderCtx, name)
		},
		func(err error) { p.log.Error("worker", "worker", name, "err", err) })
	if waiting {
		p.idle.Add(-1)
	}
}

// Idle is how many of the running pool's render loops have found the
// queue empty and wait for a wake or their next look.
func (p *Pool) Idle() int { return int(p.idle.Load()) }

// every is the idle period between looks at the queue.
func (p *Pool) every() time.Duration { return p.opts.Poll }

// judgeLoop writes verdicts of settled frames, woken by each settle and
// polling for frames whose retry came due.
func (p *Pool) judgeLoop(ctx, judgeCtx context.Context, name string) {
	poll.Loop(ctx, p.judged, p.every,
		func() (bool, error) { return p.opts.Judge.JudgeNext(judgeCtx, name) },
		func(err error) { p.log.Error("judge", "worker", name, "err", err) })
}

func (p *Pool) rescueLoop(ctx context.Context) {
	t := time.NewTicker(max(p.opts.Lease/3, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			jobs, err := p.store.Rescue(ctx, p.opts.Now(), p.opts.MaxAttempts, p.deadline)
			if err != nil {
				p.log.Error("rescue", "err", err)
				continue
			}
			for _, j := range jobs {
				p.log.Warn("rescued job with an expired lease", "job", j.ID, "house", j.HouseID, "status", j.Status)
				p.notify.JobChanged(ctx, j)
			}
			if len(jobs) > 0 {
				p.Wake()
			}
		}
	}
}

// One claims and develops a single job; it reports false when the queue
// was empty.
func (p *Pool) One(ctx context.Context, worker string) (bool, error) {
	j, ok, err := p.store.Claim(ctx, worker, p.opts.Now().Add(p.opts.Lease))
	if err != nil || !ok {
		return false, err
	}
	p.notify.JobChanged(ctx, j)
	return true, p.develop(ctx, worker, j)
}

func (p *Pool) develop(ctx context.Context, worker string, j job.Job) error {
	limit := p.deadline(j.Tool)
	left := limit
	if j.StartedAt != nil { // its first claim: a rescued job keeps its deadline
		left = j.StartedAt.Add(limit).Sub(p.opts.Now())
	}
	if left <= 0 {
		p.log.Warn("develop claimed past its render deadline", "job", j.ID, "tool", j.Tool, "deadline", limit)
		return p.fail(ctx, worker, j, job.TimedOut(limit))
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		t := time.NewTicker(max(p.opts.Lease/3, 50*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				held, err := p.store.Heartbeat(runCtx, j.HouseID, j.ID, worker, p.opts.Now().Add(p.opts.Lease))
				if err == nil && !held {
					cancel(job.ErrLeaseLost)
					return
				}
			}
		}
	}()
	rctx, stop := context.WithTimeoutCause(runCtx, left, errDeadline)
	defer stop()
	began := p.opts.Now()
	res, sent, err := p.renderWithin(rctx, j)
	took := p.opts.Now().Sub(began)
	timedOut := errors.Is(context.Cause(rctx), errDeadline)
	cancel(nil)
	<-beat
	switch {
	case errors.Is(context.Cause(runCtx), job.ErrLeaseLost):
		p.log.Warn("lease lost while rendering; the rescuer owns the job now", "job", j.ID)
		return nil
	case err != nil && ctx.Err() != nil:
		// Shutting down past the grace period: hand the job back.
		done, rerr := p.store.Release(context.WithoutCancel(ctx), j, worker)
		if rerr == nil {
			p.notify.JobChanged(ctx, done)
		}
		return rerr
	}
	p.recordSent(ctx, j, sent)
	if err == nil {
		err = checkResult(j, res)
	}
	switch {
	case err != nil && timedOut:
		p.log.Warn("develop passed its render deadline", "job", j.ID, "tool", j.Tool, "deadline", limit, "err", err)
		f := job.TimedOut(limit)
		p.meter(j, took, f.Code, true)
		return p.fail(ctx, worker, j, f)
	case err != nil:
		p.log.Warn("develop failed", "job", j.ID, "tool", j.Tool, "err", err)
		f := failure(err)
		p.meter(j, took, f.Code, true)
		return p.fail(ctx, worker, j, f)
	}
	if what := misfit(p.expect(j), res); what != "" {
		bad := engine.UpstreamOf(p.engine, j.Tool).BadResult(j.Tool, what, nil)
		p.log.Warn("develop's result is not what its tool makes", "job", j.ID, "tool", j.Tool, "what", what)
		p.meter(j, took, bad.Code, true)
		return p.fail(ctx, worker, j, job.Failure{Code: bad.Code, Reason: bad.Reason})
	}
	p.meter(j, took, "", false)
	done, err := p.settle(ctx, worker, j, res)
	if errors.Is(err, job.ErrLeaseLost) {
		// The lease lapsed and the rescuer requeued the job before the
		// frame landed: it is another worker's now, and this frame is
		// discarded (settle removed its bytes).
		p.log.Warn("lease lost before the frame was stored; the rescuer owns the job now", "job", j.ID)
		return nil
	}
	if err != nil {
		return err
	}
	p.notify.JobChanged(ctx, done)
	select {
	case p.judged <- struct{}{}:
	default:
	}
	return nil
}

// meter tells the Meter, if any, of j's render: took long, failing with
// code ("" for a frame that settles; "UNCLASSIFIED" for a failure whose
// engine named no code).
func (p *Pool) meter(j job.Job, took time.Duration, code string, failed bool) {
	if p.opts.Meter == nil {
		return
	}
	if failed && code == "" {
		code = "UNCLASSIFIED"
	}
	served, _ := engine.Provider(p.engine, j.Tool)
	if served == "" {
		served = "none"
	}
	p.opts.Meter.Rendered(served, j.Tool, took, code)
}

// renderWithin renders j and returns when the render does or when ctx
// ends, whichever is first: a worker never waits on an engine past the
// job's deadline. An engine still running then is left to stop on its
// own (its context has ended, which tells its provider to cancel); its
// result is dropped. sent is what the engine said it sent, if it did.
func (p *Pool) renderWithin(ctx context.Context, j job.Job) (engine.Result, *engine.Sent, error) {
	type rendered struct {
		res engine.Result
		err error
	}
	var mu sync.Mutex
	var sent *engine.Sent
	record := func(s engine.Sent) {
		mu.Lock()
		defer mu.Unlock()
		sent = &s
	}
	out := make(chan rendered, 1)
	p.renders.Add(1)
	go func() {
		defer p.renders.Done()
		res, err := p.render(ctx, j, record)
		out <- rendered{res, err}
	}()
	var r rendered
	select {
	case r = <-out:
	case <-ctx.Done():
		r.err = fmt.Errorf("worker: stopped waiting for the engine: %w", context.Cause(ctx))
	}
	mu.Lock()
	defer mu.Unlock()
	return r.res, sent, r.err
}

// fail fails j with f, voiding its hold, and tells the sockets. A job the
// worker no longer holds (the rescuer took it) is left as it is.
func (p *Pool) fail(ctx context.Context, worker string, j job.Job, f job.Failure) error {
	done, err := p.store.Fail(ctx, j, worker, f)
	if errors.Is(err, job.ErrLeaseLost) {
		p.log.Warn("lease lost before the failure was recorded; the rescuer owns the job now", "job", j.ID)
		return nil
	}
	if err != nil {
		return err
	}
	p.notify.JobChanged(ctx, done)
	return nil
}

// recordSent replaces the direction recorded before the run with what the
// engine sent its provider (the local engine: what it would send), when it
// said; a run that failed before sending keeps the composed direction. The
// frame settles or fails either way: a record that cannot be written is
// logged.
func (p *Pool) recordSent(ctx context.Context, j job.Job, s *engine.Sent) {
	if s == nil {
		return
	}
	d := job.Direction{Prompt: s.Prompt, Refs: make([]job.Ref, len(s.Refs))}
	for i, r := range s.Refs {
		d.Refs[i] = job.Ref{Role: r.Role, Label: r.Label, Text: r.Text, AssetID: r.AssetID}
	}
	if err := p.store.RecordDirection(ctx, j, d); err != nil {
		p.log.Error("record what the provider was sent", "job", j.ID, "err", err)
	}
}

// render develops j; record hears what the engine sends its provider.
func (p *Pool) render(ctx context.Context, j job.Job, record func(engine.Sent)) (engine.Result, error) {
	keys, err := p.store.InputKeys(ctx, j.HouseID, j.Inputs)
	if err != nil {
		return engine.Result{}, engine.InputError(j.Tool, "the inputs could not be found", err)
	}
	req := engine.Request{Tool: j.Tool, Params: j.Params, Tier: j.Tier, Record: record}
	for i, in := range j.Inputs {
		data, err := p.read(ctx, keys[i])
		if err != nil {
			return engine.Result{}, engine.InputError(j.Tool, "the "+in.Role+" input could not be read", err)
		}
		req.Inputs = append(req.Inputs, engine.Input{Role: in.Role, Data: data, AssetID: in.AssetID})
	}
	if w, h := shape(j.Tool, j.Params); w > 0 && h > 0 {
		req.Shape = &engine.Shape{Width: w, Height: h}
	}
	if err := p.direct(ctx, j, &req); err != nil {
		return engine.Result{}, err
	}
	release, err := p.opts.Decoding.Acquire(ctx, engine.MemoryCost(req))
	if errors.Is(err, imagemem.ErrOverBudget) {
		return engine.Result{}, engine.InputError(j.Tool, "This develop needs more memory for its pictures than this server allows.", err)
	}
	if err != nil {
		return engine.Result{}, err
	}
	defer release()
	return p.engine.Run(ctx, req)
}

// direct composes the job's direction, records it on the job before the
// engine hears it (recordSent replaces it with what the engine sent), and
// hands it to the engine with the references' bytes.
func (p *Pool) direct(ctx context.Context, j job.Job, req *engine.Request) error {
	if p.opts.Director == nil {
		return nil
	}
	d, err := p.opts.Director.Direct(ctx, j)
	if err != nil {
		return fmt.Errorf("direct job %s: %w", j.ID, err)
	}
	if err := p.store.RecordDirection(ctx, j, d); err != nil {
		return fmt.Errorf("record the direction of job %s: %w", j.ID, err)
	}
	req.Prompt = d.Prompt
	for _, ref := range d.Refs {
		r := engine.Reference{Role: ref.Role, Label: ref.Label, Text: ref.Text, AssetID: ref.AssetID}
		if ref.AssetID != "" {
			keys, err := p.store.InputKeys(ctx, j.HouseID, []job.Input{{Role: ref.Role, AssetID: ref.AssetID}})
			if err != nil {
				return engine.InputError(j.Tool, "a reference riding with the frame could not be found", err)
			}
			if r.Data, err = p.read(ctx, keys[0]); err != nil {
				return engine.InputError(j.Tool, "a reference riding with the frame could not be read", err)
			}
		}
		req.References = append(req.References, r)
	}
	return nil
}

func (p *Pool) read(ctx context.Context, key string) ([]byte, error) {
	obj, err := p.blobs.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	return io.ReadAll(obj)
}

// shape reads an output destination's size from the params a look or a
// duplicate carried (outputWidth, outputHeight), for a tool that declares
// them (look frames): sent with any other tool they are unknown options.
func shape(name string, params map[string]string) (int, int) {
	if !tool.Declared(name, "outputWidth") {
		return 0, 0
	}
	w, _ := strconv.Atoi(params["outputWidth"])
	h, _ := strconv.Atoi(params["outputHeight"])
	return w, h
}

// settle stores the frame's bytes, then the asset row, hold post and event
// in one transaction. Bytes whose row never committed are removed.
func (p *Pool) settle(ctx context.Context, worker string, j job.Job, res engine.Result) (job.Job, error) {
	id := uuid.Must(uuid.NewV7()).String()
	f := job.Frame{AssetID: id, Name: asset.FrameName(j.Tool, id), BlobKey: asset.BlobKey(j.HouseID, id),
		Mime: res.Mime, Width: res.Width, Height: res.Height}
	n, err := p.blobs.Put(ctx, f.BlobKey, bytesReader(res.Data))
	if err != nil {
		return job.Job{}, fmt.Errorf("store frame of job %s: %w", j.ID, err)
	}
	f.Size, f.SHA256 = n, digest(res.Data)
	done, err := p.store.Finish(ctx, j, worker, f)
	if err != nil {
		_ = p.blobs.Delete(context.WithoutCancel(ctx), f.BlobKey)
		return job.Job{}, err
	}
	return done, nil
}

// checkResult refuses a frame over the image limit (SPEC §8: 12 MB per
// image): it is not stored, and the job fails IMAGE_TOO_LARGE with its hold
// voided, as any failed develop. A result that is not an image (a video) is
// not held to the image limit.
func checkResult(j job.Job, res engine.Result) error {
	if !strings.HasPrefix(res.Mime, "image/") || len(res.Data) <= asset.MaxBytes {
		return nil
	}
	return &engine.Error{Fault: engine.FaultProvider, Tool: j.Tool, Code: asset.ErrTooLarge.Code,
		Reason: fmt.Sprintf("The developed frame is %.1f MB, more than the %d MB an image may be. Nothing was charged.",
			float64(len(res.Data))/(1<<20), asset.MaxMB)}
}

// failure is the code and plain sentence a failed job shows; its hold is
// voided, so nothing is charged.
func failure(err error) job.Failure {
	var e *engine.Error
	if errors.As(err, &e) && e.Reason != "" {
		return job.Failure{Code: e.Code, Reason: e.Reason}
	}
	if errors.Is(err, engine.ErrUnsupported) {
		return job.Failure{Reason: "No configured engine performs this tool. Nothing was charged."}
	}
	return job.Failure{Reason: "The develop failed. Nothing was charged."}
}
