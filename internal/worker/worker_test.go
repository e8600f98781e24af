package worker_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/asset"
	"studio/internal/blob"
	"studio/internal/engine"
	"studio/internal/events"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/sqlstore"
	"studio/internal/ts"
	"studio/internal/worker"
)

// The worker's timing tests run in a synctest bubble: the clock is fake
// and moves only when every goroutine waits, so a 30 s lease or a 20 s
// grace period takes no real time and the order of events is exact. The
// store is real SQLite, the blobs a real folder; the engine is a fake whose
// renders the test releases.

// fixture is one house on a fresh SQLite store, with the job socket broker
// subscribed to it.
type fixture struct {
	db       *sqlstore.DB
	blobs    *blob.Disk
	blobDir  string
	house    string
	user     string
	announce quiet
	sub      *events.Subscription
	log      *slog.Logger
	logged   *testLog
	mu       sync.Mutex
	houseOf  map[string]string // job id -> house, for jobs of other houses
	lastSeq  int64             // the last eventSeq told reads from sub
}

// quiet is the worker's job.Notifier: the store sends the events itself.
type quiet struct{}

func (quiet) JobChanged(context.Context, job.Job) {}

// newFixture opens the store and a house with the sign-up grant (60
// tokens). Call it inside the bubble; it closes what it opened when the
// test ends.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: migratedDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir := t.TempDir()
	blobs, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.Must(uuid.NewV7()).String(), Name: "Wren", Email: "wren@example.com", CreatedAt: now}
	h := account.House{ID: uuid.Must(uuid.NewV7()).String(), Name: "Wren's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := db.CreateUser(ctx, u, "x", h, false); err != nil {
		t.Fatal(err)
	}
	logged := &testLog{t: t}
	log := slog.New(slog.NewTextHandler(logged, nil))
	broker := events.NewBroker(events.Options{Buffer: 256})
	t.Cleanup(broker.Close)
	db.OnEvents(sqlstore.EventSink{Publish: broker.Publish}) // the store sends each event, as a single instance's does
	f := &fixture{db: db, blobs: blobs, blobDir: dir, house: h.ID, user: u.ID, log: log, logged: logged, sub: broker.Subscribe(h.ID)}
	if got := f.balance(t).Balance; got != 60 {
		t.Fatalf("a new house holds %d tokens; want the 60 of the sign-up grant", got)
	}
	return f
}

// submit queues an upscale (2 tokens at 1k) as the submit route does: the
// hold, the job and its event in one transaction. wait is the fake
// engine's instruction (see fakeEngine).
func (f *fixture) submit(t *testing.T, wait string) job.Job {
	t.Helper()
	return f.submitIn(t, f.house, f.user, wait)
}

// submitIn is submit in another house (newHouse).
func (f *fixture) submitIn(t *testing.T, house, user, wait string) job.Job {
	t.Helper()
	return f.submitTool(t, house, user, "upscale", wait)
}

// submitTool is submitIn of another tool the fake engine performs.
func (f *fixture) submitTool(t *testing.T, house, user, tool, wait string) job.Job {
	t.Helper()
	j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: tool, Status: job.Queued, HouseID: house, UserID: user,
		Tier: ledger.Tier1K, Params: map[string]string{"wait": wait}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
		Cost: 2, CreatedAt: ts.Of(time.Now())}
	stored, _, err := f.db.SubmitJob(t.Context(), j)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	if f.houseOf == nil {
		f.houseOf = map[string]string{}
	}
	f.houseOf[stored.ID] = house
	f.mu.Unlock()
	time.Sleep(time.Millisecond) // the queue is ordered by creation: keep submits apart
	return stored
}

// newHouse opens another house with the sign-up grant and returns it and
// its founder.
func (f *fixture) newHouse(t *testing.T, name string) (house, user string) {
	t.Helper()
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.Must(uuid.NewV7()).String(), Name: name, Email: strings.ToLower(name) + "@example.com", CreatedAt: now}
	h := account.House{ID: uuid.Must(uuid.NewV7()).String(), Name: name + "'s house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := f.db.CreateUser(t.Context(), u, "x", h, false); err != nil {
		t.Fatal(err)
	}
	return h.ID, u.ID
}

