package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"studio/internal/account"
	"studio/internal/app"
	"studio/internal/apptest"
)

// TestRoles builds the roles a process runs, as cmd/studio composes them,
// on one SQLite store, in a synctest bubble: the clock is fake, so an idle
// worker's one-minute poll takes no real time and the order is exact.
//
//   - API and workers in one process (studio serve): a submit wakes the
//     workers at once; they poll only once a minute.
//   - The API alone (studio serve --worker=false): nothing claims the job
//     however long the process runs.
//   - The workers alone (studio worker), beside an API-only process on the
//     same store: they claim and develop what that process queued.
func TestRoles(t *testing.T) {
	cases := []struct {
		name       string
		worker     bool // the API's process runs the workers too
		separate   bool // a second process on the store runs only the workers
		poll, wait time.Duration
		want       string
	}{
		{name: "api and workers", worker: true, poll: time.Minute, wait: time.Second, want: "done"},
		{name: "api alone", poll: time.Second, wait: 10 * time.Minute, want: "queued"},
		{name: "workers alone beside it", separate: true, poll: time.Second, wait: 10 * time.Second, want: "done"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := apptest.SQLite(t).DataDir
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				cfg := config(t, dir, c.poll)
				core := newCore(t, cfg)
				api, err := app.NewAPI(core)
				if err != nil {
					t.Fatal(err)
				}
				var workers []*app.Worker
				if c.worker {
					workers = append(workers, app.NewWorker(core))
				}
				if c.separate {
					workers = append(workers, app.NewWorker(newCore(t, cfg)))
				}
				done := make(chan error, len(workers))
				for _, w := range workers {
					go func() { done <- w.Run(ctx) }()
				}
				synctest.Wait() // the workers looked for work once and wait for their poll or a wake

				h := api.Handler
				id := submit(t, h, cfg.PublicURL)
				status := func() (s string, attempts int) {
					if err := core.DB.QueryTest(ctx, `SELECT status, attempts FROM jobs WHERE id = '`+id+`'`, &s, &attempts); err != nil {
						t.Fatal(err)
					}
					return s, attempts
				}
				// The fake clock moves in a thousand steps (by the millisecond
				// where the job must be done within a second) while the
				// render's real work and SQLite's busy waits run.
				for end := time.Now().Add(c.wait); time.Now().Before(end); time.Sleep(c.wait / 1000) {
					synctest.Wait()
					if s, _ := status(); s == c.want && s != "queued" {
						break
					}
				}
				if s, attempts := status(); s != c.want || c.want == "queued" && attempts != 0 {
					t.Errorf("after %v the job is %s (%d attempts); want %s", c.wait, s, attempts, c.want)
				}
				cancel()
				for range workers {
					if err := <-done; err != nil {
						t.Errorf("workers: %v", err)
					}
				}
			})
		})
	}
}

func config(t *testing.T, dir string, poll time.Duration) app.Config {
	t.Helper()
	env := map[string]string{"STUDIO_DATA_DIR": dir, "STUDIO_WORKER_POLL": poll.String(), "STUDIO_WORKERS": "1"}
	cfg, err := app.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newCore opens the shared core, closed when the test ends.
func newCore(t *testing.T, cfg app.Config) *app.Core {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	core, err := app.NewCore(t.Context(), cfg, log, app.Options{Hash: account.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { core.Close() })
	return core
}

// submit signs a user up through h, mints a key and submits an upscale
// with it, and returns the job's id.
func submit(t *testing.T, h http.Handler, public string) string {
	t.Helper()
	do := func(req *http.Request) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, rec.Code, rec.Body)
		}
		return rec
	}
	req := httptest.NewRequest("POST", public+"/api/auth/sign-up/email",
		strings.NewReader(`{"name":"Ada","email":"ada@example.com","password":"a long password"}`))
	req.Header.Set("Content-Type", "application/json")
	cookie := do(req).Result().Cookies()[0]
	req = httptest.NewRequest("POST", public+"/api/keys", strings.NewReader(`{"name":"k"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", public)
	req.AddCookie(cookie)
	var key struct{ Key string }
	if err := json.Unmarshal(do(req).Body.Bytes(), &key); err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("tool", "upscale")
	fw, _ := w.CreateFormFile("image", "p.png")
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	if err := png.Encode(fw, img); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	req = httptest.NewRequest("POST", public+"/api/toolkit/jobs/submit", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key.Key)
	var job struct{ JobID string }
	if err := json.Unmarshal(do(req).Body.Bytes(), &job); err != nil || job.JobID == "" {
		t.Fatalf("submit: %v", err)
	}
	return job.JobID
}
