// Package webfiles serves the static files embedded in the binary: the
// reference page's (/docs), the reviewer page's (/s) and the console's.
// Each set is read once; every file goes out with its type, an ETag of its
// bytes, nosniff and the cache policy its set gives it.
package webfiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"time"
)

// Set is one folder of embedded files, ready to serve.
type Set struct {
	files map[string]file
}

type file struct {
	body  []byte
	ctype string
	etag  string
	cache string
}

// New reads every file of dir in fsys (not its subfolders). cache names
// each file's Cache-Control. It panics when the folder cannot be read: an
// embedded folder is part of the binary.
func New(fsys fs.FS, dir string, cache func(name string) string) Set {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic("webfiles: " + dir + ": " + err.Error())
	}
	s := Set{files: map[string]file{}}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			panic("webfiles: " + dir + ": " + err.Error())
		}
		sum := sha256.Sum256(body)
		s.files[e.Name()] = file{body: body, ctype: Type(e.Name()), etag: `"` + hex.EncodeToString(sum[:16]) + `"`, cache: cache(e.Name())}
	}
	return s
}

// Has reports whether the set holds a file of that name.
func (s Set) Has(name string) bool {
	_, ok := s.files[name]
	return ok
}

// Bytes returns a file's contents (nil when absent).
func (s Set) Bytes(name string) []byte { return s.files[name].body }

// Names lists the set's files.
func (s Set) Names() []string {
	out := make([]string, 0, len(s.files))
	for n := range s.files {
		out = append(out, n)
	}
	return out
}

// Serve writes the named file (conditional and range requests answered by
// http.ServeContent) and reports whether the set holds it; when it does
// not, nothing is written. header, when set, adds the caller's headers
// (a page's Content-Security-Policy) before the answer goes out.
func (s Set) Serve(w http.ResponseWriter, r *http.Request, name string, header func(http.Header)) bool {
	f, ok := s.files[name]
	if !ok {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", f.cache)
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if header != nil {
		header(h)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
	return true
}

// Type is the Content-Type a file is served with, by its extension.
func Type(name string) string {
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

// NoCache revalidates every file with its ETag.
func NoCache(string) string { return "no-cache" }
