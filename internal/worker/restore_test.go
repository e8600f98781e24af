package worker_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fal/faltest"
	"studio/internal/engine/hosted"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
	"studio/internal/worker"
)

// TestRestorationPassOnTheJob: a character from words on fal answered
// short of its tier is flux/dev's answer through the restoration pass; the job is done,
// charged once, and what it says it sent ends with the pass (role
// restoration, fal's upscale model), so an operator sees the second
// request. A pass whose status fal loses fails its job: the hold voided,
// nothing charged, fal told to cancel the pass, and the record shows the
// pass it sent.
func TestRestorationPassOnTheJob(t *testing.T) {
	f := newFixture(t)
	srv := faltest.New(t, "k-1")
	// flux answers 512 px (its 1k canvas in life; fewer pixels here): the
	// 1k character's pass is x2, the 2k one's x4, and that one fal loses.
	srv.Answer(func(model string, input map[string]any) faltest.Answer {
		if model == "fal-ai/flux/dev" {
			return faltest.Answer{Width: 512, Height: 512}
		}
		return faltest.Answer{Lost: input["scale"] == 4.0}
	})
	provider, err := fal.New("k-1", srv.URL, hosted.WithPolling(time.Millisecond, 5*time.Millisecond), hosted.WithBackoff(engine.Backoff{Tries: 1}))
	if err != nil {
		t.Fatal(err)
	}
	character := func(prompt string, tier ledger.Tier) job.Job {
		j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: "generate-character", Status: job.Queued, HouseID: f.house, UserID: f.user,
			Tier: tier, Params: map[string]string{"prompt": prompt}, Inputs: []job.Input{}, Fingerprint: uuid.NewString(),
			Cost: 4, CreatedAt: ts.Of(time.Now())}
		stored, _, err := f.db.SubmitJob(t.Context(), j)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	made, lost := character("A tall model", ledger.Tier1K), character("A tall model", ledger.Tier2K)
	f.pool(t, routed{provider, newFakeEngine()}, worker.Options{Concurrency: 1, Poll: 5 * time.Millisecond})
	within(t, "both develops ended", func() bool {
		return f.job(t, made.ID).Status.Terminal() && f.job(t, lost.ID).Status.Terminal()
	})
	if j := f.job(t, made.ID); j.Status != job.Done {
		t.Fatalf("the restored character is %s (%v); want done", j.Status, j.Error)
	}
	if j := f.job(t, lost.ID); j.Status != job.Failed {
		t.Fatalf("the character whose pass fal lost is %s; want failed", j.Status)
	}
	for id, want := range map[string]ledger.HoldState{made.ID: ledger.Posted, lost.ID: ledger.Voided} {
		if h := f.hold(t, id); h.State != want {
			t.Errorf("job %s: hold %s; want %s", id, h.State, want)
		}
		d, ok, err := f.db.JobDirection(t.Context(), f.house, id)
		if err != nil || !ok || len(d.Refs) == 0 || d.Refs[len(d.Refs)-1].Role != "restoration" || d.Refs[len(d.Refs)-1].Label != "fal-ai/esrgan" {
			t.Errorf("job %s says it sent %+v (%v); want the restoration pass last", id, d, err)
		}
	}
	passes := srv.Of("fal-ai/esrgan")
	if len(passes) != 2 {
		t.Fatalf("fal received passes %+v; want one for each character", passes)
	}
	within(t, "fal told to cancel the lost pass", func() bool { return len(srv.Cancelled()) > 0 })
	lostPass := passes[slices.IndexFunc(passes, func(s faltest.Submit) bool { return s.Input["scale"] == 4.0 })]
	if got := srv.Cancelled(); !slices.Equal(got, []string{lostPass.ID}) {
		t.Errorf("fal was told to cancel %v; want the lost pass %s alone", got, lostPass.ID)
	}
	if b := f.balance(t); b.Balance != 60-4 || b.Held != 0 {
		t.Errorf("balance %d, held %d; want 56 and 0: the restored character charged once, nothing else", b.Balance, b.Held)
	}
}
