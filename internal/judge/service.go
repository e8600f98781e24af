package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// Task is a frame waiting for its verdict.
type Task struct {
	HouseID  string
	JobID    string
	Attempts int // claims so far, this one included
}

// Judges reports whether a frame that landed with this media type waits
// for a verdict: a still picture does; a video (lookbook-video) does not,
// the judge reads pictures only. The transaction that lands a frame raises
// its task when it does, so every judged frame gets its verdict, once.
func Judges(mime string) bool { return strings.HasPrefix(mime, "image/") }

// Store is what the judge needs from persistence.
type Store interface {
	// Verdict returns the verdict of the house's job, with its answer.
	Verdict(ctx context.Context, house, jobID string) (Verdict, error)
	// Verdicts returns the verdicts of those of ids that have one, in the
	// order of ids.
	Verdicts(ctx context.Context, house string, ids []string) ([]Verdict, error)
	// AnswerVerdict upserts the frame's feedback row (agrees, rating, note
	// only); NOT_FOUND when the job has no verdict.
	AnswerVerdict(ctx context.Context, house, user, jobID string, a Label, at time.Time) error

	// ClaimJudging leases the oldest due frame waiting for a verdict.
	ClaimJudging(ctx context.Context, worker string, now, leaseUntil time.Time) (Task, bool, error)
	// WriteVerdict writes the verdict and ends the frame's task, in one
	// transaction; written is false when the job had its verdict already
	// (one verdict per job, ever).
	WriteVerdict(ctx context.Context, v Verdict) (written bool, err error)
	// DeferJudging hands a task back to wait until notBefore.
	DeferJudging(ctx context.Context, t Task, worker string, notBefore time.Time, reason string) error

	Job(ctx context.Context, house, id string) (job.Job, error)
	Jobs(ctx context.Context, house string, ids []string) ([]job.Job, error)
	JobsCreatedSince(ctx context.Context, house string, after time.Time) ([]job.Job, error)
	// FrameKey is the blob key of an asset of the house, deleted or not.
	FrameKey(ctx context.Context, house, assetID string) (string, error)
	InputKeys(ctx context.Context, house string, inputs []job.Input) ([]string, error)

	NoteStore
	TakeStore
	OpinionStore
}

// Looker is a judge that reads a frame in depth: the vision judge.
type Looker interface {
	Look(ctx context.Context, f Frame, local Reading) (Reading, error)
	Name() string
}

// Options tune the service.
type Options struct {
	Threshold int           // flagged below this score (default 70)
	Lease     time.Duration // how long a judging claim lasts (default 5 min)
	// VisionAttempts is how many claims a frame gets while the vision
	// judge fails (not counting answers outside the schema, which fall
	// back at once) before the local verdict stands (default 3).
	VisionAttempts int
	// Decoding is the process's memory for decoded images: a frame and
	// its source take what their pixels and the judge's planes need before
	// they are decoded (1 GiB of its own when nil).
	Decoding *imagemem.Budget
	// Calls keeps what a vision look that failed asked of the AI endpoint
	// (a verdict stores its own look's cost); nil records nothing.
	Calls ai.CallLog
	Now   func() time.Time
	Log   *slog.Logger
}

// Service runs the judge's use cases: reading and answering verdicts,
// redraws, takes, standing notes, opinions, and the judging step.
type Service struct {
	store  Store
	jobs   *job.Service
	blobs  blob.Store
	vision Looker // nil: the local judge alone
	prices ledger.Prices
	opts   Options
}

