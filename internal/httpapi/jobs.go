package httpapi

import (
	"errors"
	"fmt"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// SubmitForm documents the multipart body of POST /api/toolkit/jobs/submit.
type SubmitForm struct {
	Tool           string                  `formData:"tool" required:"true" description:"The tool: upscale, reframe, generate-character, packshot, camera-lens, harmonize, tryon, iron, cleanup, color-change, fit-adjust, lookbook-video, remove-background."`
	Quality        string                  `formData:"quality" enum:"1k,2k,4k" description:"The tier; decides the pixels and the cost. Default 1k."`
	IdempotencyKey string                  `formData:"idempotencyKey" description:"The same key returns the same job with no second hold."`
	BrandID        string                  `formData:"brandId"`
	Image          *multipart.FileHeader   `formData:"image" description:"The input image (jpeg, png or webp; 12 MB at most), or, sent as a text part, the id of an asset of the house. Other roles use their own field name: model, garment (repeatable), background, mask."`
	Garment        []*multipart.FileHeader `formData:"garment" description:"Garments for tryon; repeat the field for several (files or asset ids)."`
	Model          *multipart.FileHeader   `formData:"model"`
	Background     *multipart.FileHeader   `formData:"background"`
	Mask           *multipart.FileHeader   `formData:"mask"`
}

// Submitted answers a submit or a duplicate.
type Submitted struct {
	JobID  string     `json:"jobId"`
	Status job.Status `json:"status" enum:"queued,running,done,failed,cancelled"`
}

// Duplicated answers a duplicate.
type Duplicated struct {
	JobID  string     `json:"jobId"`
	Status job.Status `json:"status" enum:"queued,running,done,failed,cancelled"`
	Cost   int64      `json:"cost" description:"Tokens held for the new frame (0 when the idempotency key replayed an earlier one)."`
}

// DuplicateRequest is the body of POST /api/toolkit/jobs/{id}/duplicate.
type DuplicateRequest struct {
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// JobsBody lists jobs.
type JobsBody struct {
	Jobs []job.Job `json:"jobs"`
}

// JobsQuery is the query of GET /api/toolkit/jobs.
type JobsQuery struct {
	Since int64 `query:"since" description:"The largest eventSeq the client has seen; 0 is everything." minimum:"0"`
}

// RunsQuery is the query of GET /api/toolkit/develops.
type RunsQuery struct {
	State string `query:"state" enum:"active,all" default:"all"`
	Limit int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
}

// RunsBody lists develop runs.
type RunsBody struct {
	Runs []*job.Run `json:"runs"`
}

// preflightDescription documents the preflight route (DECISIONS §11).
const preflightDescription = "Runs every check submit runs, in submit's order, on the same form as submit (multipart; a role " +
	"field may name an asset) or on JSON `{tool, inputs: {role: assetId}, quality?, options?}`, then, when every check " +
	"passes and the engine that would serve the tool can measure its inputs, the engine's own measure. It answers 200 " +
	"`{ok, tool, engine, price, spendable, problems, note}`: `ok` is true when submit would accept the develop and the " +
	"engine expects to deliver; each refusal submit would answer (UNKNOWN_TOOL, BAD_QUALITY, NO_IMAGE, EMPTY_IMAGE, " +
	"BAD_OPTION, NO_INPUTS, FAL_NOT_CONFIGURED, ASSET_NOT_FOUND, IMAGE_TOO_LARGE, INSUFFICIENT_TOKENS, FORBIDDEN for a " +
	"viewer, BAD_IDEMPOTENCY_KEY) is a problem with its code, and with the role or option it is about. Free for any " +
	"role: nothing is held, queued or stored (an uploaded file is inspected, never kept). A malformed JSON body or form " +
	"is still 400. At most 60 a minute per house (429)."

// submitLimit caps a submit's whole body: a few images of 12 MB each.
const submitLimit = 8*asset.MaxBytes + 1<<20

const maxField = 64 << 10

func (s *Server) submitJob(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := readSubmit(w, r)
	if err != nil {
		return err
	}
	rec, err := s.svc.Jobs.Submit(r.Context(), p, in)
	if err != nil {
		return submitError(err)
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, Submitted{JobID: rec.Job.ID, Status: rec.Job.Status})
}

// submitError turns a failure the client cannot act on into SUBMIT_FAILED:
// nothing was written and nothing charged.
func submitError(err error) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	return errs.Wrap(job.ErrSubmitFailed, err)
}

// submitForm is the form of POST /api/toolkit/jobs/submit: inputs by role
// (a single-input role takes one part; garment repeats, DECISIONS §5), each
// a file or, sent as text, the id of an asset of the house (DECISIONS §10),
// and text fields, the unreserved ones being the tool's options.
var submitForm = formSpec{
	maxBody: submitLimit, files: tool.SubmitRoles(), refs: true, others: true, maxFiles: maxSubmitFiles, maxText: maxField,
}

// maxSubmitFiles is the most files a submit carries; submitLimit holds them.
const maxSubmitFiles = 8

// readSubmit reads the submit's form (readForm bounds it).
func readSubmit(w http.ResponseWriter, r *http.Request) (job.SubmitRequest, error) {
	in := job.SubmitRequest{Params: map[string]string{}}
	f, err := readForm(w, r, submitForm)
	if err != nil {
		return in, err
	}
	for _, file := range f.files {
		in.Uploads = append(in.Uploads, job.Upload{Role: file.field, Filename: file.filename, Data: file.data})
	}
	for _, ref := range f.refs { // a role sent as text names an asset of the house (DECISIONS §10)
		id := strings.TrimSpace(ref.value)
		if id == "" {
			return in, errs.Msg(job.ErrEmptyImage, "The "+ref.field+" field is empty: send a file or an asset id.")
		}
		in.Inputs = append(in.Inputs, job.Input{Role: ref.field, AssetID: id})
	}
	for name, v := range f.values {
		switch name {
		case "tool":
			in.Tool = strings.TrimSpace(v)
		case "quality":
			in.Tier = ledger.Tier(strings.TrimSpace(v))
		case "idempotencyKey":
			in.IdempotencyKey = strings.TrimSpace(v)
		case "brandId":
			in.BrandID = strings.TrimSpace(v)
		case "output":
			return in, job.ErrOutputRefused
		default:
			in.Params[name] = v
		}
	}
	if in.Tool == "" {
		return in, errs.With(job.ErrNoTool, "legal", tool.SubmitTools())
	}
	return in, nil
}

// submitDescription documents the submit's options, tool by tool, from
// their one declaration (package tool).
func submitDescription() string {
	var b strings.Builder
	b.WriteString("Queues one develop: the tool's price at the quality is held before it is queued, settled when the frame " +
		"lands and released if it fails. Inputs go in fields named by their role (image, model, garment, background, mask), " +
		"each a file or, sent as a text part, the id of an asset of the house (`-F image=$ASSET_ID`); an unknown, deleted or " +
		"foreign id is 404 ASSET_NOT_FOUND, and an asset over 12 MB 413 IMAGE_TOO_LARGE, and nothing is held. A file whose bytes are already one of the house's assets " +
		"reuses that asset (the oldest, if several): nothing is stored again, and its name, folder, tags and approval stay " +
		"as they are; only its kind is filed from the role (model, garment as clothes, background) when it has none. " +
		"A new file becomes an asset of the house, filed the same way. " +
		"Every other text field is an option of the tool. A value outside an option's legal ones, or a required option " +
		"left out, is 400 BAD_OPTION with `option` and `legal`; a value that needs an input the form lacks (packshot " +
		"bg=image without a background) is 422 NO_INPUTS with `option` and `role`; either way nothing is held or stored. " +
		"An option name the tool does not read is kept on the job and changes nothing. Every tool takes `runId` (any text): " +
		"frames sent with the same runId are one develop run. list_capabilities (MCP) and the billing catalog list the " +
		"options the engine configured here reads.\n\nThe options each tool reads:\n")
	for _, name := range tool.SubmitTools() {
		fmt.Fprintf(&b, "\n- **%s**", name)
		n := 0
		for _, o := range tool.Options(name) {
			if o.Internal || o.ReadBy(tool.Service) {
				continue
			}
			n++
			fmt.Fprintf(&b, "\n  - `%s` (%s", o.Name, o.Type)
			if len(o.Legal) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(o.Legal, " | "))
			}
			if o.Default != "" {
				fmt.Fprintf(&b, "; default %s", o.Default)
			}
			if o.Required {
				b.WriteString("; required")
			}
			if !o.ReadBy(tool.Local) || !o.ReadBy(tool.Fal) {
				fmt.Fprintf(&b, "; read by the %s engine", strings.Join(o.Engines, " and "))
			}
			fmt.Fprintf(&b, "): %s", o.Description)
		}
		if n == 0 {
			b.WriteString(": no options.")
		}
	}
	return b.String()
}

