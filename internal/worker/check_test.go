package worker_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"studio/internal/engine"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
	"studio/internal/ts"
	"studio/internal/worker"
)

// answering is a provider-like engine (named fal, so the registry's
// options read by fal apply) that answers each develop with the picture
// its params.answer names: "square" a 64x64 PNG, "portrait" 64x80.
type answering struct{}

func (answering) Name() string         { return tool.Fal }
func (answering) Tools() []string      { return []string{"lookbook-video", "reframe"} }
func (answering) Can(name string) bool { return name == "reframe" || name == "lookbook-video" }

func (answering) Run(_ context.Context, r engine.Request) (engine.Result, error) {
	w, h := 64, 64
	if r.Params["answer"] == "portrait" {
		h = 80
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		return engine.Result{}, err
	}
	// A provider that labels its answer a video does not make it one.
	mime := "image/png"
	if r.Tool == "lookbook-video" {
		mime = "video/mp4"
	}
	return engine.Result{Data: b.Bytes(), Mime: mime, Width: w, Height: h}, nil
}

// TestResultsAreChecked: a result that is not what its tool makes fails
// the develop with PROVIDER_BAD_RESULT saying what it is, its hold voided
// and nothing stored: a square answer to a 4:5 reframe, a PNG for
// lookbook-video. A 4:5 answer to the 4:5 reframe lands and is charged.
func TestResultsAreChecked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		queue := func(name, answer string, params map[string]string, cost int64) job.Job {
			params["answer"] = answer
			j := job.Job{ID: uuid.Must(uuid.NewV7()).String(), Tool: name, Status: job.Queued, HouseID: f.house, UserID: f.user,
				Tier: ledger.Tier1K, Params: params, Inputs: []job.Input{}, Fingerprint: uuid.NewString(), Cost: cost, CreatedAt: ts.Of(time.Now())}
			stored, _, err := f.db.SubmitJob(t.Context(), j)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
			return stored
		}
		square := queue("reframe", "square", map[string]string{"aspect": "4:5"}, 3)
		video := queue("lookbook-video", "square", map[string]string{}, 40)
		right := queue("reframe", "portrait", map[string]string{"aspect": "4:5"}, 3)
		f.pool(t, answering{}, worker.Options{Concurrency: 1})
		f.await(t, right.ID, job.Done)
		for _, c := range []struct {
			id, why string
		}{
			{square.ID, "The fal engine's result is not what reframe makes: a 64x64 picture (square), not 4:5. Nothing was charged."},
			{video.ID, "The fal engine's result is not what lookbook-video makes: a picture (image/png), not a video. Nothing was charged."},
		} {
			j := f.job(t, c.id)
			if j.Status != job.Failed || j.ErrorCode == nil || *j.ErrorCode != engine.CodeBadResult || j.Error == nil || *j.Error != c.why {
				t.Errorf("job %s: %s %v %v; want failed %s %q", c.id, j.Status, j.ErrorCode, j.Error, engine.CodeBadResult, c.why)
			}
			if h := f.hold(t, c.id); h.State != ledger.Voided {
				t.Errorf("job %s: hold %s; want voided", c.id, h.State)
			}
		}
		if h := f.hold(t, right.ID); h.State != ledger.Posted {
			t.Errorf("the 4:5 answer's hold is %s; want posted", h.State)
		}
		if got := f.frames(t); len(got) != 1 {
			t.Errorf("the blob store holds %d frames; want the 4:5 one only", len(got))
		}
		if b := f.balance(t); b.Balance != 60-3 || b.Held != 0 {
			t.Errorf("balance %d held %d; want 57 and 0: only the right answer charged", b.Balance, b.Held)
		}
		f.wantNoErrors(t)
	})
}
