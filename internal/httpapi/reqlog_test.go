package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"studio/internal/asynclog"
)

// TestRequestLineAsSlog: the request line encoded by hand is byte for byte
// the line slog's JSON handler writes for the same record, whatever the
// strings hold.
func TestRequestLineAsSlog(t *testing.T) {
	at := time.Date(2026, 11, 27, 21, 41, 29, 123456789, time.UTC)
	tests := []line{
		{id: "0123456789abcdef0123456789abcdef", method: "GET", path: "/health", status: 200, bytes: 51, duration: 123456},
		{id: `a"b\c`, method: "POST", path: "/posts/<x>&y", house: "h1", status: 404, bytes: 0, duration: time.Second},
		{id: "x", method: "GET", path: "/caf\u00e9/\u2028\u2029/\t\n\r\x01\x7f", status: 499, bytes: -1},
		{id: "x", method: "G\xffT", path: "/\xc3(/\xe2\x82", status: 500},
	}
	for _, l := range tests {
		var want bytes.Buffer
		r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("request_id", l.id), slog.String("method", l.method), slog.String("path", l.path),
			slog.String("house", l.house), slog.Int("status", l.status), slog.Int64("bytes", l.bytes),
			slog.Duration("duration", l.duration))
		if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got := appendLine(nil, at, l); string(got) != want.String() {
			t.Errorf("line:\n got %s\nwant %s", got, want.String())
		}
	}
}

// TestRequestLineFastPath: on the service's handler the line is written
// straight to its output, one whole line per request, and not at all
// when the level leaves out Info.
func TestRequestLineFastPath(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = encode(w, 200, Health{Status: "ok"}) })
	var out bytes.Buffer
	h := observe(slog.New(asynclog.NewHandler(&out, nil)), ok)
	for range 3 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/health", nil))
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines:\n%s\nwant 3", out.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, `"msg":"request"`) || !strings.Contains(l, `"path":"/health"`) ||
			!strings.Contains(l, `"status":200`) || !strings.Contains(l, `"bytes":40`) {
			t.Errorf("line %s", l)
		}
	}
	out.Reset()
	h = observe(slog.New(asynclog.NewHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})), ok)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/health", nil))
	if out.Len() != 0 {
		t.Errorf("at Warn: %s", out.String())
	}
}

// TestRequestLineAllocates: the line costs no allocation of its own.
func TestRequestLineAllocates(t *testing.T) {
	var out bytes.Buffer
	rl := newRequestLog(slog.New(asynclog.NewHandler(&out, nil)))
	l := line{id: "0123456789abcdef0123456789abcdef", method: "GET", path: "/health", status: 200, bytes: 51, at: time.Now(), duration: 123456}
	rl.write(context.Background(), l) // the pool's first buffer
	if n := testing.AllocsPerRun(100, func() { out.Reset(); rl.write(context.Background(), l) }); n > 0 {
		t.Errorf("%v allocations per line", n)
	}
}

// TestRequestIDsDiffer: request ids are 32 hex digits, none repeated.
func TestRequestIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := newRequestID()
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}
