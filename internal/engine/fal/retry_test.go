package fal_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/hosted"
	"studio/internal/ledger"
)

// upscale runs an upscale on q's engine.
func upscale(t *testing.T, q *fakeQueue, ctx context.Context) error {
	t.Helper()
	_, err := q.engine(t).Run(ctx, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}})
	return err
}

// submitOnly runs one call through the queue as the AI lanes do (Model:
// the output's bytes as sent, nothing resampled).
func submitOnly(t *testing.T, q *fakeQueue, ctx context.Context) error {
	t.Helper()
	_, err := q.engine(t).Model(ctx, "upscale", "fal-ai/esrgan", map[string]any{"image_url": "data:image/png;base64,AA=="})
	return err
}

// TestSubmitRetries: a submit answered 429 or 5xx (fal did not take it) is
// sent again after the wait Retry-After asks, else a doubling one, and
// lands once; one still busy after every try, or whose wait would pass the
// deadline, fails PROVIDER_BUSY saying so; a 4xx is never sent again.
func TestSubmitRetries(t *testing.T) {
	tests := []struct {
		name      string
		b         behaviour
		deadline  time.Duration // 0: none
		wantCode  string        // "" lands
		wantTries int
		wantWaits []time.Duration
		wantWhy   string
	}{
		{"one 429 then success", behaviour{submitStatus: 429, submitFails: 1, retryAfter: "7"}, 0, "", 2, []time.Duration{7 * time.Second}, ""},
		{"two 503 then success", behaviour{submitStatus: 503, submitFails: 2}, 0, "", 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"an HTTP-date Retry-After", behaviour{submitStatus: 429, submitFails: 1, retryAfter: time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}, 0, "", 2, nil, ""},
		{"busy through every try", behaviour{submitStatus: 502}, 0, engine.CodeBusy, 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
			"fal was busy: it answered 502 to each of 4 tries. Nothing was charged."},
		{"a wait past the deadline", behaviour{submitStatus: 429, retryAfter: "120"}, time.Minute, engine.CodeBusy, 1, nil,
			"fal was busy: it answered 429. Nothing was charged."},
		{"a 422 is not sent again", behaviour{submitStatus: 422}, 0, engine.CodeRejected, 1, nil,
			"fal refused the request as invalid (it answered 422). Nothing was charged."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			q.behaviour = func(string, map[string]any) behaviour { return tt.b }
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			err := submitOnly(t, q, ctx)
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.tries != tt.wantTries {
				t.Errorf("%d submits; want %d", q.tries, tt.wantTries)
			}
			if tt.name == "an HTTP-date Retry-After" {
				if len(q.waits) != 1 || q.waits[0] < 59*time.Minute || q.waits[0] > time.Hour {
					t.Errorf("waits %v; want about an hour", q.waits)
				}
			} else if !slices.Equal(q.waits, tt.wantWaits) {
				t.Errorf("waits %v; want %v", q.waits, tt.wantWaits)
			}
			if tt.wantCode == "" {
				if err != nil || len(q.submits) != 1 {
					t.Fatalf("err %v, %d accepted submits; want it landed once", err, len(q.submits))
				}
				return
			}
			e, ok := errors.AsType[*engine.Error](err)
			if !ok || e.Code != tt.wantCode || e.Reason != tt.wantWhy || !engine.IsProvider(err) {
				t.Fatalf("err %v; want %s %q", err, tt.wantCode, tt.wantWhy)
			}
		})
	}
}

