package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/text"
)

// appHandler lets handlers return errors; its ServeHTTP is the only place
// that turns them into answers.
type appHandler func(w http.ResponseWriter, r *http.Request) error

func (h appHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		writeError(w, r, err)
	}
}

// MaxJSON is the largest JSON body accepted.
const MaxJSON = 1 << 20

// validator is a request that checks itself after decoding.
type validator interface{ Validate() error }

// decode reads a JSON body of at most 1 MiB into T: malformed JSON is
// BAD_JSON, a body of the wrong shape or that is not UTF-8 BAD_BODY, then
// T validates itself.
func decode[T any](w http.ResponseWriter, r *http.Request) (T, error) {
	var v T
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSON))
	if err != nil {
		return v, decodeError(err)
	}
	if err := checkUTF8(b); err != nil {
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		return v, decodeError(err)
	}
	if dec.More() {
		return v, errs.Msg(errs.BadJSON, "The body holds more than one JSON value.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, errs.Msg(errs.BadJSON, "The body holds more than one JSON value.")
	}
	if !text.CleanValue(&v) {
		return v, errControl
	}
	if val, ok := any(&v).(validator); ok {
		if err := val.Validate(); err != nil {
			return v, err
		}
	}
	return v, nil
}

// errNotUTF8 refuses a JSON body holding bytes that are not UTF-8:
// encoding/json would read them as U+FFFD and store that in their place.
var errNotUTF8 = errs.Msg(errs.BadBody, "The body must be UTF-8 text.")

// checkUTF8 refuses a body that is not UTF-8 (DECISIONS §11), on every
// route that reads JSON.
func checkUTF8(b []byte) error {
	if !utf8.Valid(b) {
		return errNotUTF8
	}
	return nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return errs.BodyTooLarge
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			return errs.Msg(errs.BadBody, "The field "+typeErr.Field+" has the wrong type.")
		}
		return errs.Msg(errs.BadBody, "The body must be a JSON object.")
	case errors.Is(err, io.EOF):
		return errs.Msg(errs.BadJSON, "The request body is empty.")
	default:
		return errs.BadJSON
	}
}

// encode writes v as JSON with the status. It encodes before writing, so
// a failure is still an error answer rather than half a body. The text is
// encoded into a pooled buffer and the headers are set without
// canonicalizing: the cheapest routes spend most of their time here.
func encode(w http.ResponseWriter, status int, v any) error {
	buf := encodeBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 { // a large answer's buffer is not kept
			encodeBufs.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(v); err != nil { // Marshal's text, then '\n'
		return err
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// jsonContentType is shared by every answer: nothing modifies a header
// value in place.
var jsonContentType = []string{"application/json"}

var encodeBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}
