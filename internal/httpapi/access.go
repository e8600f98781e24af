package httpapi

import (
	"net/http"

	"studio/internal/access"
	"studio/internal/auth"
	"studio/internal/errs"
)

func (s *Server) myAccess(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Access.Mine(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) toolItems(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Access.ToolItems(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// accessRoutes are what a user may open and each tool's curated items
// (SPEC §4.9, other toolkit routes).
func (s *Server) accessRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/my-access", Class: KeyOrSession, Tag: "access",
			Summary: "The toolkits and tools the caller may open, and the trial's state from the house's plan",
			Out:     []Out{{Status: 200, Body: access.Mine{}}}, Handler: s.myAccess},
		{Method: "GET", Path: "/api/toolkit/tools/{slug}/items", Class: KeyOrSession, Tag: "access",
			Summary: "A tool's curated items (lenses, grounds, shapes, faces), in sort order",
			Out:     []Out{{Status: 200, Body: access.Items{}}}, Errors: []*errs.Error{access.ErrNoSuchTool},
			// A slug that names no tool is the spec's "400 invalid input", the
			// route's one answer for an unknown path value.
			NotFound: access.ErrNoSuchTool, Handler: s.toolItems},
	}
}
