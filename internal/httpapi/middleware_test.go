package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"studio/internal/errs"
)

// TestPanicBecomes500: a panicking handler answers a 500 error body and the
// log names the request id; every request logs its status and duration.
func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := observe(log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/x", nil)
	req.Header.Set("X-Request-Id", "req-42")
	h.ServeHTTP(rec, req)
	var body map[string]string
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != 500 || body["error"] != "INTERNAL" || body["message"] == "" {
		t.Errorf("got %d %s; want a 500 INTERNAL body", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), `"panic":"boom"`) || !strings.Contains(logs.String(), `"request_id":"req-42"`) {
		t.Errorf("log lacks the panic or the request id: %s", logs.String())
	}
	if !strings.Contains(logs.String(), `"status":500`) || !strings.Contains(logs.String(), `"duration"`) {
		t.Errorf("request line lacks status or duration: %s", logs.String())
	}
}

func TestErrorBodyOrder(t *testing.T) {
	e := errs.With(errs.New(errs.KindPayment, "INSUFFICIENT_TOKENS", "Not enough tokens."), "spendable", 2, "need", 5)
	got := string(errorBody(e))
	want := `{"error":"INSUFFICIENT_TOKENS","message":"Not enough tokens.","need":5,"spendable":2}` + "\n"
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

// TestClientCancelIsNotAServerError: when the client goes away mid-request,
// whatever the cancelled work returns (a context error, a driver's own
// error, /ready's failed check) is logged at info as a client cancel with
// status 499, never as a 500 or 503 with an error line.
func TestClientCancelIsNotAServerError(t *testing.T) {
	blocked := func(ctx context.Context) error { <-ctx.Done(); return fmt.Errorf("ping: %w", ctx.Err()) }
	tests := []struct {
		name    string
		handler http.Handler
	}{
		{"ready", NewServer(Config{}, Services{Ready: blocked}, slog.New(slog.DiscardHandler))},
		{"wrapped context error", appHandler(func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return fmt.Errorf("list posts: %w", r.Context().Err())
		})},
		{"driver error", appHandler(func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return errors.New("interrupted (9)") // what SQLite says when a query is interrupted
		})},
		{"stream cut short", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK) // a pack archive had started
			<-r.Context().Done()
			panic(http.ErrAbortHandler)
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := observe(slog.New(slog.NewJSONHandler(&logs, nil)), tt.handler)
			if s, ok := tt.handler.(*Server); ok {
				h = observe(slog.New(slog.NewJSONHandler(&logs, nil)), s.mux)
			}
			ctx, cancel := context.WithCancel(context.Background())
			req := httptest.NewRequest("GET", "/ready", nil).WithContext(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() {
					if v := recover(); v != nil && v != http.ErrAbortHandler {
						panic(v)
					}
				}()
				h.ServeHTTP(httptest.NewRecorder(), req)
			}()
			cancel()
			<-done
			out := logs.String()
			if !strings.Contains(out, `"status":499`) || strings.Contains(out, `"level":"ERROR"`) ||
				strings.Contains(out, `"status":500`) || strings.Contains(out, `"status":503`) || strings.Contains(out, `"status":200`) {
				t.Errorf("log:\n%s\nwant status 499 and no error line", out)
			}
		})
	}
}
