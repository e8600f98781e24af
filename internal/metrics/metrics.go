// Package metrics is the service's Prometheus face (DECISIONS §11): one
// registry per process, built in the composition root (no global default
// registry), the series the packages report through small hooks, the
// gauges read from the database on each scrape, and GET /metrics behind
// METRICS_TOKEN. Labels name routes, tools, engines, states and outcomes,
// never an id.
package metrics

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Snapshot is what the database says on a scrape: the live develops by
// tool and state, the pending holds and the webhook outbox.
type Snapshot struct {
	Jobs         []JobCount
	HoldsPending int64
	OldestHold   time.Time // zero when none is pending
	Outbox       int64     // webhook deliveries pending
}

// JobCount is how many develops of a tool are in a live state (queued or
// running) and when the oldest of them was submitted.
type JobCount struct {
	Tool, State string
	Count       int64
	Oldest      time.Time
}

// Options say where the scraped gauges come from.
type Options struct {
	Version string
	// Snapshot reads the database's gauges (sqlstore's MetricsSnapshot);
	// nil reports none. It runs on each scrape, within ScrapeWithin.
	Snapshot func(ctx context.Context) (Snapshot, error)
	// Pool is the database's connection pool: in use, idle, waits.
	Pool *sql.DB
	// Sockets counts the open job sockets (and other event streams).
	Sockets func() int
	Now     func() time.Time
	Log     *slog.Logger
}

// ScrapeWithin bounds the database's part of a scrape.
const ScrapeWithin = 2 * time.Second

// Metrics is one process's registry and the series its hooks feed.
type Metrics struct {
	Registry *prometheus.Registry

	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	renders        *prometheus.HistogramVec
	jobsEnded      *prometheus.CounterVec
	providerErrors *prometheus.CounterVec
	webhooks       *prometheus.CounterVec
	emails         *prometheus.CounterVec
}

// New builds the registry: the Go runtime's and the process's series, the
// build, the pool, the sockets, the database's gauges, and the counters and
// histograms the hooks below feed.
func New(o Options) *Metrics {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status class.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "studio_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern, method and status class.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "status"}),
		renders: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "studio_render_duration_seconds", Help: "Time an engine took to render a develop, by engine and tool.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"engine", "tool"}),
		jobsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_jobs_ended_total", Help: "Develops this process's workers ended, by tool and state (done or failed).",
		}, []string{"tool", "state"}),
		providerErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_provider_errors_total", Help: "Renders that failed, by engine and failure code.",
		}, []string{"provider", "kind"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_webhook_deliveries_total", Help: "Webhook delivery attempts, by outcome (delivered, retry, failed).",
		}, []string{"outcome"}),
		emails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_email_sends_total", Help: "Letters handed to the mail transport, by outcome (sent, logged, failed).",
		}, []string{"outcome"}),
	}
	reg.MustRegister(m.requests, m.latency, m.renders, m.jobsEnded, m.providerErrors, m.webhooks, m.emails,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "studio_build_info", Help: "The running build; always 1.",
		ConstLabels: prometheus.Labels{"version": o.Version}})
	build.Set(1)
	reg.MustRegister(build)
	if o.Pool != nil {
		reg.MustRegister(collectors.NewDBStatsCollector(o.Pool, "studio"))
	}
	if o.Sockets != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "studio_sockets", Help: "Event streams (job sockets) open on this instance."},
			func() float64 { return float64(o.Sockets()) }))
	}
	if o.Snapshot != nil {
		reg.MustRegister(&snapshotCollector{read: o.Snapshot, now: o.Now, log: o.Log})
	}
	// Every series of a vector shows from the first scrape, at zero, so a
	// rate has a start: the outcomes are few and known.
	for _, out := range []string{"delivered", "retry", "failed"} {
		m.webhooks.WithLabelValues(out)
	}
	for _, out := range []string{"sent", "logged", "failed"} {
		m.emails.WithLabelValues(out)
	}
	return m
}

// Request counts an answered request (httpapi.RequestMeter). pattern is the
// ServeMux pattern that matched ("GET /api/toolkit/jobs/{id}"), never the
// path, so no id reaches a label.
func (m *Metrics) Request(pattern, method string, status int, took time.Duration) {
	route := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		route = p
	}
	if route == "" {
		route = "unmatched"
	}
	labels := []string{route, knownMethod(method), statusClass(status)}
	m.requests.WithLabelValues(labels...).Inc()
	m.latency.WithLabelValues(labels...).Observe(took.Seconds())
}

// Rendered records a render's end (worker.Meter): its time by engine and
// tool, the develop's state, and, for a failure, its code by engine.
func (m *Metrics) Rendered(engine, tool string, took time.Duration, failure string) {
	m.renders.WithLabelValues(engine, tool).Observe(took.Seconds())
	if failure == "" {
		m.jobsEnded.WithLabelValues(tool, "done").Inc()
		return
	}
	m.jobsEnded.WithLabelValues(tool, "failed").Inc()
	m.providerErrors.WithLabelValues(engine, failure).Inc()
}

// WebhookAttempt counts a delivery attempt by outcome.
func (m *Metrics) WebhookAttempt(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// EmailSent counts a letter by outcome.
func (m *Metrics) EmailSent(outcome string) { m.emails.WithLabelValues(outcome).Inc() }

// Handler serves the registry in the Prometheus text format to a request
// bearing token. An empty token serves nothing: the caller mounts no route,
// and /metrics is the API's 404.
func (m *Metrics) Handler(token string) http.Handler {
	inner := promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry, MaxRequestsInFlight: 4})
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"UNAUTHORIZED","message":"Metrics need Authorization: Bearer <METRICS_TOKEN>."}` + "\n"))
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// knownMethod keeps the method label to the methods the API answers: any
// other a client sends is "other".
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// statusClass is "2xx" for 200-299 and so on; 0 (nothing written) is 2xx.
func statusClass(status int) string {
	if status == 0 {
		status = http.StatusOK
	}
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}
