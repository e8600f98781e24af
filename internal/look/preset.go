package look

import (
	"context"
	"slices"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// StandingPreset is what a house's new looks start from (SPEC §2).
type StandingPreset struct {
	ModelAssetID  *string     `json:"modelAssetId"`
	Background    Background  `json:"background"`
	Aesthetic     string      `json:"aesthetic" enum:"editorial,minimal,street,studio,romantic,noir"`
	VariationKeys []string    `json:"variationKeys"`
	Quality       ledger.Tier `json:"quality" enum:"1k,2k,4k"`
}

// DefaultPreset is the preset of a house that never saved one.
func DefaultPreset() StandingPreset {
	return StandingPreset{Background: Background{Kind: "preset", Value: "studio-white"}, Aesthetic: "editorial",
		VariationKeys: []string{}, Quality: ledger.Tier1K}
}

// PresetRequest is the body of POST /api/toolkit/presets.
type PresetRequest struct {
	ModelAssetID  *string    `json:"modelAssetId,omitempty"`
	Background    Background `json:"background" required:"true"`
	Aesthetic     string     `json:"aesthetic" required:"true"`
	VariationKeys []string   `json:"variationKeys" required:"true"`
	Quality       string     `json:"quality,omitempty" enum:"1k,2k,4k"`
}

// Preset returns the house's standing preset; a house that never saved
// one reads the defaults.
func (s *Service) Preset(ctx context.Context, p auth.Principal) (StandingPreset, error) {
	sp, ok, err := s.store.StandingPreset(ctx, p.HouseID)
	if err != nil || !ok {
		return DefaultPreset(), err
	}
	if sp.VariationKeys == nil {
		sp.VariationKeys = []string{}
	}
	return sp, nil
}

// SavePreset validates and stores the standing preset whole.
func (s *Service) SavePreset(ctx context.Context, p auth.Principal, in PresetRequest) (StandingPreset, error) {
	if err := canEdit(p); err != nil {
		return StandingPreset{}, err
	}
	if err := CheckAesthetic(in.Aesthetic); err != nil {
		return StandingPreset{}, err
	}
	if err := in.Background.Check(); err != nil {
		return StandingPreset{}, err
	}
	prefs, err := s.store.PosturePrefs(ctx, p.HouseID)
	if err != nil {
		return StandingPreset{}, err
	}
	if err := CheckKeys(in.VariationKeys, Postures{Custom: prefs.Custom}); err != nil {
		return StandingPreset{}, err
	}
	t, err := parseTier(in.Quality)
	if err != nil {
		return StandingPreset{}, err
	}
	sp := StandingPreset{Background: in.Background, Aesthetic: in.Aesthetic, VariationKeys: in.VariationKeys, Quality: t}
	var ids []string
	if in.ModelAssetID != nil && strings.TrimSpace(*in.ModelAssetID) != "" {
		m := strings.TrimSpace(*in.ModelAssetID)
		sp.ModelAssetID = &m
		ids = append(ids, m)
	}
	if sp.Background.Kind == "asset" {
		ids = append(ids, sp.Background.AssetID)
	}
	if err := s.owned(ctx, p.HouseID, ids); err != nil {
		return StandingPreset{}, err
	}
	if err := s.store.SaveStandingPreset(ctx, p.HouseID, sp); err != nil {
		return StandingPreset{}, err
	}
	return sp, nil
}

// owned answers ASSET_NOT_FOUND unless every id is a live asset of the house.
func (s *Service) owned(ctx context.Context, house string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	found, err := s.store.Pieces(ctx, house, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			return ErrAssetNotFound
		}
	}
	return nil
}

// PosturesView is the body of GET /api/toolkit/postures.
type PosturesView struct {
	Library             []Posture            `json:"library" description:"The built-in postures, then the house's own."`
	Axes                []Axis               `json:"axes"`
	RegisterConstraints []RegisterConstraint `json:"registerConstraints"`
	Prefs               Prefs                `json:"prefs"`
}

