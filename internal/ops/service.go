package ops

import (
	"context"
	"slices"
	"strings"
	"time"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/mail"
)

// Store is what the operators' reads need from persistence: reads across
// houses, which no house route makes.
type Store interface {
	CostsByTool(ctx context.Context, since time.Time) ([]ToolCost, error)
	CostsByDay(ctx context.Context, since time.Time) ([]DayCost, error)
	JobsAcross(ctx context.Context, since time.Time, status job.Status, limit int) ([]job.Job, error)
	JobAnyHouse(ctx context.Context, id string) (job.Job, error)
	JobDirection(ctx context.Context, house, id string) (job.Direction, bool, error)
	HouseNames(ctx context.Context, ids []string) (map[string]string, error)
	Letters(ctx context.Context, limit int) ([]Letter, error)
	Letter(ctx context.Context, id string) (Letter, error)
	RefusedLetters(ctx context.Context, since time.Time, limit int) ([]Letter, error)
	TicketsAcross(ctx context.Context, since time.Time, limit int) ([]Ticket, error)
	AlertsSince(ctx context.Context, since time.Time, limit int) ([]Alert, error)
	FramesAcross(ctx context.Context, f FrameFilter) ([]Frame, error)
	FrameFilters(ctx context.Context) (FrameFilters, error)
	AssetHouse(ctx context.Context, id string) (string, error)
	AssetFile(ctx context.Context, house, id string) (asset.File, error)
	UserIDByEmail(ctx context.Context, email string) (string, error)
	UserExists(ctx context.Context, id string) (bool, error)
	GrantAccess(ctx context.Context, g Grant) (int, error)
	RevokeAccess(ctx context.Context, g Grant) (int, error)
	InsertCode(ctx context.Context, c invite.Code) error
	OperatorCodes(ctx context.Context) ([]invite.Code, error)
	RevokeCode(ctx context.Context, id string, at time.Time) (invite.Code, error)
	EntitlementsAcross(ctx context.Context, f EntitlementFilter) ([]Entitlement, error)
	// RevokeEntitlement revokes an entitlement once, by the user, and
	// answers it; NOT_FOUND when none has the id.
	RevokeEntitlement(ctx context.Context, id, by, reason string) (Entitlement, error)
	// Applicants lists the applicant list of a status ("" for every one),
	// newest first; Applicant reads one (NOT_FOUND otherwise).
	Applicants(ctx context.Context, status string, limit int) ([]Applicant, error)
	Applicant(ctx context.Context, id string) (Applicant, error)
	// DecideApplicant moves an applicant from one status to another with
	// the reason; false when it was not in the from status.
	DecideApplicant(ctx context.Context, id, from, to, reason string, at time.Time) (bool, error)
}

// Service is the operators' use cases.
type Service struct {
	store  Store
	jobs   *job.Service
	door   *invite.Service
	mailer mail.Sender
	prices ledger.Prices
	now    func() time.Time
}

// NewService returns the operators' service; jobs performs a develop
// action as the house's own routes do, door issues invitations and mailer
// sends their letters.
func NewService(store Store, jobs *job.Service, door *invite.Service, mailer mail.Sender, prices ledger.Prices, now func() time.Time) *Service {
	return &Service{store: store, jobs: jobs, door: door, mailer: mailer, prices: prices, now: now}
}

// Costs answers what the work of the last days cost, by tool and by day:
// tokens from the holds that were posted (settled) in the window, dollars
// from what providers stated for the calls made in it.
func (s *Service) Costs(ctx context.Context, p auth.Principal, days int) (Costs, error) {
	if err := ensure(ctx, p); err != nil {
		return Costs{}, err
	}
	since := s.now().Add(-time.Duration(days) * 24 * time.Hour)
	by, err := s.store.CostsByTool(ctx, since)
	if err != nil {
		return Costs{}, err
	}
	daily, err := s.store.CostsByDay(ctx, since)
	if err != nil {
		return Costs{}, err
	}
	out := Costs{Days: days, ByTool: by, Daily: daily}
	for _, c := range by {
		out.TotalTokensSettled += c.Tokens
		out.TotalCostUSD += c.CostUSD
	}
	return out, nil
}

