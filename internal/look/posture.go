package look

import (
	"slices"
	"strings"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Posture is an entry of the posture library (SPEC §2 Posture). Its prompt
// fragment drives the engines and never goes on the wire.
type Posture struct {
	ID            string   `json:"id"`
	Tier          int      `json:"tier" description:"1 is a staple; higher tiers are rarer, more directed poses."`
	Name          string   `json:"name"`
	Provenance    string   `json:"provenance"`
	Definition    string   `json:"definition"`
	WhenUsed      string   `json:"whenUsed"`
	Register      string   `json:"register" enum:"editorial,commercial,campaign"`
	Crop          string   `json:"crop" enum:"full,three-quarter,half,packshot"`
	Motion        string   `json:"motion" enum:"held,walking,turning,seated"`
	Family        string   `json:"family"`
	FrameAssetIDs []string `json:"frameAssetIds"`
	Controls      Controls `json:"controls"`
	House         bool     `json:"house" description:"True for the house's own custom posture."`

	fragment string
}

// Controls are the axes a posture lets a director move, with its defaults.
type Controls struct {
	Defaults map[string]string `json:"defaults" description:"Axis id to stop id."`
	Only     []string          `json:"only" description:"The axes this posture exposes."`
}

// Axis is a control a posture may expose.
type Axis struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Kind  string `json:"kind" enum:"slider,choice"`
	Stops []Stop `json:"stops"`
}

// Stop is one position of an axis.
type Stop struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// RegisterConstraint says which crops and motions a register allows.
type RegisterConstraint struct {
	Register string   `json:"register"`
	Crops    []string `json:"crops"`
	Motions  []string `json:"motions"`
}

// Axes are the posture controls.
var Axes = []Axis{
	{ID: "gaze", Name: "Gaze", Kind: "choice", Stops: []Stop{{"camera", "To camera"}, {"away", "Away"}, {"down", "Down"}}},
	{ID: "weight", Name: "Weight", Kind: "slider", Stops: []Stop{{"left", "On the left leg"}, {"even", "Even"}, {"right", "On the right leg"}}},
	{ID: "arms", Name: "Arms", Kind: "choice", Stops: []Stop{{"relaxed", "Relaxed"}, {"pockets", "In pockets"}, {"hip", "Hand on hip"}, {"crossed", "Crossed"}}},
	{ID: "energy", Name: "Energy", Kind: "slider", Stops: []Stop{{"still", "Still"}, {"easy", "Easy"}, {"dynamic", "Dynamic"}}},
}

// RegisterConstraints say which crops and motions each register allows.
var RegisterConstraints = []RegisterConstraint{
	{Register: "editorial", Crops: []string{"full", "three-quarter", "half"}, Motions: []string{"held", "walking", "turning", "seated"}},
	{Register: "commercial", Crops: []string{"full", "three-quarter", "packshot"}, Motions: []string{"held", "walking"}},
	{Register: "campaign", Crops: []string{"full", "three-quarter", "half"}, Motions: []string{"held", "walking", "turning", "seated"}},
}

func posture(id string, tier int, name, register, crop, motion, family, definition, whenUsed, fragment string, only ...string) Posture {
	defaults := map[string]string{}
	for _, a := range only {
		for _, ax := range Axes {
			if ax.ID == a {
				defaults[a] = ax.Stops[0].ID
			}
		}
	}
	return Posture{ID: id, Tier: tier, Name: name, Provenance: "studio library", Definition: definition, WhenUsed: whenUsed,
		Register: register, Crop: crop, Motion: motion, Family: family, FrameAssetIDs: []string{},
		Controls: Controls{Defaults: defaults, Only: append([]string{}, only...)}, fragment: fragment}
}

