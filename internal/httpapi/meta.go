package httpapi

import (
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

// ErrUnhealthy is the answer when the database does not respond.
var ErrUnhealthy = errs.New(errs.KindUnavailable, "UNHEALTHY", "The database is not answering.")

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	if s.svc.Ping != nil {
		if err := s.svc.Ping(r.Context()); err != nil {
			return errs.Wrap(ErrUnhealthy, err)
		}
	}
	return encode(w, http.StatusOK, Health{Status: "ok", Service: "studio", Uptime: int64(time.Since(s.started).Seconds())})
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
		{Method: "GET", Path: "/health", Class: Public, Tag: "meta", Summary: "Liveness",
			Out: []Out{{Status: 200, Body: Health{}}}, Errors: []*errs.Error{ErrUnhealthy}, Handler: s.health},
		{Method: "GET", Path: "/openapi.json", Class: KeyOrSession, Tag: "meta", Summary: "This OpenAPI 3.1 document",
			Out: []Out{{Status: 200, Body: map[string]any{}}}, Handler: s.openapiJSON},
		{Method: "GET", Path: "/docs", Class: KeyOrSession, Tag: "meta", Summary: "Interactive API reference (HTML)",
			Out: []Out{{Status: 200, ContentType: "text/html"}}, Handler: s.docsPage},
	}
}
