package console

import (
	"net/http"
	"net/url"
	"strings"

	"studio/internal/asset"
	"studio/internal/httpapi"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/look"
	"studio/internal/share"
)

// Looks: compose a look, develop its base frame, lock it, fan it out into
// variations, the factory's looks from a set of garments, and the frames
// as a contact sheet with the judge's verdicts and the reviewers' marks.

// looks is GET /looks.
func (c *Console) looks(w http.ResponseWriter, r *http.Request) error {
	var ls httpapi.LooksBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/lookbook/looks", out: &ls})
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "looks", view{Title: "Looks", Section: "looks", Me: me, Data: ls.Looks})
}

// composeData is what the compose and factory pages offer.
type composeData struct {
	Models, Pieces []asset.Asset
	Backgrounds    look.BackgroundsView
	Preset         look.StandingPreset
	Aesthetics     []string
	Roles          []string
	Keys           []string
	Tiers          []ledger.Tier
}

// RoleFor is the role a piece of a kind first plays in a look.
func (composeData) RoleFor(a asset.Asset) string {
	if a.Kind != nil && (*a.Kind == asset.Accessory || *a.Kind == asset.Jewelry) {
		return string(*a.Kind)
	}
	return "top"
}

// compose reads what a look is made of, with the visitor: the library's
// models and pieces, the grounds, the standing preset.
func (c *Console) compose(w http.ResponseWriter, r *http.Request) (*visitor, composeData, error) {
	d := composeData{Aesthetics: look.Aesthetics, Roles: look.ItemRoles, Keys: look.VariationKeys, Tiers: ledger.Tiers}
	var as httpapi.AssetsBody
	var p httpapi.PresetBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/assets", out: &as}, read{path: "/api/toolkit/backgrounds", out: &d.Backgrounds},
		read{path: "/api/toolkit/presets", out: &p})
	if err != nil {
		return nil, d, err
	}
	for _, a := range as.Assets {
		switch {
		case a.Kind == nil:
		case *a.Kind == asset.Model:
			d.Models = append(d.Models, a)
		case *a.Kind == asset.Clothes || *a.Kind == asset.Accessory || *a.Kind == asset.Jewelry:
			d.Pieces = append(d.Pieces, a)
		}
	}
	d.Preset = p.Preset
	return me, d, nil
}

// newLook is GET /looks/new: the compose form.
func (c *Console) newLook(w http.ResponseWriter, r *http.Request) error {
	me, d, err := c.compose(w, r)
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "look-new", view{Title: "Compose a look", Section: "looks", Me: me, Data: d, Script: "looks.js"})
}

// factory is GET /looks/factory: looks planned from a set of garments.
func (c *Console) factory(w http.ResponseWriter, r *http.Request) error {
	me, d, err := c.compose(w, r)
	if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "factory", view{Title: "The factory", Section: "looks", Me: me, Data: d, Script: "looks.js"})
}

// frame is one frame of a look's contact sheet.
type frame struct {
	Label   string // "Base frame" or the variation's key
	Framing string
	JobID   string
	AssetID string
	Status  string
	Error   string
	Locked  bool
	Verdict *judge.Verdict
	Marks   []share.Mark
}

// lookData is what a look's page shows.
type lookData struct {
	look.Detail
	Base         *frame  // the lock develop's frame, while the look is a draft
	Frames       []frame // the locked base and its variations
	Destinations []look.Destination
	Keys         []string
	Tiers        []ledger.Tier
}

// Developing reports whether a develop of the look is in flight.
func (d lookData) Developing() bool {
	if d.LockDevelop != nil && (d.LockDevelop.Status == "queued" || d.LockDevelop.Status == "running") {
		return true
	}
	for _, v := range d.Variations {
		if v.Status == "queued" || v.Status == "running" {
			return true
		}
	}
	return false
}

// lookPage is GET /looks/{id}.
func (c *Console) lookPage(w http.ResponseWriter, r *http.Request) error {
	d := lookData{Destinations: look.Destinations, Keys: look.VariationKeys, Tiers: ledger.Tiers}
	me, err := c.visitor(w, r, read{path: "/api/toolkit/lookbook/looks/" + url.PathEscape(r.PathValue("id")), out: &d.Detail})
	if err != nil {
		return err
	}
	l := d.Look
	if ld := d.LockDevelop; ld != nil && (l.LookBaseJobID == nil || *l.LookBaseJobID != ld.ID || l.Status != "locked") {
		d.Base = &frame{Label: "Base frame", JobID: ld.ID, AssetID: deref(ld.ResultAssetID), Status: ld.Status, Error: deref(ld.Error)}
	}
	if l.LookBaseAssetID != nil {
		d.Frames = append(d.Frames, frame{Label: "Base frame", Framing: "the locked look base", JobID: deref(l.LookBaseJobID),
			AssetID: *l.LookBaseAssetID, Status: "done", Locked: true})
	}
	for _, v := range d.Variations {
		d.Frames = append(d.Frames, frame{Label: v.Key, Framing: v.Framing, JobID: v.JobID, AssetID: deref(v.AssetID),
			Status: v.Status, Error: deref(v.Error), Locked: v.Locked})
	}
	all := d.Frames
	if d.Base != nil {
		all = append([]frame{*d.Base}, all...)
	}
	var jobIDs, assetIDs []string
	for _, f := range all {
		if f.JobID != "" && f.Status == "done" && len(jobIDs) < 50 {
			jobIDs = append(jobIDs, f.JobID)
		}
		if f.AssetID != "" {
			assetIDs = append(assetIDs, f.AssetID)
		}
	}
	var vs httpapi.VerdictsBody
	var ms httpapi.MarksBody
	var reads []read
	if len(jobIDs) > 0 {
		reads = append(reads, read{path: "/api/toolkit/judge/verdicts?jobIds=" + url.QueryEscape(strings.Join(jobIDs, ",")), out: &vs})
	}
	if len(assetIDs) > 0 {
		reads = append(reads, read{path: "/api/toolkit/share-marks?assetIds=" + url.QueryEscape(strings.Join(assetIDs, ",")), out: &ms})
	}
	if err := c.getAll(w, r, reads...); err != nil {
		return err
	}
	verdicts := map[string]*judge.Verdict{}
	for i := range vs.Verdicts {
		verdicts[vs.Verdicts[i].JobID] = &vs.Verdicts[i]
	}
	marks := map[string][]share.Mark{}
	for _, m := range ms.Marks {
		marks[m.AssetID] = append(marks[m.AssetID], m)
	}
	for i := range d.Frames {
		d.Frames[i].Verdict, d.Frames[i].Marks = verdicts[d.Frames[i].JobID], marks[d.Frames[i].AssetID]
	}
	if d.Base != nil {
		d.Base.Verdict = verdicts[d.Base.JobID]
	}
	return c.render(w, http.StatusOK, "look", view{Title: l.Name, Section: "looks", Me: me, Data: d, Script: "looks.js"})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
