package httpapi_test

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
)

// TestMetricsScrape: with METRICS_TOKEN set, GET /metrics answers the
// bearer of the token in the Prometheus text format, and the series move
// as a develop is submitted and cancelled: requests by route pattern, the
// queue and the holds read from the database, the letters sent. No label carries an id. A wrong token is 401;
// an instance without METRICS_TOKEN answers /metrics 404.
func TestMetricsScrape(t *testing.T) {
	e := apptest.Engines(t)[0] // SQLite: the gauges' statements are the same on both engines
	a := apptest.New(t, e, func(c *app.Config) { c.MetricsToken = "scrape-me" })
	scraper := apptest.Cred{Key: "scrape-me"}
	owner := a.SignUp(t, "metrics")
	k := a.Key(t, owner, "member")

	for _, c := range []apptest.Cred{apptest.Anonymous, {Key: "scrape-you"}, k} {
		if res := a.Do(t, "GET", "/metrics", c, nil); res.Status != 401 || res.Code != "UNAUTHORIZED" {
			t.Errorf("metrics with %+v: %d %s; want 401 UNAUTHORIZED", c, res.Status, res.Body)
		}
	}
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", productJPEG(t, 64, 64), "quality", "1k"))
	if res.Status != 202 {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	jobID := res.Map(t)["jobId"].(string)
	const missing = "0190f1e2-0000-7000-8000-00000000dead"
	if res := a.Do(t, "GET", "/api/toolkit/assets/"+missing, k, nil); res.Status != 404 {
		t.Fatalf("a missing asset: %d", res.Status)
	}

	queued := scrape(t, a, scraper)
	for _, want := range []struct {
		series string
		min    float64
	}{
		{`studio_queue_depth`, 1},
		{`studio_jobs{state="queued",tool="upscale"}`, 1},
		{`studio_holds_pending`, 1},
		{`studio_database_scrape_ok`, 1},
		{`studio_http_requests_total{method="POST",route="/api/toolkit/jobs/submit",status="2xx"}`, 1},
		{`studio_http_requests_total{method="GET",route="/api/toolkit/assets/{id}",status="4xx"}`, 1},
		{`studio_http_request_duration_seconds_count{method="POST",route="/api/toolkit/jobs/submit",status="2xx"}`, 1},
		{`studio_email_sends_total{outcome="logged"}`, 1}, // the sign-up letter, console transport
		{`studio_webhook_deliveries_total{outcome="delivered"}`, 0},
		{`studio_build_info{version="` + app.Version + `"}`, 1},
		{`studio_sockets`, 0},
		{`go_sql_max_open_connections{db_name="studio"}`, 1},
	} {
		if got, ok := queued[want.series]; !ok || got < want.min {
			t.Errorf("%s = %v (present %v); want at least %v", want.series, got, ok, want.min)
		}
	}
	for series := range queued {
		for _, id := range []string{jobID, owner.HouseID, missing} {
			if id != "" && strings.Contains(series, id) {
				t.Errorf("a label carries an id: %s", series)
			}
		}
	}

	// Cancelled while queued: the queue and the holds read from the
	// database empty on the next scrape. (A render's series are the
	// worker's: TestMeterHearsEachRender there, and the metrics package's.)
	if res := a.Do(t, "POST", "/api/toolkit/jobs/"+jobID+"/cancel", k, nil); res.Status != 200 {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	after := scrape(t, a, scraper)
	for _, series := range []string{`studio_queue_depth`, `studio_holds_pending`, `studio_queue_oldest_age_seconds`} {
		if got, ok := after[series]; !ok || got != 0 {
			t.Errorf("after the cancel %s = %v (present %v); want 0", series, got, ok)
		}
	}
	if got := after[`studio_http_requests_total{method="GET",route="/metrics",status="2xx"}`]; got < 1 {
		t.Errorf("the scrapes themselves counted %v times; want at least the one before", got)
	}

	plain := apptest.New(t, e)
	if res := plain.Do(t, "GET", "/metrics", scraper, nil); res.Status != 404 {
		t.Errorf("metrics without METRICS_TOKEN: %d %s; want 404", res.Status, res.Body)
	}
}

// scrape reads /metrics and returns each sample by its series as written
// ("name{label=\"v\",...}").
func scrape(t *testing.T, a *apptest.App, c apptest.Cred) map[string]float64 {
	t.Helper()
	res := a.Do(t, "GET", "/metrics", c, nil)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(res.Body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}
