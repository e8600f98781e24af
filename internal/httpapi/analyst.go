package httpapi

import (
	"net/http"

	"github.com/google/uuid"

	"studio/internal/analyst"
	"studio/internal/errs"
)

// The internal analyst's routes (SPEC §4.18, §5 rule 7): the analyst token
// as a bearer (the approval: the separate action token), never a house key
// or a session. Every read is an aggregate without identities.

// HoursQuery is the window of an analyst read.
type HoursQuery struct {
	Hours int `query:"hours" minimum:"1" maximum:"720" default:"168" description:"The window, in hours back from now (1 to 720, default 168: a week)."`
}

// HoursLimitQuery is a window and how many rows at most.
type HoursLimitQuery struct {
	Hours int `query:"hours" minimum:"1" maximum:"720" default:"168" description:"The window, in hours back from now (1 to 720, default 168: a week)."`
	Limit int `query:"limit" minimum:"1" maximum:"200" default:"50" description:"Rows at most (1 to 200, default 50)."`
}

// InvitationsQuery filters the applicant list.
type InvitationsQuery struct {
	Hours  int    `query:"hours" minimum:"1" maximum:"720" default:"168" description:"Applicants who asked in this window, in hours back from now (1 to 720, default 168)."`
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" description:"Applicants listed at most (1 to 200, default 50)."`
	Status string `query:"status" enum:"pending,invited,declined,all" default:"all"`
}

// StoryQuery is the longstory's window, rows and house.
type StoryQuery struct {
	Hours          int    `query:"hours" minimum:"1" maximum:"720" default:"168" description:"The window, in hours back from now (1 to 720, default 168)."`
	Limit          int    `query:"limit" minimum:"1" maximum:"200" default:"50" description:"Days at most, newest first (1 to 200, default 50)."`
	OrganizationID string `query:"organizationId" maxLength:"100" refuse:"NOT_FOUND" description:"Narrow the story to this house; an unknown id is the one 404."`
}

// ExperimentsQuery filters the experiments.
type ExperimentsQuery struct {
	Limit        int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
	Status       string `query:"status" enum:"all,complete,draft,exposure_frozen,paused,running,stopped" default:"all"`
	ExperimentID string `query:"experimentId" maxLength:"100" description:"One experiment."`
}

// FlagsQuery filters the feature flags.
type FlagsQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
	Active string `query:"active" enum:"true,false,all" default:"all"`
}

var (
	errAnalystStatus = errs.BadStatus
	errAnalystActive = errs.New(errs.KindInvalid, "BAD_ACTIVE", "active must be true, false or all.")
	errAnalystExpID  = errs.New(errs.KindInvalid, "BAD_EXPERIMENT_ID", "experimentId is plain text of at most 100 characters.")
)

func (s *Server) analystChat(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.ChatQuality(r.Context(), queryOf[HoursQuery](r).Hours)
	return encodeOr(w, out, err)
}

func (s *Server) analystDeliverability(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.Deliverability(r.Context(), queryOf[HoursQuery](r).Hours)
	return encodeOr(w, out, err)
}

func (s *Server) analystExperiments(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, s.svc.Analyst.Experiments())
}

func (s *Server) analystFailures(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.Failures(r.Context(), queryOf[HoursQuery](r).Hours)
	return encodeOr(w, out, err)
}

func (s *Server) analystFlags(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, s.svc.Analyst.FeatureFlags())
}

func (s *Server) analystFunnel(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.Funnel(r.Context(), queryOf[HoursQuery](r).Hours)
	return encodeOr(w, out, err)
}

func (s *Server) analystInvitations(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[InvitationsQuery](r)
	out, err := s.svc.Analyst.Invitations(r.Context(), q.Hours, q.Status, q.Limit)
	return encodeOr(w, out, err)
}

func (s *Server) analystLearnings(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[HoursLimitQuery](r)
	out, err := s.svc.Analyst.Learnings(r.Context(), q.Hours, q.Limit)
	return encodeOr(w, out, err)
}

func (s *Server) analystStory(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[StoryQuery](r)
	if q.OrganizationID != "" && !isUUID(q.OrganizationID) {
		return errs.NotFound
	}
	out, err := s.svc.Analyst.Longstory(r.Context(), q.Hours, q.Limit, q.OrganizationID)
	return encodeOr(w, out, err)
}

func (s *Server) analystUsage(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.ProductUsage(r.Context(), queryOf[HoursQuery](r).Hours)
	return encodeOr(w, out, err)
}

func (s *Server) analystRecordings(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, s.svc.Analyst.Recordings(queryOf[HoursLimitQuery](r).Hours))
}

