package httpapi

import (
	"bytes"
	"encoding/json"
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