// houseOfJob is the house a job was submitted in.
func (f *fixture) houseOfJob(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cmp.Or(f.houseOf[id], f.house)
}

func (f *fixture) job(t *testing.T, id string) job.Job {
	t.Helper()
	j, err := f.db.Job(t.Context(), f.houseOfJob(id), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) hold(t *testing.T, jobID string) ledger.Hold {
	t.Helper()
	h, err := f.db.JobHold(t.Context(), f.houseOfJob(jobID), jobID)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (f *fixture) balance(t *testing.T) ledger.Balance {
	t.Helper()
	b, err := f.db.Balance(t.Context(), f.house)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.CheckLedger(t.Context(), f.house); err != nil {
		t.Fatalf("ledger: %v", err)
	}
	return b
}

// await lets the bubble run (fake time, up to a second) until job id has
// status; SQLite's busy waits make synctest.Wait alone too early.
func (f *fixture) await(t *testing.T, id string, status job.Status) job.Job {
	t.Helper()
	for range 1000 {
		synctest.Wait()
		if j := f.job(t, id); j.Status == status {
			return j
		}
		time.Sleep(time.Millisecond)
	}
	return f.job(t, id)
}

// settled lets the bubble run (fake time, 100 ms) so that work in flight ends.
func (f *fixture) settled(t *testing.T) {
	t.Helper()
	for range 100 {
		synctest.Wait()
		time.Sleep(time.Millisecond)
	}
}

// attempts reads a job's tries, which no store method exposes.
func (f *fixture) attempts(t *testing.T, id string) int {
	t.Helper()
	var n int
	if err := f.db.QueryTest(t.Context(), `SELECT attempts FROM jobs WHERE id = '`+id+`'`, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// frames lists the frame files the blob store holds.
func (f *fixture) frames(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(f.blobDir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			out = append(out, e.Name())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// told returns the statuses the house's sockets were told for job id, in
// the order they arrived, and forgets every message read. The house's
// messages must arrive in eventSeq order, across jobs and workers.
func (f *fixture) told(t *testing.T, id string) []job.Status {
	t.Helper()
	var got []job.Job
	for {
		select {
		case m := <-f.sub.C():
			var msg struct {
				Job job.Job `json:"job"`
			}
			if err := json.Unmarshal(m.Data, &msg); err != nil {
				t.Fatal(err)
			}
			if m.Seq <= f.lastSeq {
				t.Errorf("seq %d came after seq %d: the house's events must arrive in eventSeq order", m.Seq, f.lastSeq)
			}
			f.lastSeq = m.Seq
			if msg.Job.ID == id {
				got = append(got, msg.Job)
			}
		default:
			out := make([]job.Status, len(got))
			for i, j := range got {
				out[i] = j.Status
			}
			return out
		}
	}
}

// pool starts a worker pool on the fixture; stop cancels it and returns
// when Run has returned.
func (f *fixture) pool(t *testing.T, eng engine.Engine, opts worker.Options) (stop func()) {
	t.Helper()
	p := worker.New(f.db, f.blobs, eng, f.announce, f.log, opts)
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	p.Wake()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

// fakeEngine performs upscale (and lookbook-video) as the test says
// through the job's params.wait: "" lands at once; "hold" waits until the
// test closes release (or the render's context ends, as a provider told to
// cancel: stopped hears it); a duration ("5s") renders that long whatever
// the context says, as a render that cannot be interrupted.
type fakeEngine struct {
	release chan struct{}
	runs    chan string // the wait of each render started, for the test to count
	stopped chan string // the wait of each render its context ended
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{release: make(chan struct{}), runs: make(chan string, 16), stopped: make(chan string, 16)}
}

func (*fakeEngine) Name() string         { return "fake" }
func (*fakeEngine) Tools() []string      { return []string{"lookbook-video", "upscale"} }
func (*fakeEngine) Can(tool string) bool { return tool == "upscale" || tool == "lookbook-video" }

func (e *fakeEngine) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	e.runs <- r.Params["wait"]
	frame := engine.Result{Data: frameJPEG, Mime: "image/jpeg", Width: 1024, Height: 768}
	switch w := r.Params["wait"]; w {
	case "":
		return frame, nil
	case "over-limit", "over-limit-video": // a frame one byte over the image limit, or a video as long
		frame.Data = make([]byte, asset.MaxBytes+1)
		if w == "over-limit-video" {
			frame.Mime = "video/mp4"
			copy(frame.Data, "\x00\x00\x00\x18ftypisom") // an MP4 by its bytes
		}
		return frame, nil
	case "hold":
		select {
		case <-e.release:
			return frame, nil
		case <-ctx.Done():
			e.stopped <- r.Params["wait"]
			return engine.Result{}, ctx.Err()
		}
	default:
		d, err := time.ParseDuration(w)
		if err != nil {
			return engine.Result{}, engine.InputError(r.Tool, "bad wait", err)
		}
		time.Sleep(d)
		return frame, nil
	}
}

// TestLeaseLost: worker A claims a job, but its leases lapse (its clock
// runs two minutes behind, as a stalled or skewed worker's would). Worker
// B's rescuer requeues the job and B develops it. When A's render lands late,
// its settle is refused: the job keeps B's frame, the hold is posted once,
// and A's frame bytes are removed.
func TestLeaseLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		j := f.submit(t, "hold")
		slow := newFakeEngine()
		// A renews every 20 s (Lease/3), B's rescuer looks every 10 s: A
		// does not notice the loss before its render lands.
		f.pool(t, slow, worker.Options{Concurrency: 1, Lease: time.Minute,
			Now: func() time.Time { return time.Now().Add(-2 * time.Minute) }})
		if got := f.await(t, j.ID, job.Running); got.Status != job.Running || len(slow.runs) != 1 {
			t.Fatalf("A did not start the job: %s, %d runs", got.Status, len(slow.runs))
		}

		fast := newFakeEngine()
		close(fast.release)
		f.pool(t, fast, worker.Options{Concurrency: 1, Lease: 30 * time.Second})
		time.Sleep(10 * time.Second) // B's rescuer looks every Lease/3
		done := f.await(t, j.ID, job.Done)
		if done.Status != job.Done || done.ResultAssetID == "" || f.attempts(t, j.ID) != 2 {
			t.Fatalf("after B's rescue: %s, result %q, %d attempts; want done by B on the second try",
				done.Status, done.ResultAssetID, f.attempts(t, j.ID))
		}
		if got := f.told(t, j.ID); !slices.Equal(got, []job.Status{job.Queued, job.Running, job.Queued, job.Running, job.Done}) {
			t.Errorf("the sockets were told %v", got)
		}

		close(slow.release) // A's render lands, late
		f.settled(t)
		if got := f.job(t, j.ID); got.Status != job.Done || got.ResultAssetID != done.ResultAssetID {
			t.Errorf("A's late settle changed the job: %s, result %q; want B's %q", got.Status, got.ResultAssetID, done.ResultAssetID)
		}
		if h := f.hold(t, j.ID); h.State != ledger.Posted {
			t.Errorf("hold %s; want posted", h.State)
		}
		if b := f.balance(t); b.Balance != 58 || b.Held != 0 {
			t.Errorf("balance %d, held %d; want 58 and 0: the hold posted exactly once", b.Balance, b.Held)
		}
		if got := f.frames(t); len(got) != 1 || got[0] != done.ResultAssetID {
			t.Errorf("the blob store holds %q; want only B's frame %s", got, done.ResultAssetID)
		}
		if got := f.told(t, j.ID); len(got) != 0 {
			t.Errorf("A's refused settle told the sockets %v", got)
		}
		f.wantNoErrors(t)
	})
}

// TestShutdownGrace: when the pool stops, renders in flight get the grace
// period (20 s by default). One that lands within it is settled; one that
// does not is cancelled at exactly 20 s and handed back to the queue with
// its hold still pending, and Run returns then.
func TestShutdownGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		quick := f.submit(t, "5s")
		stuck := f.submit(t, "hold")
		eng := newFakeEngine()
		stop := f.pool(t, eng, worker.Options{Concurrency: 2})
		f.await(t, stuck.ID, job.Running)
		if len(eng.runs) != 2 {
			t.Fatalf("%d renders started; want 2", len(eng.runs))
		}
		start := time.Now()
		stop()
		if waited := time.Since(start); waited != 20*time.Second {
			t.Errorf("Run returned %v after the stop; want the 20 s grace period", waited)
		}
		if got := f.job(t, quick.ID); got.Status != job.Done || f.hold(t, quick.ID).State != ledger.Posted {
			t.Errorf("the render that landed within the grace period: %s, hold %s; want done and posted",
				got.Status, f.hold(t, quick.ID).State)
		}
		if got := f.job(t, stuck.ID); got.Status != job.Queued || f.hold(t, stuck.ID).State != ledger.Pending {
			t.Errorf("the render past the grace period: %s, hold %s; want queued and pending",
				got.Status, f.hold(t, stuck.ID).State)
		}
		if b := f.balance(t); b.Balance != 56 || b.Held != 2 {
			t.Errorf("balance %d, held %d; want 56 and 2", b.Balance, b.Held)
		}
		f.wantNoErrors(t)
	})
}