// PreflightRequest is the JSON body of POST /api/toolkit/ai/preflight: a
// submit's fields with its inputs named by asset id.
type PreflightRequest struct {
	Tool    string            `json:"tool" required:"true" description:"The tool, as submit takes it."`
	Inputs  map[string]string `json:"inputs,omitempty" description:"Asset ids of the house by role (image, model, garment, background, mask)."`
	Quality string            `json:"quality,omitempty" description:"1k, 2k or 4k; default 1k. Another value is a BAD_QUALITY problem."`
	Options map[string]string `json:"options,omitempty" description:"The tool's options, as submit's text fields."`
}

// preflight answers whether a submit would be accepted, holding,
// queueing and storing nothing: the same form as submit, or JSON.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) error {
	var in job.SubmitRequest
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		var err error
		// A form without a tool is a problem to report, not a malformed form.
		if in, err = readSubmit(w, r); err != nil && (in.Tool != "" || !errors.Is(err, job.ErrUnknownTool)) {
			return err
		}
	} else {
		body, err := decode[PreflightRequest](w, r)
		if err != nil {
			return err
		}
		in = job.SubmitRequest{Tool: strings.TrimSpace(body.Tool), Tier: ledger.Tier(strings.TrimSpace(body.Quality)), Params: body.Options}
		for _, role := range slices.Sorted(maps.Keys(body.Inputs)) {
			in.Inputs = append(in.Inputs, job.Input{Role: role, AssetID: strings.TrimSpace(body.Inputs[role])})
		}
	}
	res, err := s.svc.Jobs.Preflight(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, res)
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) error {
	jobs, err := s.svc.Jobs.Since(r.Context(), auth.From(r.Context()), queryOf[JobsQuery](r).Since)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, JobsBody{Jobs: jobs})
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) error {
	res, err := s.svc.Jobs.Cancel(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, res)
}

