package look

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
)

// maxPlanAssets caps the pieces a plan reads.
const maxPlanAssets = 200

// PlanRequest is the body of POST /api/toolkit/factory/plan.
type PlanRequest struct {
	AssetIDs []string `json:"assetIds" required:"true"`
	Quality  string   `json:"quality,omitempty" enum:"1k,2k,4k"`
}

// ProposedLook is a look the factory would make.
type ProposedLook struct {
	Name          string     `json:"name"`
	ModelAssetID  *string    `json:"modelAssetId"`
	Items         []Item     `json:"itemAssetIds"`
	Background    Background `json:"background"`
	VariationKeys []string   `json:"variationKeys"`
}

// Cost is what a factory batch would hold, frame by frame.
type Cost struct {
	PerFrame      int64       `json:"perFrame" description:"Tokens one frame holds at the quality (the default destination needs no restoration)."`
	FramesPerLook int         `json:"framesPerLook" description:"The lock develop plus one frame per variation key."`
	Frames        int         `json:"frames"`
	Total         int64       `json:"total"`
	Quality       ledger.Tier `json:"quality" enum:"1k,2k,4k"`
}

// Plan is the factory's proposal; it reads only.
type Plan struct {
	Preset     StandingPreset `json:"preset"`
	Looks      []ProposedLook `json:"looks"`
	Truncated  bool           `json:"truncated" description:"True when the pieces made more than 20 looks; the rest are left out."`
	ModelReady bool           `json:"modelReady" description:"True when a model is known: among the assets or in the preset."`
	Cost       Cost           `json:"cost"`
	Balance    int64          `json:"balance" description:"The house's spendable tokens now."`
}

// roleOfKind is the role a piece of a kind plays in a proposed look.
var roleOfKind = map[string]string{"clothes": "top", "accessory": "accessory", "jewelry": "jewelry"}

// Plan proposes looks from pieces with the standing preset: each garment
// leads a look as its hero, with the accessories and jewelry (up to six
// pieces in all); without garments each piece leads its own look. A model
// among the assets casts every look; a background among them grounds them.
func (s *Service) Plan(ctx context.Context, p auth.Principal, in PlanRequest) (Plan, error) {
	if len(in.AssetIDs) == 0 {
		return Plan{}, ErrAssetsRequired
	}
	if len(in.AssetIDs) > maxPlanAssets {
		return Plan{}, errs.Msg(errs.BadBody, "A plan reads at most 200 assets.")
	}
	tier, err := parseTier(in.Quality)
	if err != nil {
		return Plan{}, err
	}
	preset, err := s.Preset(ctx, p)
	if err != nil {
		return Plan{}, err
	}
	if in.Quality == "" {
		tier = preset.Quality
	}
	found, err := s.store.Pieces(ctx, p.HouseID, in.AssetIDs)
	if err != nil {
		return Plan{}, err
	}
	model := preset.ModelAssetID
	modelGiven := false // a model among the assets wins over the preset's
	bg := preset.Background
	var pieces []Piece
	seen := map[string]bool{}
	for _, id := range in.AssetIDs {
		pc, ok := found[id]
		if !ok {
			return Plan{}, ErrAssetNotFound
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		switch pc.Kind {
		case "model":
			if !modelGiven {
				m := id
				model, modelGiven = &m, true
			}
		case "background":
			bg = Background{Kind: "asset", AssetID: id}
		default:
			pieces = append(pieces, pc)
		}
	}
	plan := Plan{Preset: preset, ModelReady: model != nil}
	plan.Looks, plan.Truncated = propose(pieces, model, bg, preset.VariationKeys)
	per := s.frameCost(tier, false)
	plan.Cost = Cost{PerFrame: per, FramesPerLook: 1 + len(preset.VariationKeys), Quality: tier}
	plan.Cost.Frames = plan.Cost.FramesPerLook * len(plan.Looks)
	plan.Cost.Total = per * int64(plan.Cost.Frames)
	b, err := s.store.Balance(ctx, p.HouseID)
	if err != nil {
		return Plan{}, err
	}
	plan.Balance = b.Balance
	return plan, nil
}

// propose is the factory's proposal from pieces (none a model or a
// background): each garment (clothes) leads a look as its hero, with the
// accessories and jewelry (up to MaxItems pieces in all); without garments
// each piece leads its own look. At most MaxLooks looks; truncated says
// there would have been more.
func propose(pieces []Piece, model *string, bg Background, keys []string) (looks []ProposedLook, truncated bool) {
	var heroes, extras []Piece
	for _, pc := range pieces {
		if pc.Kind == "clothes" {
			heroes = append(heroes, pc)
		} else {
			extras = append(extras, pc)
		}
	}
	if len(heroes) == 0 {
		heroes, extras = extras, nil
	}
	looks = []ProposedLook{}
	for i, h := range heroes {
		if len(looks) == MaxLooks {
			return looks, true
		}
		items := []Item{{AssetID: h.ID, Role: role(h.Kind), Label: cleanLabel(h.Name), Hero: true}}
		for _, x := range extras {
			if len(items) == MaxItems {
				break
			}
			items = append(items, Item{AssetID: x.ID, Role: role(x.Kind), Label: cleanLabel(x.Name)})
		}
		name := cleanLabel(h.Name)
		if name == "" {
			name = "Look " + itoa(i+1)
		}
		looks = append(looks, ProposedLook{Name: name, ModelAssetID: model, Items: items, Background: bg,
			VariationKeys: append([]string{}, keys...)})
	}
	return looks, false
}

func role(kind string) string {
	if r, ok := roleOfKind[kind]; ok {
		return r
	}
	return "accessory"
}

// RunLook is one look of a factory run.
type RunLook struct {
	Name          string      `json:"name" required:"true"`
	Items         []Item      `json:"itemAssetIds" required:"true"`
	Background    *Background `json:"background,omitempty" description:"Default: the standing preset's."`
	VariationKeys []string    `json:"variationKeys,omitempty" description:"Default: the standing preset's."`
}

// RunRequest is the body of POST /api/toolkit/factory/run.
type RunRequest struct {
	Looks        []RunLook `json:"looks" required:"true"`
	ModelAssetID *string   `json:"modelAssetId,omitempty" description:"Default: the standing preset's model. Like a look's, it may name a casting board model."`
	Aesthetic    *string   `json:"aesthetic,omitempty" description:"Default: the standing preset's."`
	Quality      string    `json:"quality,omitempty" enum:"1k,2k,4k"`
	BrandID      *string   `json:"brandId,omitempty"`
}

// RunResult is the answer to a factory run.
type RunResult struct {
	BatchID string       `json:"batchId"`
	Quality ledger.Tier  `json:"quality" enum:"1k,2k,4k"`
	Looks   []RunCreated `json:"looks"`
}

// RunCreated is a look a factory run made.
type RunCreated struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	VariationKeys []string `json:"variationKeys"`
}

