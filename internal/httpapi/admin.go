package httpapi

import (
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ops"
)

// The operators' routes (SPEC §4.17): a platform administrator's session
// only; a key, even an admin's, is refused. The grant of tokens is in
// billing.go.

// CostsQuery is the query of the ai-costs read.
type CostsQuery struct {
	Days int `query:"days" minimum:"1" maximum:"365" default:"30" description:"The window, in days back from now."`
}

// AdminRunsQuery is the query of the operators' develops list.
type AdminRunsQuery struct {
	ID    string `query:"id" refuse:"NOT_FOUND" description:"One develop (a job id, any house), with the prompt and pictures its provider was sent; an unknown id is the one 404."`
	State string `query:"state" enum:"active,failed,all" default:"all" description:"active: runs still queued or developing; failed: runs with a failed frame."`
	Limit int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

// AdminRunsBody lists develop runs of every house, or is one develop.
type AdminRunsBody struct {
	Runs    []ops.HouseRun `json:"runs,omitzero" description:"Without id: newest first, over the last 30 days."`
	Develop *ops.Develop   `json:"develop,omitempty" description:"With id: that develop and what its provider was sent."`
}

// EmailsQuery is the query of the e-mail log read.
type EmailsQuery struct {
	ID    string `query:"id" refuse:"NOT_FOUND" description:"One letter, with its archived HTML; an unknown id is the one 404."`
	Limit int    `query:"limit" minimum:"1" maximum:"500" default:"100"`
}

// EmailsBody is the e-mail log (letters, HTML left out) or one letter.
type EmailsBody struct {
	Letters []ops.Letter `json:"letters,omitempty" description:"Without id: the newest letters, HTML left out."`
	Letter  *ops.Letter  `json:"letter,omitempty" description:"With id: that letter and its HTML."`
}

// FailuresQuery is the query of the failures read.
type FailuresQuery struct {
	Hours int `query:"hours" minimum:"1" maximum:"720" default:"168" description:"The window, in hours back from now."`
}

// FramesQuery is the query of the operators' frames list.
type FramesQuery struct {
	House  string `query:"house" maxLength:"100" refuse:"BAD_FILTER" description:"Only this house's frames."`
	Tool   string `query:"tool" maxLength:"100" refuse:"BAD_FILTER" description:"Only frames this tool made."`
	Age    *int   `query:"age" minimum:"1" maximum:"3650" description:"Only frames made or brought in the last this many days."`
	Origin string `query:"origin" enum:"made,brought" refuse:"BAD_FRAME_ORIGIN" description:"made: developed by a tool; brought: uploaded."`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100"`
}

// EntitlementsQuery is the query of the operators' entitlements list.
type EntitlementsQuery struct {
	House  string  `query:"house" maxLength:"100" refuse:"BAD_FILTER" description:"Only this house's entitlements (its id)."`
	Kind   string  `query:"kind" enum:"topup,subscription,renewal,custom,model" refuse:"BAD_FILTER" description:"Only this kind of order."`
	Status string  `query:"status" enum:"active,revoked" refuse:"BAD_FILTER" description:"active: not revoked; revoked: ended by an operator."`
	Before *string `query:"before" refuse:"BAD_CURSOR" description:"A nextCursor of an earlier answer: the next older page."`
	Limit  int     `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

var (
	errBadEntFilter = errs.Msg(errs.BadFilter,
		"house is a house id of at most 100 characters; kind is topup, subscription, renewal, custom or model; status is active or revoked.")
	errBadDays     = errs.Msg(account.ErrBadDays, "days must be a whole number from 1 to 365.")
	errBadHours    = errs.BadHours
	errBadAge      = errs.New(errs.KindInvalid, "BAD_AGE", "age must be a whole number of days from 1 to 3650.")
	errBadFilter   = errs.Msg(errs.BadFilter, "house and tool are plain text of at most 100 characters.")
	errBadFrameOrg = errs.New(errs.KindInvalid, "BAD_FRAME_ORIGIN", "origin must be made or brought.")
	errBadRunState = errs.Msg(job.ErrBadState, "state must be active, failed or all.")
	errAdminLimit  = errs.Msg(errs.BadLimit, "limit is not a whole number in the documented range.")
)

func (s *Server) adminAccess(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.AccessRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Ops.ChangeAccess(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminCosts(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[CostsQuery](r)
	out, err := s.svc.Ops.Costs(r.Context(), auth.From(r.Context()), q.Days)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminDevelops(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[AdminRunsQuery](r)
	if q.ID != "" {
		d, err := s.svc.Ops.Develop(r.Context(), auth.From(r.Context()), q.ID)
		if err != nil {
			return err
		}
		return encode(w, http.StatusOK, AdminRunsBody{Develop: &d})
	}
	runs, err := s.svc.Ops.Develops(r.Context(), auth.From(r.Context()), q.State, q.Limit)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, AdminRunsBody{Runs: runs})
}

func (s *Server) adminDevelopsAction(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.ActionRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Ops.Act(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	for _, res := range out.Results {
		if res.Outcome != "skipped" {
			s.wakeWorkers()
			break
		}
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminEmails(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[EmailsQuery](r)
	p := auth.From(r.Context())
	if q.ID != "" {
		l, err := s.svc.Ops.Letter(r.Context(), p, q.ID)
		if err != nil {
			return err
		}
		return encode(w, http.StatusOK, EmailsBody{Letter: &l})
	}
	ls, err := s.svc.Ops.Letters(r.Context(), p, q.Limit)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, EmailsBody{Letters: ls})
}

func (s *Server) adminFailures(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[FailuresQuery](r)
	out, err := s.svc.Ops.Failures(r.Context(), auth.From(r.Context()), q.Hours)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminFrames(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[FramesQuery](r)
	f := ops.FrameFilter{House: q.House, Tool: q.Tool, Origin: q.Origin, Limit: q.Limit}
	if q.Age != nil {
		f.AgeDays = *q.Age
	}
	out, err := s.svc.Ops.Frames(r.Context(), auth.From(r.Context()), f)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// CodesBody lists invite codes.
type CodesBody struct {
	Codes []invite.Code `json:"codes" description:"The operators' codes, newest first."`
}

func (s *Server) adminInvite(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.InviteRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Ops.Invite(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminCodes(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.svc.Ops.Codes(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, CodesBody{Codes: cs})
}

func (s *Server) adminMintCode(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.MintRequest](w, r)
	if err != nil {
		return err
	}
	c, err := s.svc.Ops.MintCode(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, ops.CodeBody{Code: c})
}

func (s *Server) adminRevokeCode(w http.ResponseWriter, r *http.Request) error {
	c, err := s.svc.Ops.RevokeCode(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ops.CodeBody{Code: c})
}

func (s *Server) adminEntitlements(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[EntitlementsQuery](r)
	f := ops.EntitlementFilter{House: q.House, Kind: q.Kind, Status: q.Status, Limit: q.Limit}
	if q.Before != nil {
		c, err := ops.ParseEntitlementCursor(*q.Before)
		if err != nil {
			return err
		}
		f.Before = &c
	}
	page, err := s.svc.Ops.Entitlements(r.Context(), auth.From(r.Context()), f)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, page)
}

func (s *Server) adminRevokeEntitlement(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ops.RevokeRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Ops.RevokeEntitlement(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) adminFrameFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Ops.FrameFile(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.serveAsset(w, r, f)
}

// adminRoutes are the operators' routes (SPEC §4.17), but for the grant of
// tokens (billingRoutes).
func (s *Server) adminRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/toolkit/admin/access", Class: PlatformAdmin, Tag: "admin", Summary: "Grant or revoke a toolkit or a tool to a user, named by id or e-mail",
			In: ops.AccessRequest{}, Out: []Out{{Status: 200, Body: ops.Access{}}},
			Errors: []*errs.Error{ops.ErrBadAction, ops.ErrItemRequired, ops.ErrUnknownItem, ops.ErrTargetRequired, ledger.ErrUserNotFound}, Handler: s.adminAccess},
		{Method: "GET", Path: "/api/toolkit/admin/ai-costs", Class: PlatformAdmin, Tag: "admin", Summary: "What the work cost: settled tokens and stated provider costs, by tool and by day",
			Query: CostsQuery{}, Out: []Out{{Status: 200, Body: ops.Costs{}}}, Errors: []*errs.Error{errBadDays}, Handler: s.adminCosts},
		{Method: "GET", Path: "/api/toolkit/admin/develops", Class: PlatformAdmin, Tag: "admin", Summary: "Develop runs of every house, newest first, or one develop with what its provider was sent",
			Query: AdminRunsQuery{}, Out: []Out{{Status: 200, Body: AdminRunsBody{}}}, Errors: []*errs.Error{errBadRunState, errAdminLimit, errs.NotFound}, Handler: s.adminDevelops},
		{Method: "POST", Path: "/api/toolkit/admin/develops/action", Class: PlatformAdmin, Tag: "admin", Summary: "Retry or cancel many develops of any house; answers a tally",
			In: ops.ActionRequest{}, Out: []Out{{Status: 200, Body: ops.Tally{}}}, Errors: []*errs.Error{ops.ErrBadAction, ops.ErrJobIDsRequired}, Handler: s.adminDevelopsAction},
		{Method: "GET", Path: "/api/toolkit/admin/emails", Class: PlatformAdmin, Tag: "admin", Summary: "The e-mail log without HTML, or one letter with its archived HTML",
			Query: EmailsQuery{}, Out: []Out{{Status: 200, Body: EmailsBody{}}}, Errors: []*errs.Error{errAdminLimit, errs.NotFound}, Handler: s.adminEmails},
		{Method: "GET", Path: "/api/toolkit/admin/failures", Class: PlatformAdmin, Tag: "admin", Summary: "Failed develops grouped by normalised error text, with house counts; refused e-mails, open tickets and operator alerts",
			Query: FailuresQuery{}, Out: []Out{{Status: 200, Body: ops.Failures{}}}, Errors: []*errs.Error{errBadHours}, Handler: s.adminFailures},
		{Method: "GET", Path: "/api/toolkit/admin/frames", Class: PlatformAdmin, Tag: "admin", Summary: "Frames of every house, filtered by house, tool, age and origin, with the filters' values",
			Query: FramesQuery{}, Out: []Out{{Status: 200, Body: ops.Frames{}}}, Errors: []*errs.Error{errBadFilter, errBadAge, errBadFrameOrg, errAdminLimit}, Handler: s.adminFrames},
		{Method: "GET", Path: "/api/toolkit/admin/entitlements", Class: PlatformAdmin, Tag: "admin",
			Summary: "What the payment provider's paid orders gave every house (plans, packs, custom amounts, models), newest first, filtered by house, kind and status",
			Query:   EntitlementsQuery{}, Out: []Out{{Status: 200, Body: ops.EntitlementPage{}}},
			Errors: []*errs.Error{errBadEntFilter, errs.BadCursor, errAdminLimit}, Handler: s.adminEntitlements},
		{Method: "POST", Path: "/api/toolkit/admin/entitlements/revoke", Class: PlatformAdmin, Tag: "admin",
			Summary: "Revoke an entitlement: what is left of its tokens is taken back in a ledger row of its own (pending holds keep their part; a void of one later gives it to the revocation, not back), a model's claim on its face is released; a repeat answers the first revoke and writes nothing",
			In:      ops.RevokeRequest{}, Out: []Out{{Status: 200, Body: ops.Revoked{}}},
			Errors: []*errs.Error{ops.ErrEntitlementRequired, ops.ErrBadReason, errs.NotFound}, Handler: s.adminRevokeEntitlement},
		{Method: "POST", Path: "/api/toolkit/admin/invite", Class: PlatformAdmin, Tag: "admin", Summary: "Invite an address (idempotent per address) and send it the letter with the accept link",
			In: ops.InviteRequest{}, Out: []Out{{Status: 200, Body: ops.Invited{}}}, Errors: []*errs.Error{account.ErrBadEmail}, Handler: s.adminInvite},
		{Method: "GET", Path: "/api/toolkit/admin/invite-codes", Class: PlatformAdmin, Tag: "admin", Summary: "The operators' invite codes",
			Out: []Out{{Status: 200, Body: CodesBody{}}}, Handler: s.adminCodes},
		{Method: "POST", Path: "/api/toolkit/admin/invite-codes", Class: PlatformAdmin, Tag: "admin", Summary: "Mint an invite code LABEL-XXXXXX with a grant, a use limit and an expiry",
			In: ops.MintRequest{}, Out: []Out{{Status: 201, Body: ops.CodeBody{}}},
			Errors: []*errs.Error{ops.ErrBadLabel, ops.ErrBadGrant, ops.ErrBadMaxUses, ops.ErrBadExpiry}, Handler: s.adminMintCode},
		{Method: "POST", Path: "/api/toolkit/admin/invite-codes/{id}/revoke", Class: PlatformAdmin, Tag: "admin", Summary: "Withdraw an invite code (a repeat keeps the first time)",
			Out: []Out{{Status: 200, Body: ops.CodeBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.adminRevokeCode},
		{Method: "GET", Path: "/api/toolkit/admin/frames/{id}/file", Class: PlatformAdmin, Tag: "admin", Summary: "A frame's bytes, of any house",
			Out: fileOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.adminFrameFile},
	}
}
