package worker_test

import (
	"strings"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/fashn"
	"studio/internal/engine/fashn/fashntest"
	"studio/internal/engine/hosted"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/worker"
)

// TestFashnJobsRetryAndFail is issue 27's "Done means" at the job's level
// with FASHN's stand-in: a submit answered 429 RateLimitExceeded once is
// sent again and its develop is done and charged once; a prediction
// failing with each error name FASHN documents (and its time_out and
// canceled end states) fails its job with the code and a plain sentence
// ending "Nothing was charged.", its hold voided. (The engine's words for
// each name: package fashn's TestFailures.)
func TestFashnJobsRetryAndFail(t *testing.T) {
	f := newFixture(t)
	srv := fashntest.New(t, "k-1")
	srv.Refuse(fashntest.Refusal{Status: 429, Error: "RateLimitExceeded"})
	failing := map[string]fashntest.Answer{
		"ContentModerationError": {Fail: "ContentModerationError"}, "ImageLoadError": {Fail: "ImageLoadError"},
		"PoseError": {Fail: "PoseError"}, "InputValidationError": {Fail: "InputValidationError"},
		"PipelineError": {Fail: "PipelineError"}, "ThirdPartyError": {Fail: "ThirdPartyError"},
		"3rdPartyProviderError": {Fail: "3rdPartyProviderError"}, "InternalServerError": {Fail: "InternalServerError"},
		"time_out": {Status: "time_out"}, "canceled": {Status: "canceled"},
	}
	srv.Answer(func(_ string, inputs map[string]any) fashntest.Answer {
		p, _ := inputs["prompt"].(string)
		if a, ok := failing[p]; ok {
			return a
		}
		return fashntest.Answer{Ready: true}
	})
	provider, err := fashn.New("k-1", srv.URL, hosted.WithPolling(time.Millisecond, 5*time.Millisecond),
		hosted.WithBackoff(engine.Backoff{Tries: 4, First: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	made := f.character(t, f.house, f.user, "A tall model in linen.")
	failed := map[string]job.Job{}
	for name := range failing {
		failed[name] = f.character(t, f.house, f.user, name)
	}
	f.pool(t, routed{provider, newFakeEngine()}, worker.Options{Concurrency: 1, Poll: 10 * time.Millisecond})

	within(t, "every develop ended", func() bool {
		if f.job(t, made.ID).Status != job.Done {
			return false
		}
		for _, j := range failed {
			if f.job(t, j.ID).Status != job.Failed {
				return false
			}
		}
		return true
	})
	for name, j := range failed {
		got := f.job(t, j.ID)
		code := engine.CodeFailed
		if name == "ContentModerationError" {
			code = engine.CodeRefused
		}
		if got.ErrorCode == nil || *got.ErrorCode != code || got.Error == nil || !strings.HasPrefix(*got.Error, "FASHN") ||
			!strings.HasSuffix(*got.Error, "Nothing was charged.") {
			t.Errorf("%s: job %v %v; want failed %s in FASHN's plain words", name, got.ErrorCode, got.Error, code)
		}
		if h := f.hold(t, j.ID); h.State != ledger.Voided {
			t.Errorf("%s: hold %s; want voided", name, h.State)
		}
	}
	if h := f.hold(t, made.ID); h.State != ledger.Posted {
		t.Errorf("the made character's hold is %s; want posted", h.State)
	}
	if runs := len(srv.Runs()); srv.Tries() != runs+1 || runs != len(failing)+1 {
		t.Errorf("%d submissions for %d predictions; want one more (the 429 sent again) for %d", srv.Tries(), runs, len(failing)+1)
	}
	if b := f.balance(t); b.Balance != 60-4 || b.Held != 0 {
		t.Errorf("balance %d, held %d; want 56 and 0: the made character charged once, nothing else", b.Balance, b.Held)
	}
	f.wantNoErrors(t)
}
