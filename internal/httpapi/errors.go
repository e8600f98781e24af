package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"studio/internal/errs"
	"studio/internal/httpguard"
)

// ErrBadOrigin refuses a cookie-authenticated unsafe request from another origin.
var ErrBadOrigin = errs.New(errs.KindForbidden, "BAD_ORIGIN", "The request's Origin is not this service's.")

// Status is the one table from error kind to HTTP status.
func Status(k errs.Kind) int {
	switch k {
	case errs.KindInvalid:
		return http.StatusBadRequest
	case errs.KindUnauthorized:
		return http.StatusUnauthorized
	case errs.KindPayment:
		return http.StatusPaymentRequired
	case errs.KindForbidden:
		return http.StatusForbidden
	case errs.KindNotFound:
		return http.StatusNotFound
	case errs.KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case errs.KindTimeout:
		return http.StatusRequestTimeout
	case errs.KindConflict:
		return http.StatusConflict
	case errs.KindGone:
		return http.StatusGone
	case errs.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case errs.KindUnsupported:
		return http.StatusUnsupportedMediaType
	case errs.KindUnprocessable:
		return http.StatusUnprocessableEntity
	case errs.KindUpgradeRequired:
		return http.StatusUpgradeRequired
	case errs.KindRateLimited:
		return http.StatusTooManyRequests
	case errs.KindUpstream:
		return http.StatusBadGateway
	case errs.KindUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// StatusClientClosed is what the request log records when the client went
// away before its answer was written (nginx's 499): no answer is written,
// and it is not a server error, whatever the cancelled work returned.
const StatusClientClosed = 499

// writeError is the only place that writes an error answer. Errors that are
// not *errs.Error become a generic 500; their cause is logged once. When
// the client has gone (net/http cancels its request's context), the error is
// what the cancelled work returned: it is logged at info as a client
// cancel (status 499), never as a server error, and nothing is written.
// net/http cancels the context the same way when the body's deadline
// passes (httpguard); that client is still there and gets 408
// REQUEST_TIMEOUT, whatever the cut-short work returned.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) && httpguard.BodyTimedOut(r.Context()) {
		logFor(r.Context()).InfoContext(r.Context(), "body deadline passed", "err", err)
		w.Header().Set("Connection", "close")
		err = errs.RequestTimeout
	} else if errors.Is(r.Context().Err(), context.Canceled) {
		if i := info(r.Context()); i != nil && i.status == 0 {
			i.status = StatusClientClosed
		}
		logFor(r.Context()).InfoContext(r.Context(), "client gone", "err", err)
		return
	}
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.KindInternal {
		logFor(r.Context()).ErrorContext(r.Context(), "request failed", "err", err)
		if !ok || e.Code == "" {
			e = errs.Internal
		}
	} else if e.Err != nil {
		logFor(r.Context()).WarnContext(r.Context(), "request refused", "code", e.Code, "err", e.Err)
	}
	if e.Kind == errs.KindRateLimited {
		if v, ok := e.Fields["retryAfter"].(int64); ok {
			w.Header().Set("Retry-After", strconv.FormatInt(v, 10))
		} else {
			w.Header().Set("Retry-After", "60")
		}
	}
	body := errorBody(e)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(Status(e.Kind))
	_, _ = w.Write(body)
}

// errorBody renders {"error": CODE, "message": ..., fields...} with the
// code and message first and the fields in sorted order.
func errorBody(e *errs.Error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"error":`)
	writeJSON(&b, e.Code)
	b.WriteString(`,"message":`)
	writeJSON(&b, e.Message)
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		if k != "error" && k != "message" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteByte(',')
		writeJSON(&b, k)
		b.WriteByte(':')
		writeJSON(&b, e.Fields[k])
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any) {
	enc, err := json.Marshal(v)
	if err != nil {
		enc = []byte("null")
	}
	b.Write(enc)
}