// Postures returns the posture library with the house's own postures and
// its prefs. Prompt fragments are never part of it.
func (s *Service) Postures(ctx context.Context, p auth.Principal) (PosturesView, error) {
	prefs, err := s.store.PosturePrefs(ctx, p.HouseID)
	if err != nil {
		return PosturesView{}, err
	}
	prefs = prefs.Normal()
	lib := append([]Posture{}, Library...)
	ps := Postures{Custom: prefs.Custom}
	for _, c := range prefs.Custom {
		if cp, ok := ps.Find(c.ID); ok {
			if c.FrameAssetID != nil {
				cp.FrameAssetIDs = []string{*c.FrameAssetID}
			}
			if len(c.ControlPresets) > 0 {
				cp.Controls.Defaults = c.ControlPresets
			}
			lib = append(lib, cp)
		}
	}
	return PosturesView{Library: lib, Axes: Axes, RegisterConstraints: RegisterConstraints, Prefs: prefs}, nil
}

// mayEditPostures refuses a viewer any change of the posture prefs, with
// their own code (SPEC: role_cannot_edit_postures).
func mayEditPostures(p auth.Principal) error {
	if p.MayEdit() != nil {
		return ErrCantEdit
	}
	return nil
}

// SavePrefs merges a partial update into the house's posture prefs.
func (s *Service) SavePrefs(ctx context.Context, p auth.Principal, in PrefsPatch) (Prefs, error) {
	if err := mayEditPostures(p); err != nil {
		return Prefs{}, err
	}
	owned := map[string]bool{}
	if in.Custom != nil {
		var frames []string
		for _, c := range *in.Custom {
			if c.FrameAssetID != nil {
				frames = append(frames, *c.FrameAssetID)
			}
		}
		if len(frames) > 0 {
			found, err := s.store.Pieces(ctx, p.HouseID, frames)
			if err != nil {
				return Prefs{}, err
			}
			for id := range found {
				owned[id] = true
			}
		}
	}
	now := ts.Of(s.now())
	return s.store.UpdatePosturePrefs(ctx, p.HouseID, func(cur Prefs) (Prefs, error) {
		return Merge(cur, in, owned, now)
	})
}

// BackgroundsView is the body of GET /api/toolkit/backgrounds.
type BackgroundsView struct {
	Presets []BackgroundPreset `json:"presets" description:"Grounds a look may stand on as {kind: preset, value: id}."`
	Assets  []BackgroundAsset  `json:"assets" description:"The house's live assets filed as background, newest first; use as {kind: asset, assetId}."`
}

// BackgroundAsset is a house asset a look may stand on.
type BackgroundAsset struct {
	AssetID string `json:"assetId"`
	Name    string `json:"name"`
	URL     string `json:"url"`
}

// Backgrounds lists the background presets and the house's background assets.
func (s *Service) Backgrounds(ctx context.Context, p auth.Principal) (BackgroundsView, error) {
	pieces, err := s.store.BackgroundPieces(ctx, p.HouseID)
	if err != nil {
		return BackgroundsView{}, err
	}
	v := BackgroundsView{Presets: BackgroundLibrary, Assets: make([]BackgroundAsset, len(pieces))}
	for i, pc := range pieces {
		v.Assets[i] = BackgroundAsset{AssetID: pc.ID, Name: pc.Name, URL: job.ResultURL("", pc.ID)}
	}
	return v, nil
}

// errNoTemplate is the one 404 of an unknown template.
var errNoTemplate = errs.NotFound

// Template returns one shot template.
func (s *Service) Template(id string) (Template, error) {
	t, ok := FindTemplate(id)
	if !ok {
		return Template{}, errNoTemplate
	}
	return t, nil
}

// ExploreTier is the lowest posture tier Explore offers: tier 1 postures
// are the staples every house starts with.
const ExploreTier = 2

// Explorable reports whether a library posture is an Explore offering.
func Explorable(p Posture) bool { return !p.House && p.Tier >= ExploreTier }

// AddExplored adds a library posture offered by Explore to the house's
// exploreAdded prefs, atomically; false when it was there already.
// errs.NotFound for an id that is not an offering.
func (s *Service) AddExplored(ctx context.Context, p auth.Principal, id string) (bool, error) {
	if err := mayEditPostures(p); err != nil {
		return false, err
	}
	lp, ok := Postures{}.Find(id)
	if !ok || !Explorable(lp) {
		return false, errs.NotFound
	}
	added := false
	_, err := s.store.UpdatePosturePrefs(ctx, p.HouseID, func(cur Prefs) (Prefs, error) {
		cur = cur.Normal()
		if slices.Contains(cur.ExploreAdded, id) {
			return cur, nil
		}
		added = true
		cur.ExploreAdded = append(cur.ExploreAdded, id)
		return cur, nil
	})
	return added && err == nil, err
}
