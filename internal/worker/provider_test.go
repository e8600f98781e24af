package worker_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fal/faltest"
	"studio/internal/engine/fashn"
	"studio/internal/engine/fashn/fashntest"
	"studio/internal/engine/hosted"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
	"studio/internal/worker"
)

// routed sends generate-character to a provider engine and every other
// tool to the fake engine, so one worker serves both.
type routed struct {
	provider engine.Engine
	fake     *fakeEngine
}

func (routed) Name() string         { return "routed" }
func (routed) Tools() []string      { return []string{"generate-character", "upscale"} }
func (routed) Can(tool string) bool { return tool == "generate-character" || tool == "upscale" }

func (e routed) Run(ctx context.Context, r engine.Request) (engine.Result, error) {
	if r.Tool == "generate-character" {
		return e.provider.Run(ctx, r)
	}
	return e.fake.Run(ctx, r)
}

// character queues a generate-character of prompt in house (4 tokens).
func (f *fixture) character(t *testing.T, house, user, prompt string) job.Job {
	t.Helper()
	j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "generate-character", Status: job.Queued, HouseID: house, UserID: user,
		Tier: ledger.Tier1K, Params: map[string]string{"prompt": prompt}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
		Cost: 4, CreatedAt: ts.Of(time.Now())}
	stored, _, err := f.db.SubmitJob(t.Context(), j)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond) // the queue is ordered by creation
	return stored
}

// within polls (real time, a real provider's connections cannot run in a
// bubble) until cond holds, failing the test after a generous bound.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within 30 s", what)
}