// Library is the built-in posture library.
var Library = []Posture{
	posture("contrapposto", 1, "Contrapposto", "editorial", "full", "held", "standing", "Weight on one leg, hips and shoulders counter-tilted.", "The default full-length look frame.", "standing contrapposto, weight on one leg", "gaze", "weight", "arms"),
	posture("square-stance", 1, "Square stance", "commercial", "full", "held", "standing", "Feet hip-width, shoulders square to camera.", "Product pages that must show the whole garment evenly.", "square symmetrical stance facing camera", "gaze", "arms"),
	posture("hand-on-hip", 1, "Hand on hip", "editorial", "three-quarter", "held", "standing", "One hand on the hip opening the silhouette.", "Tailoring and waisted pieces.", "one hand resting on hip, elbow out", "gaze", "weight"),
	posture("pockets", 1, "Hands in pockets", "commercial", "three-quarter", "held", "standing", "Both hands in pockets, relaxed shoulders.", "Outerwear and trousers with pockets.", "hands in pockets, relaxed shoulders", "gaze", "weight"),
	posture("mid-stride", 1, "Mid-stride", "editorial", "full", "walking", "walking", "Caught between steps, front heel down.", "Movement in skirts, coats and wide trousers.", "walking toward camera mid-stride", "gaze", "energy"),
	posture("over-shoulder", 2, "Over the shoulder", "editorial", "three-quarter", "turning", "turning", "Back three-quarters to camera, looking over the shoulder.", "Backs, collars and hair details.", "turned away, glancing back over the shoulder", "gaze"),
	posture("quarter-turn", 1, "Quarter turn", "commercial", "full", "turning", "turning", "Body turned 45 degrees, face to camera.", "Showing side seams and drape.", "body turned three-quarters, face toward camera", "gaze", "arms"),
	posture("seated-edge", 2, "Seated on an edge", "editorial", "full", "seated", "seated", "Seated on a block or stool, one leg extended.", "Trousers, shoes and relaxed knitwear.", "seated on the edge of a plinth, one leg extended", "gaze", "arms"),
	posture("lean-wall", 2, "Wall lean", "campaign", "full", "held", "leaning", "Shoulder against a wall, crossed ankles.", "Street and denim stories.", "leaning a shoulder against a wall, ankles crossed", "gaze", "arms"),
	posture("arms-crossed", 2, "Arms crossed", "campaign", "half", "held", "standing", "Arms folded, chin level.", "Knitwear and strong-shouldered jackets.", "arms crossed at chest, chin level", "gaze", "weight"),
	posture("collar-touch", 3, "Collar touch", "editorial", "half", "held", "detail", "One hand lifting or adjusting the collar.", "Drawing the eye to necklines and jewelry.", "one hand touching the collar", "gaze"),
	posture("spin", 3, "Spin", "campaign", "full", "turning", "turning", "A turn in progress, hem flaring.", "Dresses and pleats that move.", "spinning, hem flaring outward", "energy"),
}

// CustomPosture is a house's own posture, derived from a library entry.
type CustomPosture struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	BaseID         string            `json:"baseId"`
	Deltas         []string          `json:"deltas" description:"Axis stops changed from the base, as axis:stop."`
	ControlPresets map[string]string `json:"controlPresets" description:"Axis id to stop id."`
	FrameAssetID   *string           `json:"frameAssetId"`
	SavedAt        ts.Time           `json:"savedAt"`
}

// Prefs are the house's posture preferences.
type Prefs struct {
	Favorites    []string        `json:"favorites"`
	Defaults     []string        `json:"defaults"`
	ExploreAdded []string        `json:"exploreAdded"`
	Custom       []CustomPosture `json:"custom"`
}

// Normal returns p with every list non-nil.
func (p Prefs) Normal() Prefs {
	if p.Favorites == nil {
		p.Favorites = []string{}
	}
	if p.Defaults == nil {
		p.Defaults = []string{}
	}
	if p.ExploreAdded == nil {
		p.ExploreAdded = []string{}
	}
	if p.Custom == nil {
		p.Custom = []CustomPosture{}
	}
	for i := range p.Custom {
		if p.Custom[i].Deltas == nil {
			p.Custom[i].Deltas = []string{}
		}
		if p.Custom[i].ControlPresets == nil {
			p.Custom[i].ControlPresets = map[string]string{}
		}
	}
	return p
}

// Postures are the postures a house can cast: the library and its own.
type Postures struct{ Custom []CustomPosture }

// Find returns the posture with id: a library entry, or a custom one
// shown as a house posture of its base.
func (ps Postures) Find(id string) (Posture, bool) {
	for _, p := range Library {
		if p.ID == id {
			return p, true
		}
	}
	for _, c := range ps.Custom {
		if c.ID != id {
			continue
		}
		base, ok := Postures{}.Find(c.BaseID)
		if !ok {
			return Posture{}, false
		}
		base.ID, base.Name, base.House, base.Provenance = c.ID, c.Name, true, "house, from "+base.Name
		return base, true
	}
	return Posture{}, false
}

// Directive is what a generating engine is told of a posture the house
// can cast: its definition, then its prompt fragment ("" when unknown).
func (ps Postures) Directive(id string) string {
	p, ok := ps.Find(id)
	if !ok {
		return ""
	}
	return strings.TrimSuffix(p.Definition, ".") + "; " + p.fragment
}

// PrefsPatch is the body of PUT /api/toolkit/postures/prefs: each list
// given replaces the stored one; lists left out are kept.
type PrefsPatch struct {
	Favorites    *[]string             `json:"favorites,omitempty"`
	Defaults     *[]string             `json:"defaults,omitempty"`
	ExploreAdded *[]string             `json:"exploreAdded,omitempty"`
	Custom       *[]CustomPostureInput `json:"custom,omitempty"`
}

// CustomPostureInput is a custom posture as a client sends it.
type CustomPostureInput struct {
	ID             string            `json:"id,omitempty" description:"Kept when given; made from the name otherwise."`
	Name           string            `json:"name"`
	BaseID         string            `json:"baseId"`
	Deltas         []string          `json:"deltas,omitempty"`
	ControlPresets map[string]string `json:"controlPresets,omitempty"`
	FrameAssetID   *string           `json:"frameAssetId,omitempty"`
}

