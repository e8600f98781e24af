package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/httpapi/openapi"
)

func TestDocsAssets(t *testing.T) {
	srv := httptest.NewServer(docsHandler())
	defer srv.Close()
	get := func(t *testing.T, method, path string, header http.Header) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(body)
	}

	res, page := get(t, "GET", "/docs", nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /docs: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("GET /docs headers: %v", res.Header)
	}
	if res, again := get(t, "GET", "/docs/", nil); res.StatusCode != 200 || again != page {
		t.Errorf("GET /docs/: %d", res.StatusCode)
	}

	// Every URL the page names is on this origin, and every asset it loads is served.
	_, init := get(t, "GET", "/docs/init.js", nil)
	for name, text := range map[string]string{"index.html": page, "init.js": init} {
		if strings.Contains(text, "http://") || strings.Contains(text, "https://") || strings.Contains(text, "//cdn") {
			t.Errorf("%s names another origin", name)
		}
	}
	if !strings.Contains(init, `url: "/openapi.json"`) || !strings.Contains(init, "validatorUrl: null") {
		t.Errorf("init.js does not load /openapi.json without the online validator:\n%s", init)
	}
	wantTypes := map[string]string{
		".js":  "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8",
		".png": "image/png",
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 4 {
		t.Fatalf("the page names %d URLs", len(refs))
	}
	for _, m := range refs {
		u := m[1]
		if u == "/openapi.json" {
			continue
		}
		if !strings.HasPrefix(u, "/docs/") {
			t.Errorf("the page loads %s", u)
			continue
		}
		res, body := get(t, "GET", u, nil)
		path, _, _ := strings.Cut(u, "?")
		ext := path[strings.LastIndex(path, "."):]
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != wantTypes[ext] || len(body) == 0 {
			t.Errorf("GET %s: %d %q, %d bytes", u, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", u)
		}
		wantCache := "public, max-age=31536000, immutable"
		if path == "/docs/init.js" {
			wantCache = "no-cache"
		} else if !strings.Contains(u, "?v=5.35.0") {
			t.Errorf("%s is cached for a year but carries no version", u)
		}
		if got := res.Header.Get("Cache-Control"); got != wantCache {
			t.Errorf("GET %s: Cache-Control %q; want %q", u, got, wantCache)
		}
	}

	t.Run("revalidation", func(t *testing.T) {
		res, _ := get(t, "GET", "/docs/swagger-ui.css", nil)
		etag := res.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		res, body := get(t, "GET", "/docs/swagger-ui.css", http.Header{"If-None-Match": {etag}})
		if res.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("If-None-Match: %d, %d bytes", res.StatusCode, len(body))
		}
	})
	t.Run("head", func(t *testing.T) {
		res, body := get(t, "HEAD", "/docs/swagger-ui-bundle.js", nil)
		if res.StatusCode != 200 || body != "" || res.ContentLength < 1_000_000 {
			t.Errorf("HEAD: %d, length %d", res.StatusCode, res.ContentLength)
		}
	})
	t.Run("license", func(t *testing.T) {
		res, body := get(t, "GET", "/docs/LICENSE", nil)
		if res.StatusCode != 200 || !strings.Contains(body, "Apache License") || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET /docs/LICENSE: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
	})
	for _, path := range []string{"/docs/nope.js", "/docs/a/b", "/docs/../openapi.go", "/docsx", "/other"} {
		t.Run("404 "+path, func(t *testing.T) {
			res, body := get(t, "GET", path, nil)
			if res.StatusCode != 404 || !strings.Contains(body, `"error":"NOT_FOUND"`) {
				t.Errorf("GET %s: %d %s", path, res.StatusCode, body)
			}
		})
	}
}

// TestDocsRenderInChromium loads /docs in headless Chromium with every host
// but the test server unresolvable, and checks that Swagger UI rendered the
// document: the page works offline.
func TestDocsRenderInChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install chromium); CI installs it")
	}
	doc := docTestBuild(t)
	var mu sync.Mutex
	seen := map[string]int{}
	docs := docsHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/openapi.json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(doc)
			return
		}
		docs.ServeHTTP(w, r)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--virtual-time-budget=5000", "--dump-dom", srv.URL+"/docs")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := string(out)
	for _, want := range []string{
		openapi.Title,                        // info.title
		"Change a thing", "Upload a picture", // operation summaries
		`data-path="/things/{id}"`, // an operation's path
		"opblock-tag-section",      // the tag groups
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(dom, "Failed to load API definition") || strings.Contains(dom, "Fetch error") {
		t.Error("Swagger UI could not load the document")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/docs", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/docs/init.js", "/openapi.json"} {
		if seen[path] == 0 {
			t.Errorf("the page never asked for %s (asked: %v)", path, seen)
		}
	}
	if t.Failed() {
		t.Logf("DOM (%d bytes): %.3000s", len(dom), dom)
	}
}
