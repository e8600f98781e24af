package console_test

import (
	"image/color"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/console"
)

// furnished is a house with something on every page: a garment and a
// model, a packshot, a look, a share, a key, a collection, a standing
// note. It returns the app, the owner and the console paths to visit.
// Its pictures are a few hundred pixels on a side: their uploads, and the
// develop page's preflight measure, read them under the race detector,
// and no page's check is about their size.
func furnished(t testing.TB, e apptest.Engine) (*apptest.App, *apptest.User, []string) {
	t.Helper()
	a := apptest.New(t, e)
	dir := t.TempDir()
	u := a.SignUpAs(t, &apptest.User{Name: "Maison Test", Email: "owner-" + e.Name + "@studio.test", Password: "correct horse battery"})
	garment := uploaded(t, a, u, picture(t, dir, "g.jpg", 250, 300, color.RGBA{180, 90, 80, 255}), "clothes")
	model := uploaded(t, a, u, picture(t, dir, "m.jpg", 250, 350, color.RGBA{200, 170, 150, 255}), "model")
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", u.Session(), apptest.Multipart(t, apptest.Part{Name: "tool", Value: "packshot"}, apptest.Part{Name: "image", Value: garment}))
	var job struct{ JobID string }
	res.JSON(t, &job)
	res = a.Do(t, "POST", "/api/toolkit/lookbook/looks", u.Session(), map[string]any{"name": "Day", "modelAssetId": model,
		"itemAssetIds": []map[string]string{{"assetId": garment, "role": "top"}}, "background": map[string]string{"kind": "preset", "value": "studio-white"},
		"aesthetic": "editorial"})
	var look struct{ Look struct{ ID string } }
	res.JSON(t, &look)
	for _, c := range []struct {
		path string
		body any
	}{
		{"/api/share", map[string]any{"assetIds": []string{garment}, "recipientLabel": "Buyer"}},
		{"/api/keys", map[string]string{"name": "pipeline"}},
		{"/api/toolkit/folders", map[string]string{"name": "Spring"}},
		{"/api/toolkit/standing-notes", map[string]any{"text": "Keep the hems visible"}},
	} {
		if res := a.Do(t, "POST", c.path, u.Session(), c.body); res.Status >= 300 {
			t.Fatalf("POST %s: %d %s", c.path, res.Status, res.Body)
		}
	}
	return a, u, []string{"/", "/library", "/library?q=g", "/library/" + garment, "/develop", "/develop?tool=packshot&image=" + garment,
		"/develop?tool=packshot&job=" + job.JobID, "/develop/runs", "/looks", "/looks/new", "/looks/factory", "/looks/" + look.Look.ID,
		"/shares", "/house", "/house/casting", "/house/people", "/house/keys", "/house/webhooks", "/house/notifications",
		"/house/support", "/account", "/money", "/billing/done?checkout=x", "/join?code=SPRING-ABCDEF", "/invite?token=x"}
}

// pages is a console over the app's API that records the API requests
// its pages make in process.
func pages(a *apptest.App) (http.Handler, func() []*http.Request) {
	var mu sync.Mutex
	var seen []*http.Request
	c := console.New(console.Options{API: a.Server, Operator: func(email string) bool { return email == "admin@studio.test" }, Calls: func(r *http.Request) {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
	}})
	mux := http.NewServeMux()
	mux.Handle("/", a.Server)
	c.Mount(mux)
	return mux, func() []*http.Request {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// visit renders one console page for the user's session.
func visit(h http.Handler, u *apptest.User, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Accept", browserAccept)
	req.AddCookie(&http.Cookie{Name: "studio_session", Value: u.Cookie})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestEveryPage: every console page renders for the house's owner on
// both engines (200, the strict policy), and every API request a page
// made in process is a route of the API's table.
func TestEveryPage(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a, u, paths := furnished(t, e)
		h, calls := pages(a)
		for _, p := range paths {
			rec := visit(h, u, p)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("GET %s: %d %v\n%s", p, rec.Code, rec.Header(), rec.Body)
			}
		}
		admin := a.SignUpAs(t, &apptest.User{Name: "Operator", Email: "admin@studio.test", Password: "correct horse battery"})
		for _, p := range []string{"/admin", "/admin/develops", "/admin/develops?state=failed", "/admin/failures", "/admin/emails",
			"/admin/grants", "/admin/support"} {
			if rec := visit(h, admin, p); rec.Code != http.StatusOK {
				t.Errorf("GET %s as an operator: %d\n%s", p, rec.Code, rec.Body)
			}
			if rec := visit(h, u, p); rec.Code != http.StatusForbidden {
				t.Errorf("GET %s as a house's owner: %d, want 403", p, rec.Code)
			}
		}
		seen := map[string]bool{}
		for _, r := range calls() {
			if a.Server.Match(r) == "" {
				t.Errorf("a page read %s %s, which is no route of the API", r.Method, r.URL)
			}
			seen[r.URL.Path] = true
		}
		if len(seen) < 20 {
			t.Errorf("the pages read only %d routes: %v", len(seen), seen)
		}
	})
}

// TestFirstPageWeight: the first page a visitor sees (the sign-in page at
// /) with everything it loads is at most 100 KB over the wire.
func TestFirstPageWeight(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	get := func(path string) (int, string) {
		res, err := http.Get(a.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		head := 0
		for k, vs := range res.Header {
			for _, v := range vs {
				head += len(k) + len(v) + 4
			}
		}
		return len(b) + head, string(b)
	}
	total, html := get("/")
	refs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:src|href)="(/static/[^"?]+)"`).FindAllStringSubmatch(html, -1) {
		refs[m[1]] = true
	}
	if !refs["/static/console.js"] || !refs["/static/console.css"] {
		t.Fatalf("the first page loads %v", refs)
	}
	for ref := range refs {
		n, _ := get(ref)
		total += n
	}
	t.Logf("the first page and what it loads: %d bytes", total)
	if total > 100*1024 {
		t.Errorf("the first page weighs %d bytes, over 100 KB", total)
	}
}

// BenchmarkPages measures each console page's server time for a
// furnished house (the in-process API reads included) and reports its
// 95th percentile in milliseconds and the process's CPU time per page.
// Beside each page, bare serves the same bytes from a handler that does
// nothing else, through the same recorder: the floor of the measurement
// on this machine at this moment, for a ratio that the machine's load
// does not move much.
func BenchmarkPages(b *testing.B) {
	a, u, paths := furnished(b, apptest.Engines(b)[0])
	h, _ := pages(a)
	for _, p := range paths {
		name := strings.NewReplacer("/", "_", "?", "_", "=", "_", "&", "_").Replace(p)
		first := visit(h, u, p)
		if first.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", p, first.Code)
		}
		page, header := first.Body.Bytes(), first.Header().Clone()
		bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			maps.Copy(w.Header(), header)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(page)
		})
		for _, c := range []struct {
			name string
			h    http.Handler
		}{{name, h}, {name + "/bare", bare}} {
			b.Run(c.name, func(b *testing.B) {
				var took []time.Duration
				cpu := cpuTime()
				for b.Loop() {
					start := time.Now()
					if rec := visit(c.h, u, p); rec.Code != http.StatusOK {
						b.Fatalf("GET %s: %d", p, rec.Code)
					}
					took = append(took, time.Since(start))
				}
				b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}
