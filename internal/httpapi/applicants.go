package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ops"
)

// ApplicantsBody lists applicants.
type ApplicantsBody struct {
	Applicants []ops.Applicant `json:"applicants"`
}

func (s *Server) adminApplicants(w http.ResponseWriter, r *http.Request) error {
	list, err := s.svc.Ops.Applicants(r.Context(), auth.From(r.Context()), queryOf[ops.ApplicantsQuery](r))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ApplicantsBody{Applicants: list})
}

func (s *Server) adminDecline(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.DeclineRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Ops.Decline(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// applicantsRoutes are the operators' side of the applicant list (SPEC §3
// Invitation applicant; issue 28): reading it and declining.
func (s *Server) applicantsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/admin/applicants", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "The applicant list, newest first (pending by default), with each decision and its reason",
			Query:   ops.ApplicantsQuery{}, Out: []Out{{Status: 200, Body: ApplicantsBody{}}},
			Errors: []*errs.Error{errs.Msg(errs.BadStatus, "status must be pending, invited, declined or all."), errs.BadLimit}, Handler: s.adminApplicants},
		{Method: "POST", Path: "/api/toolkit/admin/applicants/{id}/decline", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary:     "Decline a pending applicant with a reason; the address is told by e-mail (without the reason)",
			Description: "Declined already: 200 alreadyDeclined, nothing sent. Invited already: 409 NOT_PENDING. The applicant's request asked again later answers already_requested and changes nothing.",
			In:          ops.DeclineRequest{}, Out: []Out{{Status: 200, Body: ops.Declined{}}},
			Errors: []*errs.Error{errs.NotFound, ops.ErrReasonRequired, ops.ErrNotPending}, Handler: s.adminDecline},
	}
}
