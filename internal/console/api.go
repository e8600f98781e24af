package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Accept", "application/json")
	if ck := r.Header.Get("Cookie"); ck != "" {
		req.Header.Set("Cookie", ck)
	}
	if id := w.Header().Get("X-Request-Id"); id != "" {
		req.Header.Set("X-Request-Id", id) // the API's log lines name the page's request
	}
	rec := &recorder{header: http.Header{}}
	c.api.ServeHTTP(rec, req)
	if c.calls != nil {
		c.calls(req)
	}
	for _, v := range rec.header.Values("Set-Cookie") {
		w.Header().Add("Set-Cookie", v)
	}
	if rec.status < 200 || rec.status > 299 {
		e := &apiError{Status: rec.status}
		_ = json.Unmarshal(rec.body.Bytes(), e)
		if e.Message == "" {
			e.Message = http.StatusText(rec.status)
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(rec.body.Bytes(), out)
}
