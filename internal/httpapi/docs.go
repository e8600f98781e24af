package httpapi

import (
	"embed"
	"net/http"
	"strings"
	"sync"

	"studio/internal/errs"
	"studio/internal/webfiles"
)

// docsFiles is the /docs page: swagger-ui-dist 5.35.0 (Apache-2.0, see
// docs/LICENSE), our index.html and the init.js that points it at
// /openapi.json. Nothing is loaded from another origin.
//
//go:embed docs
var docsFiles embed.FS

// docsCSP lets the page load only this origin's scripts, styles and
// document; Swagger UI sets inline styles and shows data: images.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// docsAssets reads the embedded files once. index.html asks for the
// vendored files with ?v=<version>, so they may be kept for a year; our
// own files are revalidated.
var docsAssets = sync.OnceValue(func() webfiles.Set {
	return webfiles.New(docsFiles, "docs", func(name string) string {
		if name == "index.html" || name == "init.js" {
			return "no-cache"
		}
		return "public, max-age=31536000, immutable"
	})
})

// docsHandler serves the interactive reference: GET /docs (and /docs/) is
// the HTML page, GET /docs/{file} one of its assets. Other paths are the
// API's one 404.
func docsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/docs")
		if ok && (name == "" || name == "/") {
			name = "index.html"
		} else if ok {
			name, ok = strings.CutPrefix(name, "/")
		}
		if !ok || strings.Contains(name, "/") || !docsAssets().Serve(w, r, name, func(h http.Header) {
			if name == "index.html" {
				h.Set("Content-Security-Policy", docsCSP)
				h.Set("Referrer-Policy", "no-referrer")
			}
		}) {
			writeError(w, r, errs.NotFound)
		}
	})
}