// TestCancelAfterAcceptance: a request fal took and that then fails before
// fal finished it (status polls that keep failing, a status outside the
// protocol) is cancelled at fal; one fal completed with an error has
// nothing left to cancel.
func TestCancelAfterAcceptance(t *testing.T) {
	tests := []struct {
		name       string
		b          behaviour
		wantCancel bool
	}{
		{"status keeps failing", behaviour{statusErrs: 100}, true},
		{"a status outside the protocol", behaviour{statuses: []string{"IN_QUEUE", "FAILED"}}, true},
		{"completed with an error", behaviour{errorText: "CUDA out of memory"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			q.behaviour = func(string, map[string]any) behaviour { return tt.b }
			err := upscale(t, q, context.Background())
			if !engine.IsProvider(err) {
				t.Fatalf("err %v; want a provider fault", err)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			if got := len(q.cancels) == 1 && q.cancels[0] == q.submits[0].id; got != tt.wantCancel {
				t.Errorf("cancels %v; want a cancel: %v", q.cancels, tt.wantCancel)
			}
		})
	}
}

// TestSubmitLostInFlight: a submit fal took whose answer never arrives
// (the connection hangs until the deadline, or drops) leaves us without
// the request id, which fal returns only in that answer, and so with
// nothing to cancel: fal's cancel names a request id, and nothing else
// finds a request still queued or running. What fal allows is what is
// done: the submit carried the deadline left as X-Fal-Request-Timeout, so
// fal drops it if no runner started it by then, and it is never sent
// again (a second one could run, and bill, twice). The develop fails; the
// worker voids its hold.
func TestSubmitLostInFlight(t *testing.T) {
	tests := []struct {
		name     string
		b        behaviour
		deadline time.Duration
	}{
		{"the answer never comes", behaviour{takeAndHang: true}, 300 * time.Millisecond},
		{"the connection drops", behaviour{takeAndDrop: true}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			q.behaviour = func(string, map[string]any) behaviour { return tt.b }
			ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
			defer cancel()
			err := upscale(t, q, ctx)
			if err == nil || (tt.b.takeAndHang && !errors.Is(err, context.DeadlineExceeded)) || (tt.b.takeAndDrop && !engine.IsProvider(err)) {
				t.Fatalf("err %v; want the develop failed (at its deadline when the answer never comes)", err)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			if q.tries != 1 || len(q.submits) != 1 || len(q.cancels) != 0 {
				t.Errorf("%d submits, %d taken, cancels %v; want one submit, never sent again, nothing to cancel", q.tries, len(q.submits), q.cancels)
			}
			left, perr := strconv.ParseFloat(q.timeouts[0], 64)
			if perr != nil || left <= 0 || left > tt.deadline.Seconds() {
				t.Errorf("X-Fal-Request-Timeout %q; want the deadline left, at most %v", q.timeouts[0], tt.deadline)
			}
		})
	}
}

// TestFailureWords: fal's failures read as every provider's do, each with
// its code.
func TestFailureWords(t *testing.T) {
	tests := []struct {
		name     string
		key      string
		b        behaviour
		wantCode string
		wantWhy  string
	}{
		{"a refused key", "wrong", behaviour{}, engine.CodeKeyRefused, "fal refused our key (check FAL_KEY). Nothing was charged."},
		{"no credit", testKey, behaviour{submitStatus: 403, submitDetail: "User is locked. Reason: Exhausted balance. Top up your balance at fal.ai/dashboard/billing."},
			engine.CodeOutOfCredit, "fal says our account there is out of credit. Nothing was charged."},
		{"completed with an error", testKey, behaviour{errorText: "CUDA out of memory"}, engine.CodeFailed, "fal could not complete the request. Nothing was charged."},
		{"no file in the output", testKey, behaviour{output: func(*fakeQueue, string) any { return map[string]any{"images": []any{}} }},
			engine.CodeBadResult, "fal's result is not what upscale makes: its output has no image or video. Nothing was charged."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newFakeQueue(t)
			q.behaviour = func(string, map[string]any) behaviour { return tt.b }
			e, err := fal.New(tt.key, q.srv.URL, hosted.WithPolling(2*time.Millisecond, 10*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 100, 100))}})
			fe, ok := errors.AsType[*engine.Error](err)
			if !ok || fe.Code != tt.wantCode || fe.Reason != tt.wantWhy {
				t.Fatalf("err %v; want %s %q", err, tt.wantCode, tt.wantWhy)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		e, _ := fal.New(testKey, "http://127.0.0.1:1")
		_, err := e.Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", jpegOf(t, 10, 10))}})
		fe, ok := errors.AsType[*engine.Error](err)
		if !ok || fe.Code != engine.CodeUnreachable || fe.Reason != "fal could not be reached. Nothing was charged." {
			t.Fatalf("err %v", err)
		}
	})
}