// RunAge is how far back the operators' develops list reads (as a house's).
const RunAge = job.RunAge

// maxAcross is how many develops the operators' lists read at most.
const maxAcross = 5000

// Develops lists develop runs of every house, newest first: state active
// keeps runs still queued or developing, failed those with a failed frame.
func (s *Service) Develops(ctx context.Context, p auth.Principal, state string, limit int) ([]HouseRun, error) {
	if err := ensure(ctx, p); err != nil {
		return nil, err
	}
	jobs, err := s.store.JobsAcross(ctx, s.now().Add(-RunAge), "", maxAcross)
	if err != nil {
		return nil, err
	}
	byHouse := map[string][]job.Job{}
	for _, j := range jobs {
		byHouse[j.HouseID] = append(byHouse[j.HouseID], j)
	}
	names, err := s.store.HouseNames(ctx, mapsKeys(byHouse))
	if err != nil {
		return nil, err
	}
	out := []HouseRun{}
	for house, js := range byHouse {
		for _, r := range job.Group(js, s.prices) {
			if state == "active" && !r.Active() || state == "failed" && r.Counts.Failed == 0 {
				continue
			}
			out = append(out, HouseRun{House: House{ID: house, Name: names[house]}, Run: r})
		}
	}
	slices.SortFunc(out, func(a, b HouseRun) int {
		if c := b.Run.CreatedAt.Compare(a.Run.CreatedAt.Time); c != 0 {
			return c
		}
		return strings.Compare(b.Run.ID, a.Run.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Develop returns one develop of whichever house it belongs to, with what
// its provider was sent (errs.NotFound for an unknown id).
func (s *Service) Develop(ctx context.Context, p auth.Principal, id string) (Develop, error) {
	if err := ensure(ctx, p); err != nil {
		return Develop{}, err
	}
	j, err := s.store.JobAnyHouse(ctx, id)
	if err != nil {
		return Develop{}, err
	}
	names, err := s.store.HouseNames(ctx, []string{j.HouseID})
	if err != nil {
		return Develop{}, err
	}
	d := Develop{House: House{ID: j.HouseID, Name: names[j.HouseID]}, Job: j, Tier: j.Tier, Inputs: j.Inputs, Params: j.Params, ProviderRefs: []job.Ref{}}
	if d.Inputs == nil {
		d.Inputs = []job.Input{}
	}
	if d.Params == nil {
		d.Params = map[string]string{}
	}
	dir, ok, err := s.store.JobDirection(ctx, j.HouseID, j.ID)
	if err != nil {
		return Develop{}, err
	}
	if ok {
		d.ProviderPrompt = &dir.Prompt
		if dir.Refs != nil {
			d.ProviderRefs = dir.Refs
		}
	}
	return d, nil
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ActionRequest is the body of a develops action.
type ActionRequest struct {
	Action string   `json:"action" enum:"retry,cancel" required:"true" description:"retry develops a failed or cancelled frame again with a fresh hold in its house; cancel stops a queued frame and releases its hold."`
	JobIDs []string `json:"jobIds" required:"true" minItems:"1" maxItems:"200" description:"Develops of any house."`
}

// Validate checks the action and the ids.
func (in *ActionRequest) Validate() error {
	if in.Action != "retry" && in.Action != "cancel" {
		return withLegal(ErrBadAction, []string{"retry", "cancel"})
	}
	if len(in.JobIDs) == 0 || len(in.JobIDs) > 200 {
		return ErrJobIDsRequired
	}
	return nil
}

// ActionResult is what became of one develop of an action.
type ActionResult struct {
	JobID    string  `json:"jobId"`
	Outcome  string  `json:"outcome" enum:"cancelled,retried,skipped"`
	Reason   *string `json:"reason" description:"Why it was skipped: NOT_FOUND, ALREADY_RENDERING, ALREADY_SETTLED, NOT_RETRYABLE (neither failed nor cancelled), ALREADY_RETRIED (retried before: newJobId names that retry), INSUFFICIENT_TOKENS, UNKNOWN_TOOL, NO_INPUTS."`
	NewJobID *string `json:"newJobId" description:"The develop a retry queued (or, ALREADY_RETRIED, the one queued before)."`
	Tokens   int64   `json:"tokens" description:"Tokens a cancel released or a retry held."`
}

// Tally is the answer to a develops action.
type Tally struct {
	Action         string         `json:"action"`
	Requested      int            `json:"requested"`
	Done           int            `json:"done"`
	Skipped        int            `json:"skipped"`
	TokensReleased int64          `json:"tokensReleased"`
	TokensHeld     int64          `json:"tokensHeld"`
	Results        []ActionResult `json:"results" description:"One per distinct id, in request order."`
}

// Act retries or cancels many develops, each in its own house and with its
// holds released or taken exactly as the house's own cancel and duplicate
// routes do. Each acts once per develop whatever the concurrency: a cancel
// moves a queued develop once (the store's conditional transition), a
// retry is made once (RetryKey). A retry belongs to the develop's member,
// as the develop did.
func (s *Service) Act(ctx context.Context, p auth.Principal, in ActionRequest) (Tally, error) {
	if err := ensure(ctx, p); err != nil {
		return Tally{}, err
	}
	if err := in.Validate(); err != nil {
		return Tally{}, err
	}
	t := Tally{Action: in.Action, Results: []ActionResult{}}
	seen := map[string]bool{}
	for _, id := range in.JobIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		t.Requested++
		r := s.act(ctx, p, in.Action, id)
		if r.Outcome == "skipped" {
			t.Skipped++
		} else {
			t.Done++
		}
		if r.Outcome == "cancelled" {
			t.TokensReleased += r.Tokens
		}
		if r.Outcome == "retried" {
			t.TokensHeld += r.Tokens
		}
		t.Results = append(t.Results, r)
	}
	return t, nil
}

func skipped(id, reason string) ActionResult {
	return ActionResult{JobID: id, Outcome: "skipped", Reason: &reason}
}

func (s *Service) act(ctx context.Context, p auth.Principal, action, id string) ActionResult {
	j, err := s.store.JobAnyHouse(ctx, id)
	if err != nil {
		return skipped(id, "NOT_FOUND")
	}
	as := auth.Principal{UserID: p.UserID, HouseID: j.HouseID, Role: auth.Owner, Cred: auth.CredSession, Email: p.Email}
	if action == "cancel" {
		res, err := s.jobs.Cancel(ctx, as, id)
		if err != nil {
			return skipped(id, codeOf(err))
		}
		if !res.Cancelled {
			return skipped(id, res.Reason)
		}
		return ActionResult{JobID: id, Outcome: "cancelled", Tokens: res.TokensReleased}
	}
	if j.Status != job.Failed && j.Status != job.Cancelled {
		return skipped(id, "NOT_RETRYABLE")
	}
	// A develop is retried once, however many presses of however many
	// operators race: the retry is the develop's own member's, under a key
	// named after the develop, and idempotency keys are unique per (house,
	// member, key) in the database, so every press after the first (in this
	// process or another) gets the one retry back, held and charged once.
	if j.UserID != "" {
		as.UserID = j.UserID
	}
	rc, err := s.jobs.Duplicate(ctx, as, id, RetryKey(id))
	if err != nil {
		return skipped(id, codeOf(err))
	}
	if rc.Replayed {
		r := skipped(id, "ALREADY_RETRIED")
		r.NewJobID = &rc.Job.ID
		return r
	}
	return ActionResult{JobID: id, Outcome: "retried", NewJobID: &rc.Job.ID, Tokens: rc.TokensHeld}
}

// RetryKey is the idempotency key of an operator's retry of a develop.
func RetryKey(jobID string) string { return "operator-retry:" + jobID }

func codeOf(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return "INTERNAL"
}

// Letters lists the e-mail log, newest first, without HTML.
func (s *Service) Letters(ctx context.Context, p auth.Principal, limit int) ([]Letter, error) {
	if err := ensure(ctx, p); err != nil {
		return nil, err
	}
	return s.store.Letters(ctx, limit)
}

// Letter returns one letter with its archived HTML.
func (s *Service) Letter(ctx context.Context, p auth.Principal, id string) (Letter, error) {
	if err := ensure(ctx, p); err != nil {
		return Letter{}, err
	}
	return s.store.Letter(ctx, id)
}

// Failures groups the failed develops of the last hours by their
// normalised error text, with how many houses met each, plus the letters
// that could not be delivered, the open tickets and the operator alerts.
func (s *Service) Failures(ctx context.Context, p auth.Principal, hours int) (Failures, error) {
	if err := ensure(ctx, p); err != nil {
		return Failures{}, err
	}
	since := s.now().Add(-time.Duration(hours) * time.Hour)
	jobs, err := s.store.JobsAcross(ctx, since, job.Failed, maxAcross)
	if err != nil {
		return Failures{}, err
	}
	type group struct {
		FailureGroup
		houses map[string]bool
	}
	groups := map[string]*group{}
	for _, j := range jobs { // newest first
		text := ""
		if j.Error != nil {
			text = *j.Error
		}
		key := Normalize(text)
		g := groups[key]
		if g == nil {
			g = &group{FailureGroup: FailureGroup{Error: key, Tools: []string{}, SampleJobs: []string{}, LastAt: j.CreatedAt}, houses: map[string]bool{}}
			groups[key] = g
		}
		g.Count++
		g.houses[j.HouseID] = true
		if !slices.Contains(g.Tools, j.Tool) {
			g.Tools = append(g.Tools, j.Tool)
		}
		if len(g.SampleJobs) < 5 {
			g.SampleJobs = append(g.SampleJobs, j.ID)
		}
	}
	out := Failures{Hours: hours, Groups: []FailureGroup{}}
	for _, g := range groups {
		g.Houses = len(g.houses)
		slices.Sort(g.Tools)
		out.Groups = append(out.Groups, g.FailureGroup)
	}
	slices.SortFunc(out.Groups, func(a, b FailureGroup) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Error, b.Error)
	})
	if out.RefusedEmails, err = s.store.RefusedLetters(ctx, since, 200); err != nil {
		return Failures{}, err
	}
	if out.Tickets, err = s.store.TicketsAcross(ctx, since, 200); err != nil {
		return Failures{}, err
	}
	if out.Alerts, err = s.store.AlertsSince(ctx, since, 200); err != nil {
		return Failures{}, err
	}
	return out, nil
}

// Frames lists the frames of every house, newest first, with the values
// the filters take.
func (s *Service) Frames(ctx context.Context, p auth.Principal, f FrameFilter) (Frames, error) {
	if err := ensure(ctx, p); err != nil {
		return Frames{}, err
	}
	frames, err := s.store.FramesAcross(ctx, f)
	if err != nil {
		return Frames{}, err
	}
	filters, err := s.store.FrameFilters(ctx)
	if err != nil {
		return Frames{}, err
	}
	return Frames{Frames: frames, Filters: filters}, nil
}

// FrameFile returns the stored file of any house's live frame.
func (s *Service) FrameFile(ctx context.Context, p auth.Principal, id string) (asset.File, error) {
	if err := ensure(ctx, p); err != nil {
		return asset.File{}, err
	}
	house, err := s.store.AssetHouse(ctx, id)
	if err != nil {
		return asset.File{}, err
	}
	return s.store.AssetFile(ctx, house, id)
}

// FrameURL is the operators' file route of a frame.
func FrameURL(id string) string { return "/api/toolkit/admin/frames/" + id + "/file" }
