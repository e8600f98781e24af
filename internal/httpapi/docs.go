package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"studio/internal/errs"
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

// docsFile is one embedded file, ready to serve.
type docsFile struct {
	body  []byte
	ctype string
	etag  string
	cache string
}

// docsAssets reads the embedded files once.
var docsAssets = sync.OnceValue(func() map[string]docsFile {
	out := map[string]docsFile{}
	entries, err := fs.ReadDir(docsFiles, "docs")
	if err != nil {
		panic("httpapi: embedded docs: " + err.Error()) // the embed is part of the binary
	}
	for _, e := range entries {
		body, err := docsFiles.ReadFile("docs/" + e.Name())
		if err != nil {
			panic("httpapi: embedded docs: " + err.Error())
		}
		sum := sha256.Sum256(body)
		f := docsFile{
			body:  body,
			ctype: docsType(e.Name()),
			etag:  `"` + hex.EncodeToString(sum[:16]) + `"`,
			// index.html asks for the vendored files with ?v=<version>, so
			// they may be kept for a year; our own files are revalidated.
			cache: "public, max-age=31536000, immutable",
		}
		if e.Name() == "index.html" || e.Name() == "init.js" {
			f.cache = "no-cache"
		}
		out[e.Name()] = f
	}
	return out
})

func docsType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	}
	return "text/plain; charset=utf-8" // LICENSE, NOTICE, *.txt
}

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
		f, found := docsAssets()[name]
		if !ok || !found || strings.Contains(name, "/") {
			writeError(w, r, errs.NotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("Cache-Control", f.cache)
		h.Set("ETag", f.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		if name == "index.html" {
			h.Set("Content-Security-Policy", docsCSP)
			h.Set("Referrer-Policy", "no-referrer")
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
	})
}