// Run creates the batch's draft looks with their variation keys, spending
// nothing; one bad look rejects them all.
func (s *Service) Run(ctx context.Context, p auth.Principal, in RunRequest) (RunResult, error) {
	if err := canEdit(p); err != nil {
		return RunResult{}, err
	}
	if len(in.Looks) == 0 {
		return RunResult{}, ErrLooksRequired
	}
	if len(in.Looks) > MaxLooks {
		return RunResult{}, errs.With(ErrTooManyLooks, "max", MaxLooks)
	}
	preset, err := s.Preset(ctx, p)
	if err != nil {
		return RunResult{}, err
	}
	tier := preset.Quality
	if in.Quality != "" {
		if tier, err = parseTier(in.Quality); err != nil {
			return RunResult{}, err
		}
	}
	model := ""
	if in.ModelAssetID != nil {
		model = strings.TrimSpace(*in.ModelAssetID)
	} else if preset.ModelAssetID != nil {
		model = *preset.ModelAssetID
	}
	aesthetic := preset.Aesthetic
	if in.Aesthetic != nil {
		aesthetic = *in.Aesthetic
	}
	prefs, err := s.store.PosturePrefs(ctx, p.HouseID)
	if err != nil {
		return RunResult{}, err
	}
	ps := Postures{Custom: prefs.Custom}
	batch := uuid.Must(uuid.NewV7()).String()
	looks := make([]Look, len(in.Looks))
	for i, rl := range in.Looks {
		bg := preset.Background
		if rl.Background != nil {
			bg = *rl.Background
		}
		keys := rl.VariationKeys
		if keys == nil {
			keys = preset.VariationKeys
		}
		l, err := draft(rl.Name, model, rl.Items, bg, aesthetic)
		if err != nil {
			return RunResult{}, errs.With(asErr(err), "look", i)
		}
		if err := CheckKeys(keys, ps); err != nil {
			return RunResult{}, errs.With(asErr(err), "look", i)
		}
		l.Variations = append([]string{}, keys...)
		looks[i] = l
	}
	cast, err := s.castModel(ctx, p, model)
	if err != nil {
		return RunResult{}, err
	}
	for i := range looks {
		looks[i].ModelAssetID = cast
	}
	if err := s.resolve(ctx, p.HouseID, looks); err != nil {
		return RunResult{}, err
	}
	out := RunResult{BatchID: batch, Quality: tier, Looks: make([]RunCreated, len(looks))}
	for i := range looks {
		s.stamp(p, &looks[i], in.BrandID)
		b := batch
		looks[i].BatchID = &b
		out.Looks[i] = RunCreated{ID: looks[i].ID, Name: looks[i].Name, VariationKeys: looks[i].Variations}
	}
	if err := s.store.InsertLooks(ctx, looks); err != nil {
		return RunResult{}, err
	}
	return out, nil
}

// asErr returns the *errs.Error of a validation failure.
func asErr(err error) *errs.Error {
	if e, ok := errs.As(err); ok {
		return e
	}
	return errs.Wrap(errs.Internal, err)
}