// Limits of the posture prefs.
const (
	maxPrefIDs = 100
	maxCustom  = 50
	maxIDLen   = 80
)

// Codes raised by posture prefs.
var (
	ErrBadIDs    = errs.New(errs.KindInvalid, "BAD_IDS", "Posture id lists hold at most 100 ids of at most 80 characters, none empty.")
	ErrBadCustom = errs.New(errs.KindInvalid, "BAD_CUSTOM", "A custom posture needs a name, a library baseId and known axis stops.")
	ErrCantEdit  = errs.New(errs.KindForbidden, "role_cannot_edit_postures", "A viewer may not edit posture preferences.")
)

// checkIDs refuses a malformed id list; castable filtering comes later.
func checkIDs(ids *[]string) error {
	if ids == nil {
		return nil
	}
	if len(*ids) > maxPrefIDs {
		return ErrBadIDs
	}
	for _, id := range *ids {
		if strings.TrimSpace(id) == "" || len(id) > maxIDLen {
			return ErrBadIDs
		}
	}
	return nil
}

// validStop reports whether axis:stop names a known stop.
func validStop(axis, stop string) bool {
	for _, a := range Axes {
		if a.ID == axis {
			return slices.ContainsFunc(a.Stops, func(s Stop) bool { return s.ID == stop })
		}
	}
	return false
}

// slug makes an id from a name.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// Merge applies a patch to stored prefs: given lists replace, custom
// postures are validated, and every id that cannot be cast is dropped.
// owned reports which frame asset ids are the house's; a frame that is not
// is dropped too.
func Merge(cur Prefs, in PrefsPatch, owned map[string]bool, now ts.Time) (Prefs, error) {
	for _, ids := range []*[]string{in.Favorites, in.Defaults, in.ExploreAdded} {
		if err := checkIDs(ids); err != nil {
			return Prefs{}, err
		}
	}
	out := cur.Normal()
	if in.Custom != nil {
		if len(*in.Custom) > maxCustom {
			return Prefs{}, errs.With(ErrBadCustom, "max", maxCustom)
		}
		custom := []CustomPosture{}
		seen := map[string]bool{}
		for _, c := range *in.Custom {
			name := strings.TrimSpace(c.Name)
			if name == "" || utf8.RuneCountInString(name) > maxName {
				return Prefs{}, errs.Msg(ErrBadCustom, "A custom posture needs a name of at most 120 characters.")
			}
			if _, ok := (Postures{}).Find(c.BaseID); !ok {
				return Prefs{}, errs.Msg(ErrBadCustom, "A custom posture's baseId must be a library posture.")
			}
			for _, d := range c.Deltas {
				axis, stop, _ := strings.Cut(d, ":")
				if !validStop(axis, stop) {
					return Prefs{}, errs.Msg(ErrBadCustom, "The delta "+quote(d)+" is not a known axis:stop.")
				}
			}
			for axis, stop := range c.ControlPresets {
				if !validStop(axis, stop) {
					return Prefs{}, errs.Msg(ErrBadCustom, "The control preset "+quote(axis+":"+stop)+" is not a known axis stop.")
				}
			}
			id := strings.TrimSpace(c.ID)
			if id == "" {
				id = "custom-" + slug(name)
			}
			if len(id) > maxIDLen || seen[id] || id == "custom-" {
				return Prefs{}, errs.Msg(ErrBadCustom, "Each custom posture needs its own id of at most 80 characters.")
			}
			if _, clash := (Postures{}).Find(id); clash {
				return Prefs{}, errs.Msg(ErrBadCustom, "A custom posture's id may not be a library id.")
			}
			seen[id] = true
			frame := c.FrameAssetID
			if frame != nil && !owned[*frame] {
				frame = nil
			}
			saved := now
			for _, old := range cur.Custom {
				if old.ID == id {
					saved = old.SavedAt
				}
			}
			custom = append(custom, CustomPosture{ID: id, Name: name, BaseID: c.BaseID, Deltas: append([]string{}, c.Deltas...),
				ControlPresets: c.ControlPresets, FrameAssetID: frame, SavedAt: saved})
		}
		out.Custom = custom
	}
	if in.Favorites != nil {
		out.Favorites = *in.Favorites
	}
	if in.Defaults != nil {
		out.Defaults = *in.Defaults
	}
	if in.ExploreAdded != nil {
		out.ExploreAdded = *in.ExploreAdded
	}
	ps := Postures{Custom: out.Custom}
	castable := func(ids []string) []string {
		kept := []string{}
		for _, id := range ids {
			if _, ok := ps.Find(id); ok && !slices.Contains(kept, id) {
				kept = append(kept, id)
			}
		}
		return kept
	}
	out.Favorites, out.Defaults, out.ExploreAdded = castable(out.Favorites), castable(out.Defaults), castable(out.ExploreAdded)
	return out.Normal(), nil
}
