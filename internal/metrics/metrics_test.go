package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestSeriesLintAndMove: every series the hooks and the database feed
// passes the client library's linter, moves when fed, and carries only
// the labels it names (a route pattern, never a path).
func TestSeriesLintAndMove(t *testing.T) {
	now := time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC)
	snap := Snapshot{
		Jobs: []JobCount{
			{Tool: "upscale", State: "queued", Count: 3, Oldest: now.Add(-90 * time.Second)},
			{Tool: "packshot", State: "queued", Count: 1, Oldest: now.Add(-30 * time.Second)},
			{Tool: "upscale", State: "running", Count: 2, Oldest: now.Add(-200 * time.Second)},
		},
		HoldsPending: 6, OldestHold: now.Add(-200 * time.Second), Outbox: 4,
	}
	var fail error
	m := New(Options{Version: "1.0.0", Now: func() time.Time { return now }, Sockets: func() int { return 7 },
		Snapshot: func(context.Context) (Snapshot, error) { return snap, fail }})
	m.Request("GET /api/toolkit/assets/{id}", "GET", 404, 3*time.Millisecond)
	m.Request("POST /api/toolkit/jobs/submit", "POST", 202, 40*time.Millisecond)
	m.Request("", "BREW", 0, time.Millisecond)
	m.Rendered("local", "upscale", 2*time.Second, "")
	m.Rendered("fal", "tryon", 9*time.Second, "PROVIDER_TIMEOUT")
	m.WebhookAttempt("delivered")
	m.WebhookAttempt("retry")
	m.EmailSent("sent")

	problems, err := testutil.GatherAndLint(m.Registry)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	want := `
# HELP studio_jobs Develops in a live state, by tool and state (queued, running), read from the database.
# TYPE studio_jobs gauge
studio_jobs{state="queued",tool="packshot"} 1
studio_jobs{state="queued",tool="upscale"} 3
studio_jobs{state="running",tool="upscale"} 2
# HELP studio_queue_depth Develops queued, every tool, read from the database.
# TYPE studio_queue_depth gauge
studio_queue_depth 4
# HELP studio_queue_oldest_age_seconds Age of the oldest queued develop (0 when none is queued).
# TYPE studio_queue_oldest_age_seconds gauge
studio_queue_oldest_age_seconds 90
# HELP studio_holds_pending Token holds pending, every house.
# TYPE studio_holds_pending gauge
studio_holds_pending 6
# HELP studio_holds_oldest_age_seconds Age of the oldest pending hold (0 when none is).
# TYPE studio_holds_oldest_age_seconds gauge
studio_holds_oldest_age_seconds 200
# HELP studio_webhook_outbox_depth Webhook deliveries pending (waiting or retrying).
# TYPE studio_webhook_outbox_depth gauge
studio_webhook_outbox_depth 4
# HELP studio_sockets Event streams (job sockets) open on this instance.
# TYPE studio_sockets gauge
studio_sockets 7
# HELP studio_http_requests_total HTTP requests answered, by route pattern, method and status class.
# TYPE studio_http_requests_total counter
studio_http_requests_total{method="GET",route="/api/toolkit/assets/{id}",status="4xx"} 1
studio_http_requests_total{method="POST",route="/api/toolkit/jobs/submit",status="2xx"} 1
studio_http_requests_total{method="other",route="unmatched",status="2xx"} 1
# HELP studio_jobs_ended_total Develops this process's workers ended, by tool and state (done or failed).
# TYPE studio_jobs_ended_total counter
studio_jobs_ended_total{state="done",tool="upscale"} 1
studio_jobs_ended_total{state="failed",tool="tryon"} 1
# HELP studio_provider_errors_total Renders that failed, by engine and failure code.
# TYPE studio_provider_errors_total counter
studio_provider_errors_total{kind="PROVIDER_TIMEOUT",provider="fal"} 1
# HELP studio_webhook_deliveries_total Webhook delivery attempts, by outcome (delivered, retry, failed).
# TYPE studio_webhook_deliveries_total counter
studio_webhook_deliveries_total{outcome="delivered"} 1
studio_webhook_deliveries_total{outcome="failed"} 0
studio_webhook_deliveries_total{outcome="retry"} 1
# HELP studio_email_sends_total Letters handed to the mail transport, by outcome (sent, logged, failed).
# TYPE studio_email_sends_total counter
studio_email_sends_total{outcome="failed"} 0
studio_email_sends_total{outcome="logged"} 0
studio_email_sends_total{outcome="sent"} 1
# HELP studio_build_info The running build; always 1.
# TYPE studio_build_info gauge
studio_build_info{version="1.0.0"} 1
`
	names := []string{"studio_jobs", "studio_queue_depth", "studio_queue_oldest_age_seconds", "studio_holds_pending",
		"studio_holds_oldest_age_seconds", "studio_webhook_outbox_depth", "studio_sockets", "studio_http_requests_total",
		"studio_jobs_ended_total", "studio_provider_errors_total", "studio_webhook_deliveries_total", "studio_email_sends_total", "studio_build_info"}
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.renders, "studio_render_duration_seconds"); n != 2 {
		t.Errorf("render histograms: %d; want 2 (local upscale, fal tryon)", n)
	}

	// A database that does not answer: the scrape still answers, saying so.
	fail = errors.New("connection refused")
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(`
# HELP studio_database_scrape_ok 1 when this scrape read the database's gauges, else 0.
# TYPE studio_database_scrape_ok gauge
studio_database_scrape_ok 0
`), "studio_database_scrape_ok", "studio_queue_depth"); err != nil {
		t.Error(err)
	}
}

// TestHandlerNeedsTheToken: only the bearer of the token is answered.
func TestHandlerNeedsTheToken(t *testing.T) {
	h := New(Options{Version: "1.0.0"}).Handler("s3cret")
	for _, tt := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer wrong", 401}, {"s3cret", 401}, {"Bearer s3cret", 200}} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("Authorization %q: %d; want %d", tt.auth, rec.Code, tt.want)
		}
		if tt.want == http.StatusOK && !strings.Contains(rec.Body.String(), `studio_build_info{version="1.0.0"} 1`) {
			t.Errorf("scrape without the build: %s", rec.Body)
		}
	}
}
