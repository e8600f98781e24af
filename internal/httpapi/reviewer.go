package httpapi

import (
	"embed"
	"net/http"
	"strings"
	"sync"

	"studio/internal/errs"
	"studio/internal/webfiles"
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
var reviewerAssets = sync.OnceValue(func() webfiles.Set { return webfiles.New(reviewerFiles, "reviewer", webfiles.NoCache) })

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
	if !reviewerAssets().Serve(w, r, name, func(h http.Header) {
		h.Set("Referrer-Policy", "no-referrer")
		if name == "index.html" {
			h.Set("Content-Security-Policy", reviewerCSP)
		}
	}) {
		writeError(w, r, errs.NotFound)
	}
}