// TestRelease: a job handed back on shutdown keeps its hold, does not count
// as a try, is told to the sockets as queued, and the next worker develops
// it: the hold is posted once.
func TestRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		j := f.submit(t, "hold")
		eng := newFakeEngine()
		stop := f.pool(t, eng, worker.Options{Concurrency: 1, Grace: time.Second})
		f.await(t, j.ID, job.Running)
		stop()
		if got := f.job(t, j.ID); got.Status != job.Queued || f.attempts(t, j.ID) != 0 || f.hold(t, j.ID).State != ledger.Pending {
			t.Fatalf("released: %s, %d attempts, hold %s; want queued, 0, pending", got.Status, f.attempts(t, j.ID), f.hold(t, j.ID).State)
		}
		if got := f.told(t, j.ID); !slices.Equal(got, []job.Status{job.Queued, job.Running, job.Queued}) {
			t.Errorf("the sockets were told %v; want queued, running, queued", got)
		}

		next := newFakeEngine()
		close(next.release)
		f.pool(t, next, worker.Options{Concurrency: 1})
		if got := f.await(t, j.ID, job.Done); got.Status != job.Done || f.attempts(t, j.ID) != 1 || f.hold(t, j.ID).State != ledger.Posted {
			t.Errorf("after the next worker: %s, %d attempts, hold %s; want done, 1, posted",
				got.Status, f.attempts(t, j.ID), f.hold(t, j.ID).State)
		}
		if b := f.balance(t); b.Balance != 58 || b.Held != 0 {
			t.Errorf("balance %d, held %d; want 58 and 0", b.Balance, b.Held)
		}
		f.wantNoErrors(t)
	})
}