// NewService returns the judge. vision may be nil.
func NewService(store Store, jobs *job.Service, blobs blob.Store, vision Looker, prices ledger.Prices, opts Options) *Service {
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.Lease <= 0 {
		opts.Lease = 5 * time.Minute
	}
	if opts.VisionAttempts <= 0 {
		opts.VisionAttempts = 3
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Decoding == nil {
		opts.Decoding = imagemem.New(0)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if vision != nil && isNil(vision) {
		vision = nil
	}
	return &Service{store: store, jobs: jobs, blobs: blobs, vision: vision, prices: prices, opts: opts}
}

func isNil(l Looker) bool {
	v, ok := l.(*Vision)
	return ok && v == nil
}

func (s *Service) now() time.Time { return s.opts.Now() }

// MaxBatch is the most job ids one verdicts read takes; extras are ignored.
const MaxBatch = 50

// Codes of the verdict routes.
var (
	ErrJobIDsRequired   = errs.Msg(errs.JobIDsRequired, "Name at least one job id.")
	ErrJobIDRequired    = errs.New(errs.KindInvalid, "JOB_ID_REQUIRED", "Name the frame to redraw.")
	ErrAgreesRequired   = errs.New(errs.KindInvalid, "AGREES_REQUIRED", "agrees is required: true or false.")
	ErrRatingOutOfRange = errs.New(errs.KindInvalid, "RATING_OUT_OF_RANGE", "rating is a whole number from 1 to 5, or null.")
	ErrNotDeveloped     = errs.New(errs.KindConflict, "NOT_DEVELOPED", "The frame is not developed yet.")
	ErrRedrawRefused    = errs.New(errs.KindConflict, "REDRAW_REFUSED", "A redraw cannot mend this frame, so none is charged.")
	// ErrDirectionUnsupported refuses, before any hold, a take whose
	// direction the serving engine cannot follow; it carries legal.
	ErrDirectionUnsupported = errs.New(errs.KindUnprocessable, "DIRECTION_UNSUPPORTED", "The engine cannot follow that direction.")
	errNoteTooLong          = errs.Msg(errs.BadBody, "note is at most 2000 characters.")
)

// Verdict returns one verdict of the caller's house.
func (s *Service) Verdict(ctx context.Context, p auth.Principal, jobID string) (Verdict, error) {
	return s.store.Verdict(ctx, p.HouseID, jobID)
}

// Verdicts returns the verdicts of up to MaxBatch job ids (extras are
// ignored, repeats counted once); frames without a verdict, foreign ones
// included, are absent.
func (s *Service) Verdicts(ctx context.Context, p auth.Principal, ids []string) ([]Verdict, error) {
	var clean []string
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(clean, id) {
			clean = append(clean, id)
		}
	}
	if len(clean) == 0 {
		return nil, ErrJobIDsRequired
	}
	clean = clean[:min(len(clean), MaxBatch)]
	return s.store.Verdicts(ctx, p.HouseID, validIDs(clean))
}

// validIDs keeps the well-formed ids: any other can name no row.
func validIDs(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if _, err := uuid.Parse(id); err == nil && len(id) == 36 {
			out = append(out, strings.ToLower(id))
		}
	}
	return out
}

// Label is a house's answer to a verdict, as the label route takes and
// answers it.
type Label struct {
	JobID  string  `json:"jobId"`
	Agrees bool    `json:"agrees"`
	Rating *int    `json:"rating" minimum:"1" maximum:"5"`
	Note   *string `json:"note"`
}

// LabelRequest is the body of POST .../verdicts/{jobId}/label.
type LabelRequest struct {
	Agrees *bool   `json:"agrees" required:"true"`
	Rating *int    `json:"rating,omitempty" minimum:"1" maximum:"5" description:"1 to 5 or null; refused outside, never clamped."`
	Note   *string `json:"note,omitempty" description:"Trimmed; empty is stored as null."`
}

// MaxAnswerNote is the longest note an answer keeps, in characters.
const MaxAnswerNote = 2000

// Answer records the house's answer to a verdict: the last answer wins.
func (s *Service) Answer(ctx context.Context, p auth.Principal, jobID string, in LabelRequest) (Label, error) {
	if err := p.MayEdit(); err != nil {
		return Label{}, err
	}
	if in.Agrees == nil {
		return Label{}, ErrAgreesRequired
	}
	if in.Rating != nil && (*in.Rating < 1 || *in.Rating > 5) {
		return Label{}, ErrRatingOutOfRange
	}
	l := Label{JobID: jobID, Agrees: *in.Agrees, Rating: in.Rating}
	if in.Note != nil {
		if n := strings.TrimSpace(*in.Note); n != "" {
			if len([]rune(n)) > MaxAnswerNote {
				return Label{}, errNoteTooLong
			}
			l.Note = &n
		}
	}
	if err := s.store.AnswerVerdict(ctx, p.HouseID, p.UserID, jobID, l, s.now()); err != nil {
		return Label{}, err
	}
	return l, nil
}

// JudgeNext claims one frame waiting for its verdict and judges it; it
// reports false when none was due. A frame that cannot be read now (its
// bytes missing, the vision judge down) waits and is tried again; one that
// cannot be decoded is unreadable at once.
func (s *Service) JudgeNext(ctx context.Context, worker string) (bool, error) {
	now := s.now()
	t, ok, err := s.store.ClaimJudging(ctx, worker, now, now.Add(s.opts.Lease))
	if err != nil || !ok {
		return false, err
	}
	v, err := s.judge(ctx, t)
	if err != nil {
		wait := backoff(t.Attempts)
		s.opts.Log.Warn("judging deferred", "job", t.JobID, "house", t.HouseID, "attempt", t.Attempts, "wait", wait, "err", err)
		return true, s.store.DeferJudging(ctx, t, worker, s.now().Add(wait), err.Error())
	}
	written, err := s.store.WriteVerdict(ctx, v)
	if err != nil {
		return true, err
	}
	if written {
		s.consider(ctx, t.HouseID, t.JobID)
	}
	return true, nil
}

// backoff is how long a frame waits after a failed attempt: 30 s, 2 min,
// 8 min, ... at most 6 hours.
func backoff(attempts int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempts && d < 6*time.Hour; i++ {
		d *= 4
	}
	return min(d, 6*time.Hour)
}

