package httpapi

import (
	"net/http"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
)

// VerdictsQuery is the query of GET /api/toolkit/judge/verdicts.
type VerdictsQuery struct {
	JobIDs string `query:"jobIds" required:"true" refuse:"JOB_IDS_REQUIRED" description:"Job ids, comma-separated; the first 50 are read, extras ignored."`
}

// VerdictsBody lists verdicts.
type VerdictsBody struct {
	Verdicts []judge.Verdict `json:"verdicts" description:"In the order asked; frames without a verdict (foreign ones too) are absent."`
}

func (s *Server) listVerdicts(w http.ResponseWriter, r *http.Request) error {
	ids := strings.Split(queryOf[VerdictsQuery](r).JobIDs, ",")
	vs, err := s.svc.Judge.Verdicts(r.Context(), auth.From(r.Context()), ids)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, VerdictsBody{Verdicts: vs})
}

func (s *Server) getVerdict(w http.ResponseWriter, r *http.Request) error {
	v, err := s.svc.Judge.Verdict(r.Context(), auth.From(r.Context()), r.PathValue("jobId"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) labelVerdict(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[judge.LabelRequest](w, r)
	if err != nil {
		return err
	}
	l, err := s.svc.Judge.Answer(r.Context(), p, r.PathValue("jobId"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, l)
}

func (s *Server) redraw(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[judge.RedrawRequest](w, r)
	if err != nil {
		return err
	}
	res, err := s.svc.Judge.Redraw(r.Context(), p, in)
	if err != nil {
		return submitError(err)
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, res)
}

func (s *Server) take(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[judge.TakeRequest](w, r)
	if err != nil {
		return err
	}
	res, err := s.svc.Judge.Take(r.Context(), p, in)
	if err != nil {
		return submitError(err)
	}
	if res.Replayed {
		return encode(w, http.StatusOK, res)
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, res)
}

func (s *Server) listNotes(w http.ResponseWriter, r *http.Request) error {
	notes, err := s.svc.Judge.Notes(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, judge.NotesBody{Notes: notes})
}

func (s *Server) createNote(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[judge.NoteRequest](w, r)
	if err != nil {
		return err
	}
	n, created, err := s.svc.Judge.CreateNote(r.Context(), p, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return encode(w, status, judge.NoteAnswer{Note: n})
}

func (s *Server) patchNote(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[judge.NotePatch](w, r)
	if err != nil {
		return err
	}
	n, err := s.svc.Judge.PatchNote(r.Context(), p, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, judge.NoteAnswer{Note: n})
}

func (s *Server) opinion(w http.ResponseWriter, r *http.Request) error {
	o, err := s.svc.Judge.Opinion(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, o)
}

// judgeRoutes are the routes of the judge, takes and standing notes (SPEC §4.7).
func (s *Server) judgeRoutes() []Route {
	rerun := []*errs.Error{ledger.ErrInsufficientTokens, errs.Forbidden, errs.NotFound, judge.ErrNotDeveloped, job.ErrKeyReused,
		job.ErrKeyTooLong, job.ErrUnknownToolRun, job.ErrBadOption, job.ErrNoInputs}
	return []Route{
		{Method: "POST", Path: "/api/toolkit/judge/redraw", Class: KeyOrSession, Tag: "judge", Summary: "Develop a judged frame again with a correction built from its findings",
			In: judge.RedrawRequest{}, Out: []Out{{Status: 202, Body: judge.Redrawn{}}},
			Errors: append([]*errs.Error{judge.ErrJobIDRequired, judge.ErrRedrawRefused}, rerun...), Handler: s.redraw},
		{Method: "GET", Path: "/api/toolkit/judge/verdicts", Class: KeyOrSession, Tag: "judge", Summary: "The verdicts of up to 50 frames",
			Query: VerdictsQuery{}, Out: []Out{{Status: 200, Body: VerdictsBody{}}}, Errors: []*errs.Error{judge.ErrJobIDsRequired}, Handler: s.listVerdicts},
		{Method: "GET", Path: "/api/toolkit/judge/verdicts/{jobId}", Class: KeyOrSession, Tag: "judge", Summary: "One frame's verdict, with the house's answer",
			Out: []Out{{Status: 200, Body: judge.Verdict{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getVerdict},
		{Method: "POST", Path: "/api/toolkit/judge/verdicts/{jobId}/label", Class: KeyOrSession, Tag: "judge", Summary: "Answer a verdict: agree or not, a rating, a note; the last answer wins",
			In: judge.LabelRequest{}, Out: []Out{{Status: 200, Body: judge.Label{}}},
			Errors: []*errs.Error{judge.ErrAgreesRequired, judge.ErrRatingOutOfRange, errs.Forbidden, errs.NotFound}, Handler: s.labelVerdict},
		{Method: "POST", Path: "/api/toolkit/takes", Class: KeyOrSession, Tag: "judge", Summary: "Develop several frames again with a direction, all reserved or none", Heavy: true,
			In: judge.TakeRequest{}, Out: []Out{{Status: 202, Body: judge.Taken{}}, {Status: 200, Body: judge.Taken{}}},
			Errors: append([]*errs.Error{judge.ErrJobIDsRequired, judge.ErrDirectionUnsupported, job.ErrSubmitFailed}, rerun...), Handler: s.take},
		{Method: "GET", Path: "/api/toolkit/standing-notes", Class: KeyOrSession, Tag: "judge", Summary: "Standing notes, newest first, retired included",
			Out: []Out{{Status: 200, Body: judge.NotesBody{}}}, Handler: s.listNotes},
		{Method: "POST", Path: "/api/toolkit/standing-notes", Class: KeyOrSession, Tag: "judge", Summary: "Set a standing note; the same sentence on the same scope answers the note standing",
			In: judge.NoteRequest{}, Out: []Out{{Status: 201, Body: judge.NoteAnswer{}}, {Status: 200, Body: judge.NoteAnswer{}}},
			Errors: []*errs.Error{judge.ErrTextRequired, judge.ErrBadEvidence, job.ErrUnknownTool, errs.Forbidden}, Handler: s.createNote},
		{Method: "PATCH", Path: "/api/toolkit/standing-notes/{id}", Class: KeyOrSession, Tag: "judge", Summary: "Retire a standing note or narrow its scope",
			In: judge.NotePatch{}, Out: []Out{{Status: 200, Body: judge.NoteAnswer{}}},
			Errors: []*errs.Error{judge.ErrNothingToChange, judge.ErrScopeWidening, job.ErrUnknownTool, errs.Forbidden, errs.NotFound}, Handler: s.patchNote},
	}
}