// TestMaxAttempts: a job whose workers die while rendering (they claim it
// and never renew the lease) is requeued by the rescuer after each lapse,
// and after the third try it is failed with its hold voided: nothing is
// charged.
func TestMaxAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		// The pool's one worker is busy with another job the whole time,
		// so only its rescuer acts on the doomed one.
		busy := f.submit(t, "hold")
		doomed := f.submit(t, "")
		eng := newFakeEngine()
		f.pool(t, eng, worker.Options{Concurrency: 1, Lease: 30 * time.Second, Grace: time.Second})
		if got := f.await(t, busy.ID, job.Running); got.Status != job.Running {
			t.Fatalf("the busy job is %s", got.Status)
		}
		for try := 1; try <= 3; try++ {
			// A worker claims the job and dies: no heartbeat renews its lease.
			claimed, ok, err := f.db.Claim(t.Context(), "dead-worker", time.Now().Add(30*time.Second))
			if err != nil || !ok || claimed.ID != doomed.ID {
				t.Fatalf("try %d: claim = %v, %v, %v", try, claimed.ID, ok, err)
			}
			time.Sleep(40 * time.Second) // the lease lapses; the rescuer looks every 10 s
			want := job.Queued
			if try == 3 {
				want = job.Failed
			}
			if got := f.await(t, doomed.ID, want); got.Status != want || f.attempts(t, doomed.ID) != try {
				t.Fatalf("after try %d: %s with %d attempts; want %s", try, got.Status, f.attempts(t, doomed.ID), want)
			}
		}
		failed := f.job(t, doomed.ID)
		if failed.Error == nil || *failed.Error != "The develop stopped responding 3 times. Nothing was charged." {
			t.Errorf("error %v", failed.Error)
		}
		if h := f.hold(t, doomed.ID); h.State != ledger.Voided {
			t.Errorf("hold %s; want voided", h.State)
		}
		if b := f.balance(t); b.Balance != 58 || b.Held != 2 {
			t.Errorf("balance %d, held %d; want 58 and 2 (only the busy job's hold)", b.Balance, b.Held)
		}
		if got := f.told(t, doomed.ID); !slices.Equal(got, []job.Status{job.Queued, job.Running, job.Queued, job.Running, job.Queued, job.Running, job.Failed}) {
			// The submit, each dead worker's claim and each rescue.
			t.Errorf("the sockets were told %v", got)
		}
		if len(eng.runs) != 1 {
			t.Errorf("the engine ran %d times; want only the busy job", len(eng.runs))
		}
		f.wantNoErrors(t)
	})
}

