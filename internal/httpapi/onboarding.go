package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/onboarding"
)

func (s *Server) onboardingList(w http.ResponseWriter, r *http.Request) error {
	c, err := s.svc.Onboarding.Checklist(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, c)
}

func (s *Server) onboardingMark(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[onboarding.MarkRequest](w, r)
	if err != nil {
		return err
	}
	c, err := s.svc.Onboarding.Mark(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, c)
}

// onboardingRoutes are the routes of the first-steps checklist (SPEC §4.19).
func (s *Server) onboardingRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/onboarding", Class: KeyOrSession, Tag: "onboarding", Summary: "The first-steps checklist: what the house has done and what you marked complete",
			Out: []Out{{Status: 200, Body: onboarding.Checklist{}}}, Handler: s.onboardingList},
		{Method: "POST", Path: "/api/toolkit/onboarding", Class: KeyOrSession, Tag: "onboarding", Summary: "Mark a step complete (idempotent); answers the checklist",
			In: onboarding.MarkRequest{}, Out: []Out{{Status: 200, Body: onboarding.Checklist{}}}, Errors: []*errs.Error{onboarding.ErrUnknownStep}, Handler: s.onboardingMark},
	}
}
