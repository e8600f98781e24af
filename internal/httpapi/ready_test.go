package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"studio/internal/httpapi"
)

// TestReadyNamesThePart: /ready's 503 names the part a check found wanting
// and never the cause's words (an address, a driver's message).
func TestReadyNamesThePart(t *testing.T) {
	tests := []struct {
		name, part string
		err        error
	}{
		{"database", "database", &httpapi.NotReady{Part: "database", Err: errors.New("dial tcp 10.0.0.5:5432: connection refused")}},
		{"migrations", "migrations", &httpapi.NotReady{Part: "migrations", Err: errors.New("migrations not applied: 1, the first 00145")}},
		{"blobs", "blobs", &httpapi.NotReady{Part: "blobs", Err: errors.New("NoSuchBucket: studio-frames")}},
		{"unnamed", "database", errors.New("connection reset")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httpapi.NewServer(httpapi.Config{}, httpapi.Services{Ready: func(context.Context) error { return tt.err }}, slog.New(slog.DiscardHandler))
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("GET", "/ready", nil))
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if rec.Code != 503 || body["error"] != "SERVICE_NOT_READY" || body["part"] != tt.part {
				t.Errorf("ready: %d %s; want 503 SERVICE_NOT_READY part %s", rec.Code, rec.Body, tt.part)
			}
			cause := tt.err
			if u := errors.Unwrap(tt.err); u != nil {
				cause = u
			}
			if strings.Contains(rec.Body.String(), cause.Error()) {
				t.Errorf("ready's answer carries the cause: %s", rec.Body)
			}
		})
	}
}