// TestIdle: once started, every render loop looks at the queue and, finding
// it empty, goes idle: a job queued then waits for the next look (an hour
// here) unless the pool is woken, and a woken loop develops it and goes
// idle again. Idle is what tests of the wake paths wait on.
func TestIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		eng := newFakeEngine()
		close(eng.release)
		p := worker.New(f.db, f.blobs, eng, f.announce, f.log, worker.Options{Concurrency: 2, Poll: time.Hour})
		ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
		done := make(chan struct{})
		go func() { _ = p.Run(ctx); close(done) }()
		f.settled(t)
		if got := p.Idle(); got != 2 {
			t.Fatalf("after the first looks %d loops are idle; want 2", got)
		}
		j := f.submit(t, "")
		f.settled(t)
		if got := f.job(t, j.ID); got.Status != job.Queued || p.Idle() != 2 {
			t.Fatalf("unwoken: the job is %s and %d loops idle; want queued and 2", got.Status, p.Idle())
		}
		p.Wake()
		if got := f.await(t, j.ID, job.Done); got.Status != job.Done {
			t.Fatalf("woken: the job is %s; want done", got.Status)
		}
		f.settled(t)
		if got := p.Idle(); got != 2 {
			t.Errorf("after the develop %d loops are idle; want 2", got)
		}
		cancel()
		<-done
		if got := p.Idle(); got != 0 {
			t.Errorf("after Run returned %d loops count as idle; want 0", got)
		}
		f.wantNoErrors(t)
	})
}

// testLog writes the pool's log to the test's and counts its errors: a
// case the worker expects (a lost lease, a shutdown) is not an error.
type testLog struct {
	t      *testing.T
	mu     sync.Mutex
	errors int
}

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	l.mu.Lock()
	defer l.mu.Unlock()
	if strings.Contains(string(p), "level=ERROR") {
		l.errors++
	}
	return len(p), nil
}

// wantNoErrors fails the test when the pool logged an error.
func (f *fixture) wantNoErrors(t *testing.T) {
	t.Helper()
	f.logged.mu.Lock()
	defer f.logged.mu.Unlock()
	if f.logged.errors > 0 {
		t.Errorf("the pool logged %d errors", f.logged.errors)
	}
}

// TestResultOverTheImageLimit: a frame over 12 MB (SPEC §8) is not
// stored; its job fails saying so, and its hold is voided, so nothing is
// charged. A video result is not an image and lands whatever its size.
func TestResultOverTheImageLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		big, video := f.submit(t, "over-limit"), f.submitTool(t, f.house, f.user, "lookbook-video", "over-limit-video")
		f.pool(t, newFakeEngine(), worker.Options{Concurrency: 1})
		failed := f.await(t, big.ID, job.Failed)
		if failed.Status != job.Failed || failed.ErrorCode == nil || *failed.ErrorCode != "IMAGE_TOO_LARGE" ||
			failed.ResultAssetID != "" || f.hold(t, big.ID).State != ledger.Voided {
			t.Errorf("job over the limit: %s %v, result %q, hold %s; want failed with IMAGE_TOO_LARGE, no result, hold voided",
				failed.Status, failed.ErrorCode, failed.ResultAssetID, f.hold(t, big.ID).State)
		}
		if landed := f.await(t, video.ID, job.Done); landed.Status != job.Done || f.hold(t, video.ID).State != ledger.Posted {
			t.Errorf("video: %s; want done and posted", landed.Status)
		}
		if got := f.frames(t); len(got) != 1 {
			t.Errorf("stored %v; want the video's bytes only", got)
		}
		if b := f.balance(t); b.Balance != 58 || b.Held != 0 {
			t.Errorf("balance %+v; want 58 (the video settled, the oversized frame charged nothing)", b)
		}
	})
}

