// Package lane runs the AI lanes of SPEC §4.9: the vision reads
// (describe-item, detect-items, extract-character, face-features), the text
// tools (inspiration-keywords, midjourney-prompts, prompt-builder,
// prompt-enhancer) and the image lanes (depth, segment, remove-background).
//
// Every lane runs the same way: a viewer is refused (403) first (auth's
// MaySpend; the HTTP layer asks it before it reads an upload); the input
// is checked (400, 413); the provider is checked (503 AI_NOT_CONFIGURED or
// FAL_NOT_CONFIGURED); the lane's price is held (402
// INSUFFICIENT_TOKENS with need, spendable and held); the provider is asked;
// the hold is posted when the answer is delivered and voided on any
// failure, so a failed call charges nothing. Prices are the live table's
// flat lanes and text tools (DECISIONS §4: 1 token each) and the
// remove-background tool's price.
//
// Vision and text lanes ask the OpenAI-compatible endpoint (internal/ai)
// for answers in a strict JSON schema; an answer outside it is 502
// AI_BAD_OUTPUT, a provider out of credit 402 AI_NEEDS_BILLING. describe-item
// is the upload's classify=1 reader (asset.Classifier), its name cut to 40
// characters. detect-items shows the model the raw pixel matrix (no EXIF
// orientation applied), so its boxes are in that matrix, as SPEC says.
//
// Image lanes: fal when FAL_KEY is set (depth and segment by the models of
// FalModels; remove-background by the fal engine's own model); otherwise the
// local engine serves segment (a box or a point seeding the subject
// separation of engine/segment) and remove-background when the separation is
// confident, and answers 503 FAL_NOT_CONFIGURED when it is not (and always
// for depth, and for a segment named by label alone). depth and segment
// answer their picture as a data: URL (PNG) and keep nothing;
// remove-background stores its cut-out as an asset of the house (tool
// remove-background, root folder), posted with the hold in one transaction.
package lane

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/engine"
	"studio/internal/errs"
	"studio/internal/imagemem"
	"studio/internal/ledger"
)

// Ledger is what the lanes need of the token ledger.
type Ledger interface {
	TakeHold(ctx context.Context, house string, h ledger.Hold) error
	PostHold(ctx context.Context, house, holdID string) error
	VoidHold(ctx context.Context, house, holdID string) error
}

// Assets is what the lanes need of the library: an image named by the
// house's asset id, and a cut-out stored as a new asset.
type Assets interface {
	File(ctx context.Context, p auth.Principal, id string) (asset.File, error)
	Open(ctx context.Context, f asset.File) (blob.Object, error)
	StoreResult(ctx context.Context, p auth.Principal, r asset.Result) (asset.Asset, error)
}

// Fal runs one model of fal's queue and returns the bytes of its output
// image (fal.Engine.Model).
type Fal interface {
	Model(ctx context.Context, tool, model string, input map[string]any) ([]byte, error)
}

// Endpoint is what the vision and text lanes ask of the AI endpoint
// (package ai/openai implements it): whether it is set, and questions with
// JSON answers. It is also describe-item's reader's (asset.Endpoint).
type Endpoint interface {
	Configured() bool
	JSON(ctx context.Context, req ai.Request, out any) (ai.Usage, error)
}

// Options configure the service.
type Options struct {
	Ledger Ledger
	Prices ledger.Prices
	AI     Endpoint           // vision and text lanes; nil or unconfigured answers AI_NOT_CONFIGURED
	Reader asset.Classifier   // describe-item's reader, the upload's classify=1 one; nil: built on AI
	Assets Assets             // images named by id, and remove-background's cut-out
	Fal    Fal                // nil when FAL_KEY is unset
	Engine engine.Engine      // remove-background: the develop engines (fal first when set, then local)
	Builds engine.BuildReader // extract-build: the local engine, which reads a figure's silhouette
	Models map[string]string  // fal models of depth and segment; FalModels when nil
	Calls  ai.CallLog         // where each call's usage is recorded; nil records nothing
	Now    func() time.Time   // time.Now when nil
	// Decoding bounds decoded pixels, shared by the process; 1 GiB of its own when nil.
	Decoding *imagemem.Budget
	Timeout  time.Duration // one provider call; 2 minutes when zero
	Log      *slog.Logger
}

// FalModels are the fal models of the image lanes fal serves beyond the
// develop tools (remove-background is the engine's own).
var FalModels = map[string]string{
	"depth":   "fal-ai/imageutils/depth",
	"segment": "fal-ai/sam2/image",
}

// Service runs the lanes.
type Service struct {
	opts Options
	log  *slog.Logger
}