// judge reads a frame and writes its verdict. The local judge always
// looks; the vision judge, when configured, looks after it and its
// findings join the local ones. An answer outside the schema (asked again
// once by the client) or a provider out of credit leaves the local
// verdict standing at once; other failures are tried again, and after
// VisionAttempts claims the local verdict stands.
func (s *Service) judge(ctx context.Context, t Task) (Verdict, error) {
	j, err := s.store.Job(ctx, t.HouseID, t.JobID)
	if err != nil {
		return Verdict{}, fmt.Errorf("job: %w", err)
	}
	if j.ResultAssetID == "" {
		return Verdict{}, errors.New("the job has no frame")
	}
	key, err := s.store.FrameKey(ctx, t.HouseID, j.ResultAssetID)
	if err != nil {
		return Verdict{}, fmt.Errorf("frame: %w", err)
	}
	data, err := s.read(ctx, key)
	if err != nil {
		return Verdict{}, fmt.Errorf("frame bytes: %w", err)
	}
	f := Frame{Tool: j.Tool, Tier: j.Tier, Params: j.Params, Data: data, Source: s.source(ctx, j, "image", "model"),
		Garment: s.source(ctx, j, "garment", "item"), Scene: s.source(ctx, j, "background")}
	if s.jobs != nil {
		f.Note = s.jobs.EngineNote(j.Tool)
	}
	// Judging an image takes its decoded pixels and the planes the local
	// judge reads (luma and its pyramid), about 12 bytes a pixel beside them;
	// bytes that do not decode cost nothing (Look finds them unreadable).
	release, err := s.opts.Decoding.Acquire(ctx, picture.Cost(f.Data, 12)+picture.Cost(f.Source, 12)+picture.Cost(f.Garment, 12)+picture.Cost(f.Scene, 12))
	if errors.Is(err, imagemem.ErrOverBudget) {
		return Write(t.HouseID, t.JobID, Reading{Judge: JudgePixels, Unreadable: true,
			Note: "The frame needs more memory to decode than this server allows."}, s.opts.Threshold, s.now()), nil
	}
	if err != nil {
		return Verdict{}, err
	}
	defer release()
	local := Local{}.Look(ctx, f)
	r := local
	if s.vision != nil && !local.Unreadable {
		meter := &ai.Meter{}
		seen, err := s.vision.Look(ai.WithMeter(ctx, meter), f, local)
		if err != nil {
			s.recordFailedLook(ctx, j, meter.Usage())
		}
		switch {
		case err == nil:
			// The vision judge sees more, but a proof stays a proof.
			seen.Cap = local.Cap
			r = seen
		case errors.Is(err, errOutsideSchema), errors.Is(err, errNoCredit):
			r.Note = local.Note + "; " + s.vision.Name() + " judge: " + err.Error() + ", so the local verdict stands"
		case t.Attempts < s.opts.VisionAttempts:
			return Verdict{}, fmt.Errorf("vision judge: %w", err)
		default:
			r.Note = local.Note + "; " + s.vision.Name() + " judge failed " + fmt.Sprint(t.Attempts) + " times, so the local verdict stands: " + err.Error()
		}
	}
	v := Write(t.HouseID, t.JobID, r, s.opts.Threshold, s.now())
	if !v.Unreadable && s.jobs != nil && s.jobs.Literal(j.Tool) && mend(v) == "" {
		// The engine renders the same frame from the same inputs: a
		// redraw could change nothing the verdict found (DECISIONS §11).
		v.RetryFutile = true
	}
	return v, nil
}

// recordFailedLook keeps what a vision look that failed asked of the AI
// endpoint (a provider bills a bad answer too), under the judge's name in
// the operators' costs; a look that asked nothing records nothing.
func (s *Service) recordFailedLook(ctx context.Context, j job.Job, u ai.Usage) {
	if s.opts.Calls == nil || u.Attempts == 0 {
		return
	}
	c := ai.Call{ID: uuid.Must(uuid.NewV7()).String(), UserID: j.UserID, Lane: "judge", Usage: u, At: s.now()}
	if err := s.opts.Calls.RecordAICall(context.WithoutCancel(ctx), j.HouseID, c); err != nil {
		s.opts.Log.ErrorContext(ctx, "record a failed vision look's AI call", "job", j.ID, "err", err)
	}
}

// source reads the job's first input in the first of roles it has, or nil.
func (s *Service) source(ctx context.Context, j job.Job, roles ...string) []byte {
	for _, role := range roles {
		for _, in := range j.Inputs {
			if in.Role != role {
				continue
			}
			keys, err := s.store.InputKeys(ctx, j.HouseID, []job.Input{in})
			if err != nil {
				return nil
			}
			data, err := s.read(ctx, keys[0])
			if err != nil {
				return nil
			}
			return data
		}
	}
	return nil
}

func (s *Service) read(ctx context.Context, key string) ([]byte, error) {
	obj, err := s.blobs.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	return io.ReadAll(obj)
}