func (s *Server) duplicateJob(w http.ResponseWriter, r *http.Request) error {
	in := DuplicateRequest{}
	if r.ContentLength != 0 {
		var err error
		if in, err = decode[DuplicateRequest](w, r); err != nil {
			return err
		}
	}
	rec, err := s.svc.Jobs.Duplicate(r.Context(), auth.From(r.Context()), r.PathValue("id"), in.IdempotencyKey)
	if err != nil {
		return submitError(err)
	}
	s.wakeWorkers()
	return encode(w, http.StatusAccepted, Duplicated{JobID: rec.Job.ID, Status: rec.Job.Status, Cost: rec.TokensHeld})
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[RunsQuery](r)
	runs, err := s.svc.Jobs.Runs(r.Context(), auth.From(r.Context()), q.State, q.Limit)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, RunsBody{Runs: runs})
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) error {
	res, err := s.svc.Jobs.CancelRun(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, res)
}

// jobsRoutes are the routes of Jobs and runs (SPEC §4.5).
func (s *Server) jobsRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/toolkit/jobs/submit", Class: KeyOrSession, Tag: "jobs", Summary: "Submit a develop", Description: submitDescription(),
			In: Multipart{Form: SubmitForm{}}, Out: []Out{{Status: 202, Body: Submitted{}}},
			Errors: []*errs.Error{ledger.ErrInsufficientTokens, errs.Forbidden, job.ErrUnknownTool, job.ErrNoImage, job.ErrEmptyImage, job.ErrBadQuality,
				asset.ErrTooLarge, job.ErrKeyReused, job.ErrKeyTooLong, job.ErrFalNotConfigure, job.ErrSubmitFailed, job.ErrBadOption, job.ErrNoInputs, job.ErrAssetNotFound}, Before: auth.Principal.MaySpend, Handler: s.submitJob},
		{Method: "POST", Path: "/api/toolkit/ai/preflight", Class: KeyOrSession, Tag: "jobs", Summary: "Would a submit be accepted and delivered? Free; holds, queues and stores nothing",
			Description: preflightDescription, In: Multipart{Form: SubmitForm{}, JSON: PreflightRequest{}}, Out: []Out{{Status: 200, Body: job.Preflight{}}},
			Errors: []*errs.Error{errs.BadJSON, errs.BadBody, errs.BadForm, asset.ErrTooLarge, errs.RateLimited}, Handler: s.preflight},
		{Method: "GET", Path: "/api/toolkit/jobs", Class: KeyOrSession, Tag: "jobs", Summary: "Jobs changed since an event cursor, ascending by eventSeq", Heavy: true,
			Query: JobsQuery{}, Out: []Out{{Status: 200, Body: JobsBody{}}}, Errors: []*errs.Error{job.ErrBadSince}, Handler: s.listJobs},
		{Method: "POST", Path: "/api/toolkit/jobs/{id}/cancel", Class: KeyOrSession, Tag: "jobs", Summary: "Cancel a queued job and release its hold",
			Out: []Out{{Status: 200, Body: job.CancelResult{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.cancelJob},
		{Method: "POST", Path: "/api/toolkit/jobs/{id}/duplicate", Class: KeyOrSession, Tag: "jobs", Summary: "Develop a job again with a fresh hold",
			In: DuplicateRequest{}, Out: []Out{{Status: 202, Body: Duplicated{}}},
			Errors: []*errs.Error{ledger.ErrInsufficientTokens, errs.Forbidden, errs.NotFound, job.ErrUnknownToolRun, job.ErrNoInputs, job.ErrKeyReused, job.ErrKeyTooLong, job.ErrBadOption}, Handler: s.duplicateJob},
		{Method: "GET", Path: "/api/toolkit/develops", Class: KeyOrSession, Tag: "jobs", Summary: "Develop runs, newest first", Heavy: true,
			Query: RunsQuery{}, Out: []Out{{Status: 200, Body: RunsBody{}}}, Errors: []*errs.Error{job.ErrBadState, job.ErrBadLimit}, Handler: s.listRuns},
		{Method: "POST", Path: "/api/toolkit/develops/{id}/cancel", Class: KeyOrSession, Tag: "jobs", Summary: "Cancel a run's queued frames",
			Out: []Out{{Status: 200, Body: job.RunCancel{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.cancelRun},
	}
}
