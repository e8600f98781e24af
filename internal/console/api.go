package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// apiError is an answer of the API other than 2xx: its status and the
// error body's code and plain message, which the page shows as they are.
type apiError struct {
	Status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// recorder keeps an in-process answer of the API.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }
func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

// get reads an API route in process, as the page's visitor: the same
// cookie (so the same session, house and role), address and request id.
// It decodes a 2xx JSON answer into out (nil: ignored) and returns any
// other answer as an *apiError. A renewed session cookie the API sets is
// passed on to the page's answer.
func (c *Console) get(w http.ResponseWriter, r *http.Request, path string, out any) error {
	return c.getAll(w, r, read{path: path, out: out})
}

// read is one API read of a page.
type read struct {
	path     string
	out      any
	optional bool // a refusal leaves out empty rather than failing the page
}

// getAll makes a page's independent reads at once and returns the first
// error in their order (an optional read's refusal is no error).
func (c *Console) getAll(w http.ResponseWriter, r *http.Request, reads ...read) error {
	id := w.Header().Get("X-Request-Id")
	errs := make([]error, len(reads))
	cookies := make([][]string, len(reads))
	if len(reads) == 1 {
		cookies[0], errs[0] = c.fetch(r, id, reads[0])
	} else {
		var wg sync.WaitGroup
		for i, rd := range reads {
			wg.Go(func() { cookies[i], errs[i] = c.fetch(r, id, rd) })
		}
		wg.Wait()
	}
	for _, cs := range cookies {
		for _, v := range cs {
			w.Header().Add("Set-Cookie", v)
		}
	}
	for i, err := range errs {
		if err != nil && !reads[i].optional {
			return err
		}
	}
	return nil
}

// fetch makes one read and returns the cookies the API set.
func (c *Console) fetch(r *http.Request, requestID string, rd read) ([]string, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, rd.path, nil)
	if err != nil {
		return nil, err
	}
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Accept", "application/json")
	if ck := r.Header.Get("Cookie"); ck != "" {
		req.Header.Set("Cookie", ck)
	}
	if requestID != "" {
		req.Header.Set("X-Request-Id", requestID) // the API's log lines name the page's request
	}
	rec := &recorder{header: http.Header{}}
	c.api.ServeHTTP(rec, req)
	if c.calls != nil {
		c.calls(req)
	}
	cookies := rec.header.Values("Set-Cookie")
	if rec.status < 200 || rec.status > 299 {
		e := &apiError{Status: rec.status}
		_ = json.Unmarshal(rec.body.Bytes(), e)
		if e.Message == "" {
			e.Message = http.StatusText(rec.status)
		}
		return cookies, e
	}
	if rd.out == nil {
		return cookies, nil
	}
	return cookies, json.Unmarshal(rec.body.Bytes(), rd.out)
}