func (s *Server) analystAnalysis(w http.ResponseWriter, r *http.Request) error {
	if !isUUID(r.PathValue("id")) {
		return errs.NotFound
	}
	return encode(w, http.StatusOK, s.svc.Analyst.Analysis(r.PathValue("id")))
}

func (s *Server) analystRejections(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[HoursLimitQuery](r)
	out, err := s.svc.Analyst.Rejections(r.Context(), q.Hours, q.Limit)
	return encodeOr(w, out, err)
}

func (s *Server) analystApprove(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[analyst.ApproveRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Analyst.Approve(r.Context(), r.PathValue("id"), in)
	return encodeOr(w, out, err)
}

func (s *Server) analystResearch(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Analyst.Research(r.Context(), r.PathValue("id"))
	return encodeOr(w, out, err)
}

func (s *Server) analystSummarize(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[analyst.SummarizeRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Analyst.Summarize(r.Context(), r.PathValue("id"), in)
	return encodeOr(w, out, err)
}

func (s *Server) analystPreview(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Analyst.Preview(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	b, err := s.svc.Shares.AssetThumb(r.Context(), f)
	if err != nil {
		return err
	}
	defer b.Object.Close()
	h := w.Header()
	h.Set("Content-Type", b.Mime)
	h.Set("ETag", b.ETag)
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", assetCSP)
	http.ServeContent(w, r, "", b.ModTime, b.Object)
	return nil
}

// isUUID reports whether s is a uuid in its canonical form.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// encodeOr answers out with 200, or the error.
func encodeOr(w http.ResponseWriter, out any, err error) error {
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// analystRoutes are the internal analyst's routes (SPEC §4.18).
func (s *Server) analystRoutes() []Route {
	hours := []*errs.Error{errBadHours}
	hoursLimit := []*errs.Error{errBadHours, errAdminLimit}
	return []Route{
		{Method: "POST", Path: "/api/internal/analyst/actions/invitations/{id}/approve", Class: AnalystAction, Tag: "analyst",
			Summary:     "Let a pending applicant in: invited, with the invitation letter an operator's invitation sends",
			Description: "Pending moves to invited (the reason is kept with the decision) and the address receives the operator's invitation letter with its accept link. Again: 200 alreadyInvited, nothing sent. A declined applicant is 409 NOT_PENDING. The id is the applicant's (a uuid); an unknown or malformed id is the one 404.",
			In:          analyst.ApproveRequest{}, Out: []Out{{Status: 200, Body: analyst.Approved{}}},
			Errors: []*errs.Error{analyst.ErrReason, errs.NotFound, analyst.ErrNotPending}, Handler: s.analystApprove},
		{Method: "POST", Path: "/api/internal/analyst/actions/invitations/{id}/research", Class: Analyst, Tag: "analyst",
			Summary:     "Read an applicant's public homepage and product feed through the URL guard",
			Description: "No body. Reads the root page of the applicant's website and /products.json at its origin, and nothing else: a social network's host is never read, and the URL guard refuses private, loopback and internal addresses at every dial (at most 3 redirects, each checked again). What could not be read says why in `refused`. Nothing is stored.",
			Out:         []Out{{Status: 200, Body: analyst.Research{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.analystResearch},
		{Method: "POST", Path: "/api/internal/analyst/actions/recordings/{id}/summarize", Class: Analyst, Tag: "analyst",
			Summary:     "Summarize a recording with the AI endpoint",
			Description: "503 AI_NOT_CONFIGURED without an AI endpoint. The service records no sessions, so with one every id is the one 404: no model is called.",
			In:          analyst.SummarizeRequest{}, Out: []Out{{Status: 200, Body: analyst.Summary{}}},
			Errors: []*errs.Error{analyst.ErrFocusArea, analyst.ErrAINotConfig, errs.NotFound}, Handler: s.analystSummarize},
		{Method: "GET", Path: "/api/internal/analyst/assets/{id}/preview", Class: Analyst, Tag: "analyst",
			Summary: "The thumbnail of any house's asset (at most 512 px on its long edge)",
			Out:     imageOut(http.StatusOK), Errors: []*errs.Error{errs.NotFound}, Handler: s.analystPreview},
		{Method: "GET", Path: "/api/internal/analyst/chat-quality", Class: Analyst, Tag: "analyst",
			Summary: "The assistant's conversations: turns, sessions, how often a reply changed the draft",
			Query:   HoursQuery{}, Out: []Out{{Status: 200, Body: analyst.Chat{}}}, Errors: hours, Handler: s.analystChat},
		{Method: "GET", Path: "/api/internal/analyst/deliverability", Class: Analyst, Tag: "analyst",
			Summary: "Letters by status and template: counts only",
			Query:   HoursQuery{}, Out: []Out{{Status: 200, Body: analyst.Deliverability{}}}, Errors: hours, Handler: s.analystDeliverability},
		{Method: "GET", Path: "/api/internal/analyst/experiments", Class: Analyst, Tag: "analyst",
			Summary: "The experiments the service runs: none (an empty list)",
			Query:   ExperimentsQuery{}, Out: []Out{{Status: 200, Body: analyst.Experiments{}}},
			Errors: []*errs.Error{errAdminLimit, errAnalystStatus, errAnalystExpID}, Handler: s.analystExperiments},
		{Method: "GET", Path: "/api/internal/analyst/failures", Class: Analyst, Tag: "analyst",
			Summary: "Failed develops grouped by normalised error text, with house counts and the failure rate",
			Query:   HoursQuery{}, Out: []Out{{Status: 200, Body: analyst.Failures{}}}, Errors: hours, Handler: s.analystFailures},
		{Method: "GET", Path: "/api/internal/analyst/feature-flags", Class: Analyst, Tag: "analyst",
			Summary: "The feature flags the service has: none (an empty list)",
			Query:   FlagsQuery{}, Out: []Out{{Status: 200, Body: analyst.FeatureFlags{}}},
			Errors: []*errs.Error{errAdminLimit, errAnalystActive}, Handler: s.analystFlags},
		{Method: "GET", Path: "/api/internal/analyst/funnel", Class: Analyst, Tag: "analyst",
			Summary: "The window's sign-ups through first upload, develop, look and payment",
			Query:   HoursQuery{}, Out: []Out{{Status: 200, Body: analyst.Funnel{}}}, Errors: hours, Handler: s.analystFunnel},
		{Method: "GET", Path: "/api/internal/analyst/invitations", Class: Analyst, Tag: "analyst",
			Summary: "The applicant list: counts by status and applicants by id, without names or addresses",
			Query:   InvitationsQuery{}, Out: []Out{{Status: 200, Body: analyst.Invitations{}}},
			Errors: []*errs.Error{errBadHours, errAdminLimit, errAnalystStatus}, Handler: s.analystInvitations},
		{Method: "GET", Path: "/api/internal/analyst/learnings", Class: Analyst, Tag: "analyst",
			Summary: "What the houses taught the studio: memories, standing notes, answers to the judge, counted",
			Query:   HoursLimitQuery{}, Out: []Out{{Status: 200, Body: analyst.Learnings{}}}, Errors: hoursLimit, Handler: s.analystLearnings},
		{Method: "GET", Path: "/api/internal/analyst/longstory", Class: Analyst, Tag: "analyst",
			Summary: "Day by day: seats taken, uploads, develops, failures, looks, verdicts, shares; every house or one",
			Query:   StoryQuery{}, Out: []Out{{Status: 200, Body: analyst.Story{}}},
			Errors: []*errs.Error{errBadHours, errAdminLimit, errs.NotFound}, Handler: s.analystStory},
		{Method: "GET", Path: "/api/internal/analyst/product-usage", Class: Analyst, Tag: "analyst",
			Summary: "Develops by tool and tier, uploads, looks, shares and AI lanes",
			Query:   HoursQuery{}, Out: []Out{{Status: 200, Body: analyst.Usage{}}}, Errors: hours, Handler: s.analystUsage},
		{Method: "GET", Path: "/api/internal/analyst/recordings", Class: Analyst, Tag: "analyst",
			Summary: "Recorded sessions: none (the service records none)",
			Query:   HoursLimitQuery{}, Out: []Out{{Status: 200, Body: analyst.Recordings{}}}, Errors: hoursLimit, Handler: s.analystRecordings},
		{Method: "GET", Path: "/api/internal/analyst/recordings/{id}/analysis", Class: Analyst, Tag: "analyst",
			Summary:     "A recording's analysis: not generated",
			Description: "Answers state not_generated for any uuid: the service records no sessions, so no analysis is ever stored. A malformed id is the one 404.",
			Out:         []Out{{Status: 200, Body: analyst.Analysis{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.analystAnalysis},
		{Method: "GET", Path: "/api/internal/analyst/rejections", Class: Analyst, Tag: "analyst",
			Summary: "What the judge refused: flagged, unreadable and unmendable frames, by defect",
			Query:   HoursLimitQuery{}, Out: []Out{{Status: 200, Body: analyst.Rejections{}}}, Errors: hoursLimit, Handler: s.analystRejections},
	}
}