// tellingEngine tells the record what it sends, as a provider engine does,
// then lands (params.wait ""), fails after sending ("fail") or fails
// before sending anything ("early").
type tellingEngine struct{}

func (tellingEngine) Name() string         { return "telling" }
func (tellingEngine) Tools() []string      { return []string{"upscale"} }
func (tellingEngine) Can(tool string) bool { return tool == "upscale" }

func (tellingEngine) Run(_ context.Context, r engine.Request) (engine.Result, error) {
	if r.Params["wait"] == "early" {
		return engine.Result{}, engine.InputError(r.Tool, "refused before sending", nil)
	}
	r.Tell(engine.Sent{Prompt: "Upscale. " + r.Prompt, Refs: []engine.SentRef{{Role: "image", AssetID: "in-1"}, {Role: "mark", Text: "gold foil", AssetID: "mark-1"}}})
	if r.Params["wait"] == "fail" {
		return engine.Result{}, engine.ProviderError(r.Tool, "the provider refused", nil)
	}
	return engine.Result{Data: frameJPEG, Mime: "image/jpeg", Width: 1024, Height: 768}, nil
}

// TestRecordsWhatWasSent: the job keeps what its engine sent, whether the
// frame then lands or fails; a run that failed before sending keeps the
// direction as composed.
func TestRecordsWhatWasSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		landed, failed, early := f.submit(t, ""), f.submit(t, "fail"), f.submit(t, "early")
		brand := job.SourceFunc(func(context.Context, job.Job) ([]job.Part, error) {
			return []job.Part{{Rank: job.RankBrand, Text: "House style: quiet."}}, nil
		})
		f.pool(t, tellingEngine{}, worker.Options{Concurrency: 1, Director: job.Sources{brand}})
		f.await(t, landed.ID, job.Done)
		f.await(t, failed.ID, job.Failed)
		f.await(t, early.ID, job.Failed)
		for _, c := range []struct {
			id, prompt, refs string
		}{
			{landed.ID, "Upscale. House style: quiet.", "image:in-1|mark:mark-1"},
			{failed.ID, "Upscale. House style: quiet.", "image:in-1|mark:mark-1"},
			{early.ID, "House style: quiet.", ""},
		} {
			d, ok, err := f.db.JobDirection(t.Context(), f.house, c.id)
			var refs []string
			for _, r := range d.Refs {
				refs = append(refs, r.Role+":"+r.AssetID)
			}
			if err != nil || !ok || d.Prompt != c.prompt || strings.Join(refs, "|") != c.refs {
				t.Errorf("job %s recorded %q %v (%v %v); want %q %s", c.id, d.Prompt, refs, ok, err, c.prompt, c.refs)
			}
		}
	})
}

// frameJPEG is the fake engines' frame: a real (small) JPEG, as the
// worker checks a result is a picture before it settles.
var frameJPEG = func() []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 32, 24)), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

// meterLog records what a pool's Meter hears.
type meterLog struct {
	mu   sync.Mutex
	seen []string
}

func (m *meterLog) Rendered(engine, tool string, took time.Duration, failure string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, fmt.Sprintf("%s %s %v %q", engine, tool, took, failure))
}

// TestMeterHearsEachRender: the Meter is told each render's engine, tool,
// time and failure code ("" for a frame that settled).
func TestMeterHearsEachRender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		slow := f.submit(t, "500ms")
		bad := f.submit(t, "not a duration")
		m := &meterLog{}
		f.pool(t, newFakeEngine(), worker.Options{Concurrency: 1, Meter: m})
		f.await(t, slow.ID, job.Done)
		failed := f.await(t, bad.ID, job.Failed)
		synctest.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		code := "UNCLASSIFIED" // an input fault names no code
		if failed.ErrorCode != nil {
			code = *failed.ErrorCode
		}
		want := []string{`fake upscale 500ms ""`, fmt.Sprintf("fake upscale 0s %q", code)}
		if !slices.Equal(m.seen, want) {
			t.Errorf("meter heard %q; want %q", m.seen, want)
		}
	})
}
