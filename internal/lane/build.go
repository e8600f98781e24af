package lane

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/errs"
)

// ErrNoFigure refuses extract-build's picture when it holds no full-length
// figure the engine can separate (DECISIONS §11); the hold is voided.
var ErrNoFigure = errs.Msg(errs.NoFigure,
	"No full-length figure could be found in the picture: the whole person, head to feet, standing on a plain background, is needed.")

// ExtractBuildRequest is the body of extract-build.
type ExtractBuildRequest struct {
	AssetID string `json:"assetId" required:"true" description:"The house's asset: a full-length photograph of the model, head to feet, on a plain background."`
}

// Proportions are a build's proportions, shares of the figure as the
// picture shows it.
type Proportions struct {
	ShoulderToHip float64 `json:"shoulderToHip" description:"The width across the shoulders (arms that touch the body included) over the width across the hips."`
	LegToHeight   float64 `json:"legToHeight" description:"The inside leg, from the legs' parting to the soles, over the figure's height."`
	HeadToHeight  float64 `json:"headToHeight" description:"The head, crown to neck, over the figure's height."`
}

// Body is a model's build as extract-build reads it: what a casting
// board keeps as the model's traits.
type Body struct {
	Proportions Proportions `json:"proportions"`
	Silhouette  string      `json:"silhouette" enum:"hourglass,inverted-triangle,triangle,rectangle" description:"The outline's shape, by the widths of shoulders, waist and hips."`
	Posture     string      `json:"posture" description:"How the figure stands."`
	HeightCm    *int        `json:"heightCm,omitempty" description:"The height the vision endpoint reads, in centimetres; absent without it (a picture has no scale)."`
}

// Extracted is what extract-build answers.
type Extracted struct {
	Build      Body    `json:"build"`
	Confidence float64 `json:"confidence" description:"0 to 1: the figure's separation, lowered when the legs' parting cannot be seen."`
	Engine     string  `json:"engine" enum:"local,local+vision" description:"What read the build: the local engine's silhouette, and the vision endpoint when it added the height."`
	// Traits are the build in the casting board's words, ready to store.
	Traits Traits `json:"traits" description:"The build as a model's traits: send them as PATCH /api/toolkit/models/{id} {traits} to keep them."`
	Spent  int64  `json:"spent" description:"Tokens charged."`
}

// Traits are a build as the casting board's traits (casting.Traits):
// plain sentences of at most 200 characters.
type Traits struct {
	Build   string `json:"build"`
	Posture string `json:"posture"`
	Height  string `json:"height,omitempty"`
}

// traits words a build for the casting board.
func (b Body) traits() Traits {
	p := b.Proportions
	t := Traits{Posture: b.Posture, Build: fmt.Sprintf("%s silhouette; shoulders %.2f of the hips; legs %.2f and head %.2f of the height",
		b.Silhouette, p.ShoulderToHip, p.LegToHeight, p.HeadToHeight)}
	if b.HeightCm != nil {
		t.Height = fmt.Sprintf("%d cm", *b.HeightCm)
	}
	return t
}

var bodySchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"fullLength": map[string]any{"type": "boolean"},
		"heightCm":   map[string]any{"type": "number"},
	},
	"required":             []string{"fullLength", "heightCm"},
	"additionalProperties": false,
}

const bodyPrompt = `You read a fashion model's height from a full-length photograph, for a casting sheet.
fullLength is true only when one whole person, head to feet, is visible.
heightCm is your best estimate of the person's standing height in centimetres from the proportions and any scale in the picture, or 0 when you cannot tell.`

// The heights a vision reading may answer; anything else is not kept.
const minHeightCm, maxHeightCm = 120, 220

// ExtractBuild reads the build of the full-length figure in one of the
// house's pictures: its proportions from the figure's silhouette as the
// local engine separates it (no centimetres), and the height the vision
// endpoint reads when it is set. The lane's price is held first; a picture
// without a full-length figure is 422 NO_FIGURE with the hold voided.
func (s *Service) ExtractBuild(ctx context.Context, p auth.Principal, in ExtractBuildRequest) (Extracted, error) {
	if err := p.MaySpend(); err != nil {
		return Extracted{}, err
	}
	id := strings.TrimSpace(in.AssetID)
	if id == "" {
		return Extracted{}, errs.AssetRequired
	}
	if !uuidLike.MatchString(id) {
		return Extracted{}, errs.AssetNotFound
	}
	if s.opts.Builds == nil {
		return Extracted{}, errors.New("lane: extract-build has no build reader")
	}
	im, err := s.ImageAt(ctx, p, id)
	if err != nil {
		return Extracted{}, err
	}
	var out Extracted
	spent, err := s.charge(ctx, p, "extract-build", s.price("extract-build"), func(ctx context.Context, _ string) (bool, error) {
		img, done, err := s.upright(ctx, im)
		if err != nil {
			return false, err
		}
		b, err := s.opts.Builds.ReadBuild(img)
		done()
		if e, ok := errors.AsType[*engine.Error](err); ok && e.Fault == engine.FaultInput {
			return false, errs.Wrap(errs.Msg(ErrNoFigure, e.Reason), err)
		}
		if err != nil {
			return false, err
		}
		out = Extracted{Confidence: b.Confidence, Engine: "local", Build: Body{
			Proportions: Proportions{ShoulderToHip: b.ShoulderToHip, LegToHeight: b.LegToHeight, HeadToHeight: b.HeadToHeight},
			Silhouette:  b.Silhouette, Posture: b.Posture,
		}}
		if cm, ok := s.readHeight(ctx, im); ok {
			out.Build.HeightCm, out.Engine = &cm, "local+vision"
		}
		out.Traits = out.Build.traits()
		return false, nil
	})
	out.Spent = spent
	return out, err
}

// readHeight asks the vision endpoint, when it is set, for the figure's
// height. The build stands on the silhouette alone: an endpoint that
// fails, does not see the whole figure or answers an implausible height
// adds nothing.
func (s *Service) readHeight(ctx context.Context, im Image) (int, bool) {
	if s.configured() != nil {
		return 0, false
	}
	preview, err := s.preview(ctx, im, VisionEdge, false)
	if err != nil {
		return 0, false
	}
	var ans struct {
		FullLength bool
		HeightCm   float64
	}
	if _, err := s.opts.AI.JSON(ctx, ai.Request{System: bodyPrompt, User: "How tall is the person in this photograph?",
		Images: [][]byte{preview}, Schema: bodySchema, SchemaName: "build", MaxTokens: visionMaxToken}, &ans); err != nil {
		s.log.WarnContext(ctx, "extract-build: the vision reading failed; the build stands on the silhouette", "err", err)
		return 0, false
	}
	cm := int(math.Round(ans.HeightCm))
	if !ans.FullLength || cm < minHeightCm || cm > maxHeightCm {
		return 0, false
	}
	return cm, true
}
