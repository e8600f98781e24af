package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"studio/internal/errs"
)

// reviewerFiles is the reviewer's page (GET /s) and its script and style:
// plain HTML, CSS and JavaScript written here, embedded in the binary;
// nothing is loaded from another origin.
//
//go:embed reviewer
var reviewerFiles embed.FS

// reviewerCSP lets the page load only this origin's script, style,
// frames and API; the token never leaves in a Referer.
const reviewerCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// reviewerAssets reads the embedded files once.
var reviewerAssets = sync.OnceValue(func() map[string]docsFile {
	out := map[string]docsFile{}
	entries, err := fs.ReadDir(reviewerFiles, "reviewer")
	if err != nil {
		panic("httpapi: embedded reviewer page: " + err.Error())
	}
	for _, e := range entries {
		body, err := reviewerFiles.ReadFile("reviewer/" + e.Name())
		if err != nil {
			panic("httpapi: embedded reviewer page: " + err.Error())
		}
		sum := sha256.Sum256(body)
		out[e.Name()] = docsFile{body: body, ctype: docsType(e.Name()), etag: `"` + hex.EncodeToString(sum[:16]) + `"`, cache: "no-cache"}
	}
	return out
})

// reviewerPage serves GET /s.
func (s *Server) reviewerPage(w http.ResponseWriter, r *http.Request) error {
	serveReviewerFile(w, r, "index.html")
	return nil
}

// reviewerHandler serves the page's own files under /s/.
func reviewerHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/s/")
		if name == "index.html" || strings.Contains(name, "/") {
			writeError(w, r, errs.NotFound)
			return
		}
		serveReviewerFile(w, r, name)
	})
}

func serveReviewerFile(w http.ResponseWriter, r *http.Request, name string) {
	f, ok := reviewerAssets()[name]
	if !ok {
		writeError(w, r, errs.NotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", f.cache)
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if name == "index.html" {
		h.Set("Content-Security-Policy", reviewerCSP)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
}
