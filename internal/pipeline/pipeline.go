// Package pipeline chains tools: a plan is an ordered list of steps (a tool,
// its tier and options), saved as a house's preset or sent inline, priced
// over a set of assets without holding anything (preview), and run: every
// planned frame (steps x assets) is held up front in one transaction, the
// first step's develops are queued, and each landed frame is fed to the
// next step by the store in the transaction that settles it, so the chain
// survives a restart and advances exactly once (sqlstore/pipeline.go).
package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
	"studio/internal/ts"
)

// MaxSteps is the most steps a plan has.
const MaxSteps = 6

// MaxAssets is the most assets one preview or run takes.
const MaxAssets = 50

// MaxName is the longest preset name, in characters.
const MaxName = 120

// Step is one tool of a plan.
type Step struct {
	Tool    string            `json:"tool" description:"A develop tool that takes one image (see the billing catalog)."`
	Quality ledger.Tier       `json:"quality" enum:"1k,2k,4k" description:"The step's tier: its pixels and its price. Default 1k."`
	Options map[string]string `json:"options" description:"The tool's options, checked as submit checks them (BAD_OPTION)."`
}

// Preset is a saved plan of the house.
type Preset struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	Steps           []Step  `json:"steps"`
	CreatedByUserID *string `json:"createdByUserId"`
	CreatedAt       ts.Time `json:"createdAt"`
	UpdatedAt       ts.Time `json:"updatedAt"`
	HouseID         string  `json:"-"`
}

// PresetRequest creates a preset or replaces one whole.
type PresetRequest struct {
	Name  string `json:"name" description:"Required; unique in the house."`
	Steps []Step `json:"steps" description:"The plan, in order; 1 to 6 steps."`
}

// PlanRequest names a plan and the assets it runs over: the steps inline
// or a preset by id (one of the two).
type PlanRequest struct {
	Steps          []Step   `json:"steps,omitempty" description:"The plan inline; or presetId."`
	PresetID       string   `json:"presetId,omitempty" description:"A preset of the house; or steps."`
	AssetIDs       []string `json:"assetIds" description:"The house's assets, each fed to the first step; 1 to 50."`
	IdempotencyKey string   `json:"idempotencyKey,omitempty" description:"Run only: the same key returns the same run with no second hold."`
}

// Codes raised by pipelines.
var (
	ErrStepsRequired = errs.New(errs.KindInvalid, "STEPS_REQUIRED", "A plan needs at least one step: send steps or a presetId.")
	ErrTooManySteps  = errs.With(errs.New(errs.KindInvalid, "TOO_MANY_STEPS", fmt.Sprintf("A plan has at most %d steps.", MaxSteps)), "max", MaxSteps)
	ErrBadStep       = errs.New(errs.KindInvalid, "BAD_STEP", "A step cannot take what the step before it makes.")
	ErrPlanTwice     = errs.Msg(errs.BadBody, "Send steps or a presetId, not both.")
	ErrTooManyAssets = errs.With(errs.New(errs.KindInvalid, "TOO_MANY_ASSETS", fmt.Sprintf("A pipeline runs over at most %d assets.", MaxAssets)), "max", MaxAssets)
	ErrNameTaken     = errs.New(errs.KindConflict, "NAME_TAKEN", "The house already has a preset of that name.")
	ErrNameRequired  = errs.Msg(errs.NameRequired, "A preset needs a name.")
	ErrNameTooLong   = errs.Msg(errs.BadBody, fmt.Sprintf("A preset's name is at most %d characters.", MaxName))
	ErrAssetNotFound = errs.Msg(errs.AssetNotFound, "An asset is not one of this house's.")
)

// makesVideo reports whether the tool makes a video, which no step takes.
func makesVideo(name string) bool {
	t, _ := tool.Get(name)
	return t.Video
}

// reservedOptions are names a step's options never carry: the submit's
// reserved fields, the run's own runId and the refused output.
var reservedOptions = append(slices.Clone(job.Reserved), "runId", "output")

// Check validates a plan against the tools' declarations and returns it
// normalised (tier defaulted, options trimmed, reserved names dropped):
// an unknown tool is UNKNOWN_TOOL, a bad tier BAD_QUALITY, a bad option
// BAD_OPTION (each with the step's index); a tool that needs more than one
// image, or that follows a step making a video, is BAD_STEP.
func Check(steps []Step) ([]Step, error) {
	if len(steps) == 0 {
		return nil, ErrStepsRequired
	}
	if len(steps) > MaxSteps {
		return nil, ErrTooManySteps
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		at := func(e *errs.Error) error { return errs.With(e, "step", i) }
		t, ok := tool.Get(s.Tool)
		if !ok || !t.Submit {
			return nil, errs.With(job.ErrUnknownTool, "legal", tool.SubmitTools(), "step", i)
		}
		if s.Quality == "" {
			s.Quality = ledger.Tier1K
		}
		if !s.Quality.Valid() {
			return nil, at(job.ErrBadQuality)
		}
		if !t.Takes("image") || len(t.Required()) > 1 {
			return nil, at(errs.Msg(ErrBadStep, fmt.Sprintf("Step %d: %s needs %s, and a pipeline feeds each step one image.",
				i+1, s.Tool, strings.Join(t.Required(), " and "))))
		}
		if i > 0 && makesVideo(steps[i-1].Tool) {
			return nil, at(errs.Msg(ErrBadStep, fmt.Sprintf("Step %d: %s makes a video, which %s cannot take; a video can only be the last step.",
				i, steps[i-1].Tool, s.Tool)))
		}
		opts := make(map[string]string, len(s.Options))
		for k, v := range s.Options {
			if slices.Contains(reservedOptions, k) {
				continue
			}
			opts[k] = strings.TrimSpace(v)
		}
		if err := job.CheckOptions(s.Tool, opts, []job.Input{{Role: "image"}}); err != nil {
			e, _ := errs.As(err)
			if e != nil && e.Code == job.ErrNoInputs.Code {
				return nil, at(errs.Msg(ErrBadStep, fmt.Sprintf("Step %d: %s with these options needs a second input, and a pipeline feeds each step one image.", i+1, s.Tool)))
			}
			if e != nil {
				return nil, at(e)
			}
			return nil, err
		}
		out[i] = Step{Tool: s.Tool, Quality: s.Quality, Options: opts}
	}
	return out, nil
}

// params is what a step's develop carries: its options and the run's id,
// which groups the run's frames into one develop run (SPEC §2).
func (s Step) params(runID string) map[string]string {
	p := maps.Clone(s.Options)
	if p == nil {
		p = map[string]string{}
	}
	p["runId"] = runID
	return p
}

// fingerprint identifies a run request for idempotency.
func fingerprint(steps []Step, assets []string) string {
	b, _ := json.Marshal(struct {
		S []Step
		A []string
	}{steps, assets})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
