package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"studio/internal/errs"
)

// Health is the liveness answer.
type Health struct {
	Status  string `json:"status" enum:"ok"`
	Service string `json:"service"`
	Uptime  int64  `json:"uptime" description:"Seconds since the process started."`
}

// Ready is the readiness answer.
type Ready struct {
	Ready bool `json:"ready"`
}

// ErrNotReady is /ready's answer when the database, its migrations or the
// blob store do not answer; the message says which.
var ErrNotReady = errs.New(errs.KindUnavailable, "SERVICE_NOT_READY", "The service is not ready.")

// NotReady is what a readiness check (Services.Ready) returns to name the
// part that failed: "database", "migrations" or "blobs". /ready's answer
// names the part, never the cause (an address, a driver's words), which
// goes to the log.
type NotReady struct {
	Part string
	Err  error
}

func (e *NotReady) Error() string { return e.Part + ": " + e.Err.Error() }
func (e *NotReady) Unwrap() error { return e.Err }

var notReadyMessages = map[string]string{
	"database":   "The service is not ready: the database is not answering.",
	"migrations": "The service is not ready: the database's migrations are not all applied.",
	"blobs":      "The service is not ready: the blob store is not answering.",
}

// readyWithin bounds /ready's checks: a database that stopped answering
// turns the probe 503 within it rather than when a connection times out.
const readyWithin = 800 * time.Millisecond

// health is liveness (DECISIONS §11): the process answers. It touches
// nothing, so a loaded or absent database never gets a live process
// restarted; /ready is the probe that asks the stores.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, Health{Status: "ok", Service: "studio", Uptime: int64(time.Since(s.started).Seconds())})
}

// ready is readiness (DECISIONS §11): the database answers with every
// migration applied and the blob store answers, else 503 SERVICE_NOT_READY.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	if s.svc.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyWithin)
		defer cancel()
		if err := s.svc.Ready(ctx); err != nil {
			if r.Context().Err() != nil {
				return r.Context().Err() // the prober left: a 499, not a 503
			}
			part := "database"
			if nr, ok := errors.AsType[*NotReady](err); ok {
				part = nr.Part
			}
			logFor(r.Context()).WarnContext(r.Context(), "not ready", "part", part, "err", err)
			return errs.With(errs.Msg(ErrNotReady, notReadyMessages[part]), "part", part)
		}
	}
	return encode(w, http.StatusOK, Ready{Ready: true})
}

func (s *Server) openapiJSON(w http.ResponseWriter, r *http.Request) error {
	doc, err := s.OpenAPI()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
	return nil
}

func (s *Server) docsPage(w http.ResponseWriter, r *http.Request) error {
	docsHandler().ServeHTTP(w, r)
	return nil
}

// metaRoutes are the routes of Meta (SPEC §4.3).
func (s *Server) metaRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/health", Class: Public, Tag: "meta", Summary: "Liveness: the process answers (touches no store)",
			Out: []Out{{Status: 200, Body: Health{}}}, Handler: s.health},
		{Method: "GET", Path: "/ready", Class: Public, Tag: "meta", Summary: "Readiness: the database, its migrations and the blob store answer",
			Out: []Out{{Status: 200, Body: Ready{}}}, Errors: []*errs.Error{ErrNotReady}, Handler: s.ready},
		{Method: "GET", Path: "/openapi.json", Class: KeyOrSession, Tag: "meta", Summary: "This OpenAPI 3.1 document",
			Out: []Out{{Status: 200, Body: map[string]any{}}}, Handler: s.openapiJSON},
		{Method: "GET", Path: "/docs", Class: KeyOrSession, Tag: "meta", Summary: "Interactive API reference (HTML)",
			Out: []Out{{Status: 200, ContentType: "text/html"}}, Handler: s.docsPage},
	}
}