// TestProviderDeadline: with one worker, a fal request that stays
// IN_PROGRESS for ever and one whose status connection never answers each
// fail with PROVIDER_TIMEOUT at their (short) deadline, their holds
// voided, and fal receives the cancel of each; the worker, free, then
// claims and develops another house's job.
func TestProviderDeadline(t *testing.T) {
	f := newFixture(t)
	other, otherUser := f.newHouse(t, "Ines")
	srv := faltest.New(t, "k-1")
	srv.Answer(func(_ string, input map[string]any) faltest.Answer {
		return faltest.Answer{Stuck: input["prompt"] == "stuck", Hang: input["prompt"] == "hang"}
	})
	provider, err := fal.New("k-1", srv.URL, hosted.WithPolling(5*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	stuck := f.character(t, f.house, f.user, "stuck")
	hung := f.character(t, f.house, f.user, "hang")
	theirs := f.submitIn(t, other, otherUser, "")
	const limit = 300 * time.Millisecond
	f.pool(t, routed{provider, newFakeEngine()}, worker.Options{Concurrency: 1, Poll: 10 * time.Millisecond,
		DeadlineOf: func(tool string) time.Duration {
			if tool == "generate-character" {
				return limit
			}
			return 0
		}})

	within(t, "the other house's develop done", func() bool { return f.job(t, theirs.ID).Status == job.Done })
	f.wantTimedOut(t, stuck.ID, limit)
	f.wantTimedOut(t, hung.ID, limit)
	for _, j := range []job.Job{stuck, hung} {
		got := f.job(t, j.ID)
		if took := got.FinishedAt.Sub(got.StartedAt.Time); took < limit {
			t.Errorf("job %s failed %v after its claim; want at least its deadline %v", j.ID, took, limit)
		}
	}
	if h := f.hold(t, theirs.ID); h.State != ledger.Posted {
		t.Errorf("the other house's hold is %s; want posted", h.State)
	}
	subs := srv.Submits()
	if len(subs) != 2 {
		t.Fatalf("fal received %d submissions; want the stuck and the hung", len(subs))
	}
	within(t, "fal told to cancel both", func() bool { return len(srv.Cancelled()) == 2 })
	if got := srv.Cancelled(); !slices.Contains(got, subs[0].ID) || !slices.Contains(got, subs[1].ID) {
		t.Errorf("fal was told to cancel %v; want %s and %s", got, subs[0].ID, subs[1].ID)
	}
	if b := f.balance(t); b.Balance != 60 || b.Held != 0 {
		t.Errorf("balance %d, held %d; want 60 and 0: nothing charged", b.Balance, b.Held)
	}
	f.wantNoErrors(t)
}

// TestFashnDevelops: with one worker and FASHN serving generate-character
// through its stand-in, a prediction that stays processing and one whose
// status connection never answers fail with PROVIDER_TIMEOUT at their
// (short) deadline, their holds voided (FASHN has no cancel to send); a
// prediction FASHN's moderation refuses fails PROVIDER_REFUSED in
// FASHN's words, its hold voided; another house's develop is done
// meanwhile. Then, with the default deadline (a finished frame takes real
// time under -race), a prediction that completes is done and charged once.
func TestFashnDevelops(t *testing.T) {
	f := newFixture(t)
	other, otherUser := f.newHouse(t, "Ines")
	srv := fashntest.New(t, "k-1")
	srv.Answer(func(_ string, inputs map[string]any) fashntest.Answer {
		p, _ := inputs["prompt"].(string)
		return fashntest.Answer{Stuck: p == "stuck", Hang: p == "hang", Fail: map[string]string{"refused": "ContentModerationError"}[p]}
	})
	provider, err := fashn.New("k-1", srv.URL, hosted.WithPolling(5*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	stuck := f.character(t, f.house, f.user, "stuck")
	hung := f.character(t, f.house, f.user, "hang")
	refused := f.character(t, f.house, f.user, "refused")
	theirs := f.submitIn(t, other, otherUser, "")
	const limit = 300 * time.Millisecond
	stop := f.pool(t, routed{provider, newFakeEngine()}, worker.Options{Concurrency: 1, Poll: 10 * time.Millisecond,
		DeadlineOf: func(tool string) time.Duration {
			if tool == "generate-character" {
				return limit
			}
			return 0
		}})

	within(t, "the other house's develop done", func() bool { return f.job(t, theirs.ID).Status == job.Done })
	within(t, "the refused develop failed", func() bool { return f.job(t, refused.ID).Status == job.Failed })
	stop()
	made := f.character(t, f.house, f.user, "A tall model in linen.")
	f.pool(t, routed{provider, newFakeEngine()}, worker.Options{Concurrency: 1, Poll: 10 * time.Millisecond})
	within(t, "the character made", func() bool { return f.job(t, made.ID).Status == job.Done })
	f.wantTimedOut(t, stuck.ID, limit)
	f.wantTimedOut(t, hung.ID, limit)
	j := f.job(t, refused.ID)
	if want := "FASHN's safety check refused this picture, so no frame was made. Nothing was charged."; j.Status != job.Failed ||
		j.ErrorCode == nil || *j.ErrorCode != engine.CodeRefused || j.Error == nil || *j.Error != want {
		t.Errorf("the refused job: %s %v %v; want failed %s %q", j.Status, j.ErrorCode, j.Error, engine.CodeRefused, want)
	}
	for id, want := range map[string]ledger.HoldState{refused.ID: ledger.Voided, made.ID: ledger.Posted} {
		if h := f.hold(t, id); h.State != want {
			t.Errorf("job %s: hold %s; want %s", id, h.State, want)
		}
	}
	if runs := srv.Runs(); len(runs) != 4 || runs[3].Model != "model-create" || runs[3].Inputs["prompt"] != "A tall model in linen." {
		t.Errorf("FASHN ran %+v; want four model-create predictions, the last with its prompt", runs)
	}
	if b := f.balance(t); b.Balance != 60-4 || b.Held != 0 {
		t.Errorf("balance %d, held %d; want 56 and 0: the made character charged once, nothing else", b.Balance, b.Held)
	}
	f.wantNoErrors(t)
}
