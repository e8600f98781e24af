package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ts"
)

// RedrawRequest is the body of POST /api/toolkit/judge/redraw.
type RedrawRequest struct {
	JobID          string `json:"jobId" required:"true"`
	IdempotencyKey string `json:"idempotencyKey,omitempty" maxLength:"200"`
}

// Redrawn answers a redraw.
type Redrawn struct {
	JobID        string     `json:"jobId"`
	Status       job.Status `json:"status" enum:"queued,running,done,failed,cancelled"`
	Tokens       int64      `json:"tokens" description:"Tokens held for the new frame: the source frame's own cost (0 when the idempotency key replayed an earlier redraw)."`
	RetryOfJobID string     `json:"retryOfJobId"`
	Correction   string     `json:"correction" description:"Built from the findings' labels; stored in params.correction and passed to the engine."`
}

// Correction is what a redraw tells the engine: the labels of the
// verdict's findings, heaviest first (sure before not sure), as one
// sentence. A verdict without findings gives none.
func Correction(v Verdict) string {
	var parts []string
	for _, conf := range []Confidence{Sure, NotSure} {
		for _, f := range v.Findings {
			if f.Confidence != conf {
				continue
			}
			l := strings.TrimSuffix(f.Code.Label(), ".")
			parts = append(parts, strings.ToLower(l[:1])+l[1:])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Correct what the judge found: " + strings.Join(parts, "; ") + "."
}

// Redraw develops a judged frame again with a correction built from its
// verdict, at the frame's own cost. A frame whose verdict says a retry is
// futile, or that the judge could not read, is refused and nothing is
// charged.
func (s *Service) Redraw(ctx context.Context, p auth.Principal, in RedrawRequest) (Redrawn, error) {
	if err := p.MaySpend(); err != nil {
		return Redrawn{}, err
	}
	in.JobID = strings.TrimSpace(in.JobID)
	if in.JobID == "" {
		return Redrawn{}, ErrJobIDRequired
	}
	if err := job.CheckKey(in.IdempotencyKey); err != nil {
		return Redrawn{}, err
	}
	src, err := s.store.Job(ctx, p.HouseID, in.JobID)
	if err != nil {
		return Redrawn{}, err
	}
	if src.Status != job.Done {
		return Redrawn{}, errs.Msg(ErrNotDeveloped, "The frame is "+string(src.Status)+", not developed: there is nothing to redraw.")
	}
	v, err := s.store.Verdict(ctx, p.HouseID, src.ID)
	if errors.Is(err, errs.NotFound) {
		return Redrawn{}, errs.Msg(ErrNotDeveloped, "The frame has no verdict yet; try again in a moment.")
	}
	if err != nil {
		return Redrawn{}, err
	}
	literal := s.jobs.Literal(src.Tool)
	mended := mend(v)
	switch {
	case v.Unreadable:
		return Redrawn{}, errs.With(errs.Msg(ErrRedrawRefused, "The judge could not read this frame, so a redraw has nothing to correct; nothing was charged."), "reason", "unreadable")
	case v.RetryFutile && (!literal || mended != ""):
		return Redrawn{}, errs.With(errs.Msg(ErrRedrawRefused, "The defect comes from the input, so a redraw cannot mend it; nothing was charged."), "reason", "retryFutile")
	case literal && (v.RetryFutile || mended == ""):
		// Checked here too, not only when the judge wrote the verdict: a
		// verdict written before this engine served the tool stays as it was.
		return Redrawn{}, errs.With(errs.Msg(ErrRedrawRefused, "The "+src.Tool+" frame was made by an engine that renders the same frame from the same inputs; "+
			"it mends only exposure, colour cast and crop, and nothing else this verdict found, so a redraw cannot mend it; nothing was charged."), "reason", "retryFutile")
	}
	correction := Correction(v)
	params := maps.Clone(src.Params)
	if params == nil {
		params = map[string]string{}
	}
	delete(params, "correction")
	if correction != "" {
		params["correction"] = correction
	}
	if literal {
		// The engine follows only its declared directions: the findings
		// it can act on become directions, after the frame's own direction
		// when it had one the engine follows (a take's).
		d := mended
		if had := strings.TrimRight(params["direction"], " .!;,"); had != "" {
			if _, ok := s.jobs.Follows(src.Tool, had+", "+mended); ok {
				d = had + ", " + mended
			}
		}
		params["direction"] = d
	}
	j, err := s.jobs.Again(ctx, p, src, params, in.IdempotencyKey)
	if err != nil {
		return Redrawn{}, err
	}
	rec, err := s.jobs.Enqueue(ctx, p, j)
	if err != nil {
		return Redrawn{}, err
	}
	return Redrawn{JobID: rec.Job.ID, Status: rec.Job.Status, Tokens: rec.TokensHeld, RetryOfJobID: rec.Job.RetryOfJobID,
		Correction: rec.Job.Params["correction"]}, nil
}

// TakeStore is what takes need from persistence.
type TakeStore interface {
	// TakeByKey returns the take the user made under key.
	TakeByKey(ctx context.Context, house, user, key string) (TakeRecord, error)
	// SubmitTake writes the take (when it has a key), every job with its
	// hold and first event, and the directions, in one transaction: all or
	// nothing. A concurrent take that won the key is returned, replayed.
	SubmitTake(ctx context.Context, t TakeRecord, jobs []job.Job, dirs []Direction) (stored TakeRecord, replayed bool, err error)
	// Directions returns the house's directions normalised to norm, newest
	// first, at most limit.
	Directions(ctx context.Context, house, norm string, limit int) ([]Direction, error)
}

// TakeRecord is a take as stored: its key and its answer.
type TakeRecord struct {
	ID             string
	HouseID        string
	UserID         string
	IdempotencyKey string
	Fingerprint    string
	Answer         Taken
	CreatedAt      time.Time
}

// Direction is a direction given with a take, for one new frame.
type Direction struct {
	HouseID     string
	JobID       string
	SourceJobID string
	UserID      string
	Tool        string
	Said        string
	Norm        string
	TakeID      string
	Shoot       string // the run the frame belongs to
	At          time.Time
}

// MaxTake is the most frames one take reruns.
const MaxTake = 50

// TakeRequest is the body of POST /api/toolkit/takes.
type TakeRequest struct {
	JobIDs         []string `json:"jobIds" required:"true" minItems:"1" maxItems:"50"`
	Direction      string   `json:"direction,omitempty" maxLength:"500" description:"What to do differently; stored in each new job's params.direction and passed to the engine."`
	IdempotencyKey string   `json:"idempotencyKey,omitempty" maxLength:"200"`
}

// Taken answers a take.
type Taken struct {
	Jobs     []TakenJob `json:"jobs"`
	Offer    *Offer     `json:"offer,omitempty" description:"A standing note offered when the same direction was given before."`
	Replayed bool       `json:"replayed,omitempty" description:"true when the idempotency key replayed an earlier take."`
}

// TakenJob is one new frame of a take.
type TakenJob struct {
	JobID       string `json:"jobId"`
	SourceJobID string `json:"sourceJobId"`
	Tokens      int64  `json:"tokens"`
}

// Offer proposes to keep a direction given more than once as a standing
// note: POST it to /api/toolkit/standing-notes with the evidence's job ids.
type Offer struct {
	Text            string     `json:"text"`
	ScopeTools      []string   `json:"scopeTools"`
	Evidence        []Evidence `json:"evidence"`
	AlreadyStanding []Standing `json:"alreadyStanding" description:"The notes in force whose scope meets the offer's."`
}

// Evidence is one time the direction was given.
type Evidence struct {
	JobID string  `json:"jobId" description:"The frame developed with the direction."`
	Tool  string  `json:"tool"`
	Said  string  `json:"said" description:"The direction as it was given."`
	At    ts.Time `json:"at"`
	Shoot string  `json:"shoot" description:"The develop run the frame belongs to (run.<id> or look.<id>.<stage>)."`
}

// Standing is a note already in force, as an offer lists it.
type Standing struct {
	ID          string `json:"id"`
	Text        string `json:"text"`
	ScopePhrase string `json:"scopePhrase"`
}

// Take develops several frames again with a direction: every frame is
// reserved before any is queued (all or none; a 402 leaves no hold), each
// new job inherits its source's run and sets retryOfJobId. The same key
// replays the take (200 replayed); with another set it is
// IDEMPOTENCY_KEY_REUSED. When the same direction was given before (see
// Normalise), the answer offers it as a standing note.
func (s *Service) Take(ctx context.Context, p auth.Principal, in TakeRequest) (Taken, error) {
	if err := p.MaySpend(); err != nil {
		return Taken{}, err
	}
	var ids []string
	for _, id := range in.JobIDs {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return Taken{}, ErrJobIDsRequired
	}
	if len(ids) > MaxTake {
		return Taken{}, errs.With(errs.Msg(errs.BadBody, "A take reruns at most 50 frames."), "max", MaxTake)
	}
	said, err := text(in.Direction)
	if err != nil {
		return Taken{}, err
	}
	if err := job.CheckKey(in.IdempotencyKey); err != nil {
		return Taken{}, err
	}
	fp := takeFingerprint(ids, said)
	if in.IdempotencyKey != "" {
		prior, err := s.store.TakeByKey(ctx, p.HouseID, p.UserID, in.IdempotencyKey)
		switch {
		case err == nil && prior.Fingerprint == fp:
			return replayed(prior.Answer), nil
		case err == nil:
			return Taken{}, job.ErrKeyReused
		case !errors.Is(err, errs.NotFound):
			return Taken{}, err
		}
	}
	rec := TakeRecord{ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, UserID: p.UserID,
		IdempotencyKey: in.IdempotencyKey, Fingerprint: fp, CreatedAt: s.now()}
	srcs := make([]job.Job, len(ids))
	for i, id := range ids {
		src, err := s.store.Job(ctx, p.HouseID, id)
		if err != nil {
			return Taken{}, err
		}
		if src.Status != job.Done {
			return Taken{}, errs.Msg(ErrNotDeveloped, "A frame of the take is "+string(src.Status)+", not developed.")
		}
		srcs[i] = src
	}
	if said != "" {
		for _, src := range srcs {
			if legal, ok := s.jobs.Follows(src.Tool, said); !ok {
				return Taken{}, errs.With(errs.Msg(ErrDirectionUnsupported, "The engine that develops "+src.Tool+" here cannot follow that direction; it follows: "+strings.Join(legal, ", ")+". Nothing was charged."), "legal", legal)
			}
		}
	}
	runs, err := s.jobs.RunsOf(ctx, p.HouseID, srcs)
	if err != nil {
		return Taken{}, err
	}
	var jobs []job.Job
	var dirs []Direction
	for _, src := range srcs {
		params := maps.Clone(src.Params)
		if params == nil {
			params = map[string]string{}
		}
		delete(params, "direction")
		delete(params, "correction")
		if said != "" {
			params["direction"] = said
		}
		if run := runs[src.ID]; run != "" {
			params["runId"] = run
		}
		j, err := s.jobs.Again(ctx, p, src, params, "")
		if err != nil {
			return Taken{}, err
		}
		jobs = append(jobs, j)
		rec.Answer.Jobs = append(rec.Answer.Jobs, TakenJob{JobID: j.ID, SourceJobID: src.ID, Tokens: j.Cost})
		if said != "" {
			run := runs[src.ID]
			shoot := "run." + run
			if run == "" {
				shoot = "look." + src.Params["lookId"] + "." + src.Params["stage"]
			}
			dirs = append(dirs, Direction{HouseID: p.HouseID, JobID: j.ID, SourceJobID: src.ID, UserID: p.UserID, Tool: src.Tool,
				Said: said, Norm: Normalise(said), TakeID: rec.ID, Shoot: shoot, At: s.now()})
		}
	}
	if said != "" {
		offer, err := s.offer(ctx, p.HouseID, said, rec.ID, dirs)
		if err != nil {
			return Taken{}, err
		}
		rec.Answer.Offer = offer
	}
	stored, again, err := s.store.SubmitTake(ctx, rec, jobs, dirs)
	if err != nil {
		return Taken{}, err
	}
	if again {
		if stored.Fingerprint != fp {
			return Taken{}, job.ErrKeyReused
		}
		return replayed(stored.Answer), nil
	}
	return stored.Answer, nil
}

func replayed(t Taken) Taken {
	t.Replayed = true
	return t
}

// takeFingerprint identifies a take for its idempotency key: the set of
// frames and the direction.
func takeFingerprint(ids []string, said string) string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	h := sha256.New()
	for _, id := range sorted {
		h.Write([]byte(id + "\x00"))
	}
	h.Write([]byte("direction\x00" + said))
	return hex.EncodeToString(h.Sum(nil))
}

// offerEvidence is the most evidence an offer lists.
const offerEvidence = 20

// offer proposes a standing note when the direction was given before, in
// an earlier take: its evidence is every frame it was given for (this
// take's included, newest first, at most 20), its scope those frames'
// tools. No offer is made when a note of the same sentence already stands
// over all of those tools.
func (s *Service) offer(ctx context.Context, house, said, takeID string, now []Direction) (*Offer, error) {
	norm := Normalise(said)
	before, err := s.store.Directions(ctx, house, norm, offerEvidence)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(before, func(d Direction) bool { return d.TakeID != takeID }) {
		return nil, nil
	}
	all := append(slices.Clone(now), before...)
	slices.SortStableFunc(all, func(a, b Direction) int { return b.At.Compare(a.At) })
	all = all[:min(len(all), offerEvidence)]
	o := &Offer{Text: said, ScopeTools: []string{}, Evidence: []Evidence{}, AlreadyStanding: []Standing{}}
	for _, d := range all {
		o.Evidence = append(o.Evidence, Evidence{JobID: d.JobID, Tool: d.Tool, Said: d.Said, At: ts.Of(d.At), Shoot: d.Shoot})
		if !slices.Contains(o.ScopeTools, d.Tool) {
			o.ScopeTools = append(o.ScopeTools, d.Tool)
		}
	}
	slices.Sort(o.ScopeTools)
	notes, err := s.store.Notes(ctx, house)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if !n.InForce() || !meets(n, o.ScopeTools) {
			continue
		}
		if n.Norm == norm && coversAll(n, o.ScopeTools) {
			return nil, nil // it stands already
		}
		o.AlreadyStanding = append(o.AlreadyStanding, Standing{ID: n.ID, Text: n.Text, ScopePhrase: n.ScopePhrase})
	}
	return o, nil
}

func meets(n Note, tools []string) bool {
	return len(n.ScopeTools) == 0 || slices.ContainsFunc(tools, n.Covers)
}

func coversAll(n Note, tools []string) bool {
	for _, t := range tools {
		if !n.Covers(t) {
			return false
		}
	}
	return true
}

// mend is the direction that mends v's findings on a literal engine (the
// local one), which renders the same frame from the same inputs and so can
// act only on exposure, colour cast and crop (DECISIONS §11), or "" when
// none of them can be mended that way:
//
//   - crop-cut: a wider crop, unless the frame's shape is off its
//     destination's (the pixel judge's "... the destination is ..."),
//     which a wider crop keeps;
//   - color-drift of clipped highlights or shadows (the pixel judge's
//     "clipped ..."): less contrast. A drift from a requested colour or
//     from the source piece says no way to move, so it is not mended.
func mend(v Verdict) string {
	var dirs []string
	for _, f := range v.Findings {
		d := ""
		switch {
		case f.Code == CropCut && !strings.Contains(f.Where, "destination"):
			d = "wider crop"
		case f.Code == ColorDrift && strings.HasPrefix(f.Where, "clipped"):
			d = "less contrast"
		}
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return strings.Join(dirs, ", ")
}
