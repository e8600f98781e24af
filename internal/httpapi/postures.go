package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/look"
)

func (s *Server) listPostures(w http.ResponseWriter, r *http.Request) error {
	v, err := s.svc.Looks.Postures(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) savePosturePrefs(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[look.PrefsPatch](w, r)
	if err != nil {
		return err
	}
	p, err := s.svc.Looks.SavePrefs(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, p)
}

// posturesRoutes are the routes of Postures (SPEC §4.15).
func (s *Server) posturesRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/postures", Class: KeyOrSession, Tag: "postures", Summary: "The posture library, axes, register constraints and the house's prefs",
			Out: []Out{{Status: 200, Body: look.PosturesView{}}}, Handler: s.listPostures},
		{Method: "PUT", Path: "/api/toolkit/postures/prefs", Class: KeyOrSession, Tag: "postures", Summary: "Merge posture prefs; ids that cannot be cast are dropped",
			In: look.PrefsPatch{}, Out: []Out{{Status: 200, Body: look.Prefs{}}},
			Errors: []*errs.Error{look.ErrCantEdit, look.ErrBadIDs, look.ErrBadCustom}, Handler: s.savePosturePrefs},
	}
}