// NewService returns the lanes' service.
func NewService(opts Options) *Service {
	if opts.Reader == nil && opts.AI != nil {
		opts.Reader = &asset.VisionClassifier{AI: opts.AI}
	}
	if opts.Models == nil {
		opts.Models = FalModels
	}
	if opts.Decoding == nil {
		opts.Decoding = imagemem.New(0)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{opts: opts, log: opts.Log}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Codes of the lanes. IMAGE_REQUIRED, EMPTY_IMAGE and NO_IMAGE are shared
// (internal/errs), as is FAL_NOT_CONFIGURED.
var (
	ErrTargetRequired      = errs.Msg(errs.TargetRequired, "Name what to cut out: a label, a box [x0, y0, x1, y1] or a point [x, y].")
	ErrDepthFailed         = errs.New(errs.KindUpstream, "DEPTH_FAILED", "The depth map could not be made.")
	ErrSegmentFailed       = errs.New(errs.KindUpstream, "SEGMENT_FAILED", "The cut-out could not be made.")
	ErrRemoveBgFailed      = errs.New(errs.KindUpstream, "REMOVE_BG_FAILED", "The background could not be removed.")
	ErrVibeRequired        = errs.New(errs.KindInvalid, "VIBE_REQUIRED", "vibe is required.")
	ErrDescriptionRequired = errs.New(errs.KindInvalid, "DESCRIPTION_REQUIRED", "description is required.")
	ErrSubjectRequired     = errs.New(errs.KindInvalid, "SUBJECT_REQUIRED", "subject is required.")
	ErrPromptRequired      = errs.New(errs.KindInvalid, "PROMPT_REQUIRED", "prompt is required.")
)

// price is a lane's price in the live table: a flat lane or text tool, or
// (remove-background) the tool's 1k price.
func (s *Service) price(lane string) int64 {
	if n, ok := s.opts.Prices.Flat(lane); ok {
		return n
	}
	return s.opts.Prices.Tool(lane, ledger.Tier1K)
}

// charge holds price for the lane, runs call, and posts the hold when call
// succeeds and post is true (a result stored with its hold posts it itself)
// or voids it on any failure. It answers what was spent. The hold names
// the lane (its workflow); what the AI endpoint was asked during call is
// metered and recorded, delivered or not.
func (s *Service) charge(ctx context.Context, p auth.Principal, lane string, price int64, call func(ctx context.Context, hold string) (posted bool, err error)) (int64, error) {
	h := ledger.NewHold("", price)
	// The hold waits for this call, which ends by the timeout: past that
	// (and a margin) the holds' sweep voids it, as it does at once when
	// this process dies (sweep.Holds).
	h.UserID, h.Workflow, h.Until = p.UserID, lane, s.opts.Now().Add(s.opts.Timeout+HoldMargin)
	if err := s.opts.Ledger.TakeHold(ctx, p.HouseID, h); err != nil {
		return 0, err
	}
	bg := context.WithoutCancel(ctx)
	cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	meter := &ai.Meter{}
	posted, err := s.safely(ai.WithMeter(cctx, meter), lane, h.ID, call)
	s.record(bg, p, lane, meter.Usage(), err == nil)
	if errors.Is(err, ledger.ErrHoldResolved) {
		return 0, s.late(ctx, lane, h.ID, err) // a result stored with its hold found it voided
	}
	if err != nil {
		if !posted {
			if verr := s.opts.Ledger.VoidHold(bg, p.HouseID, h.ID); verr != nil && !errors.Is(verr, ledger.ErrHoldResolved) {
				s.log.ErrorContext(ctx, "void the hold of a failed lane", "lane", lane, "hold", h.ID, "err", verr)
			}
		}
		return 0, err
	}
	if !posted {
		if err := s.opts.Ledger.PostHold(bg, p.HouseID, h.ID); errors.Is(err, ledger.ErrHoldResolved) {
			return 0, s.late(ctx, lane, h.ID, err)
		} else if err != nil {
			return 0, err
		}
	}
	return price, nil
}

// HoldMargin is how long past its call's timeout a lane's hold waits.
const HoldMargin = 30 * time.Second

// late is a lane's answer when its hold was voided before its call
// answered (the holds' sweep judged the call could no longer finish): the
// answer is dropped and nothing charged, as for the lane's own failure.
func (s *Service) late(ctx context.Context, lane, hold string, cause error) error {
	s.log.WarnContext(ctx, "a lane answered after its hold was voided: dropped, not charged", "lane", lane, "hold", hold)
	const msg = "The call answered after its hold was released; its answer was dropped and nothing was charged. Try again."
	fail := ai.ErrFailed
	switch lane {
	case "depth":
		fail = ErrDepthFailed
	case "segment":
		fail = ErrSegmentFailed
	case "remove-background":
		fail = ErrRemoveBgFailed
	}
	return errs.Wrap(errs.Msg(fail, msg), cause)
}

// record keeps what the AI endpoint was asked during a lane's call; a
// call that asked nothing (an image lane, a refusal before the provider)
// records nothing, and a failure to record is logged, never answered.
func (s *Service) record(ctx context.Context, p auth.Principal, lane string, u ai.Usage, ok bool) {
	if s.opts.Calls == nil || u.Attempts == 0 {
		return
	}
	c := ai.Call{ID: uuid.Must(uuid.NewV7()).String(), UserID: p.UserID, Lane: lane, Usage: u, OK: ok, At: s.opts.Now()}
	if err := s.opts.Calls.RecordAICall(ctx, p.HouseID, c); err != nil {
		s.log.ErrorContext(ctx, "record a lane's AI call", "lane", lane, "err", err)
	}
}

// safely runs call, turning a panic in image code into an error.
func (s *Service) safely(ctx context.Context, lane, hold string, call func(context.Context, string) (bool, error)) (posted bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(ctx, "lane panicked", "lane", lane, "panic", r)
			posted, err = false, errs.Internal
		}
	}()
	return call(ctx, hold)
}
