// Package casting is the house's casting board (SPEC §2 Model, §4.10): the
// models a house made from its own photographs, and the catalogue of the
// service's faces (free, for sale, or exclusive) that operators load with
// `studio models import DIR`.
//
// An own model is a dossier of the house's assets in one order: a collage
// (composed here from the originals when the model is made), the sheets
// (assets the house adds later) and the originals (the photographs it was
// made from). A catalogue face is a set of images kept in the blob store
// under "casting/<face id>/<sha256>" and a price.
//
// The board lists what the house may see: its own models and the faces it
// holds (yours), then the free, sale and exclusive faces, newest first in
// each band. An exclusive face another house holds a live claim on is
// absent from every other house's board, and its id answers the one 404.
package casting

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/patch"
	"studio/internal/ts"
)

// Tier is how a face is offered.
type Tier string

// The tiers.
const (
	Free      Tier = "free"
	Sale      Tier = "sale"
	Exclusive Tier = "exclusive"
)

// Tiers are the legal tiers, in the board's order.
var Tiers = []Tier{Free, Sale, Exclusive}

// Limits of a model's text and dossier.
const (
	MaxName       = 120 // characters of a name
	MaxAssets     = 12  // originals of an own model, sheets of a model, images of a face
	MaxTrait      = 200 // characters of a trait
	MaxMarks      = 12  // distinguishing marks
	MaxMark       = 80  // characters of a mark
	OwnCurrency   = "usd"
	CollageTile   = 512 // the long edge of one tile of a collage, in pixels
	CollageFormat = "image/jpeg"
)

// Codes of the casting board. NAME_REQUIRED and BAD_ASSET_IDS are shared
// with the lookbook and the library.
var (
	ErrNameRequired = errs.Msg(errs.NameRequired, "A model needs a name.")
	ErrBadAssetIDs  = errs.With(errs.Msg(asset.ErrBadAssetIDs, "assetIds must be 1 to 12 distinct asset ids."), "max", MaxAssets)
	ErrBadSheetIDs  = errs.With(errs.Msg(asset.ErrBadAssetIDs, "sheetAssetIds must be at most 12 distinct asset ids."), "max", MaxAssets)
	ErrNotYours     = errs.Msg(errs.Forbidden, "Only a model the house made itself can be changed.")
)

// Traits are a model's editable traits. A PATCH merges them: a trait it
// names replaces the stored one, null clears it, and the rest stay.
type Traits struct {
	Height   string   `json:"height,omitempty" maxLength:"200"`
	Build    string   `json:"build,omitempty" maxLength:"200"`
	Presence string   `json:"presence,omitempty" maxLength:"200"`
	Posture  string   `json:"posture,omitempty" maxLength:"200"`
	Hands    string   `json:"hands,omitempty" maxLength:"200"`
	Marks    []string `json:"marks,omitempty" maxItems:"12" description:"Distinguishing marks, each at most 80 characters."`
}

// TraitsPatch is the traits object of a PATCH: each trait absent (kept),
// null (cleared) or a value (replaces the stored one).
type TraitsPatch struct {
	Height   patch.Field[string]   `json:"height,omitzero" nullable:"true" maxLength:"200"`
	Build    patch.Field[string]   `json:"build,omitzero" nullable:"true" maxLength:"200"`
	Presence patch.Field[string]   `json:"presence,omitzero" nullable:"true" maxLength:"200"`
	Posture  patch.Field[string]   `json:"posture,omitzero" nullable:"true" maxLength:"200"`
	Hands    patch.Field[string]   `json:"hands,omitzero" nullable:"true" maxLength:"200"`
	Marks    patch.Field[[]string] `json:"marks,omitzero" nullable:"true" maxItems:"12"`
}

// Merge returns t with p laid over it. Values are trimmed; an empty one
// clears the trait as null does.
func (t Traits) Merge(p TraitsPatch) Traits {
	set := func(dst *string, f patch.Field[string]) {
		if f.Set {
			*dst = strings.TrimSpace(f.Value)
		}
	}
	set(&t.Height, p.Height)
	set(&t.Build, p.Build)
	set(&t.Presence, p.Presence)
	set(&t.Posture, p.Posture)
	set(&t.Hands, p.Hands)
	if p.Marks.Set {
		t.Marks = p.Marks.Value
	}
	return t.clean()
}

// clean trims every trait and drops empty marks.
func (t Traits) clean() Traits {
	for _, s := range []*string{&t.Height, &t.Build, &t.Presence, &t.Posture, &t.Hands} {
		*s = strings.TrimSpace(*s)
	}
	var marks []string
	for _, m := range t.Marks {
		if m = strings.TrimSpace(m); m != "" {
			marks = append(marks, m)
		}
	}
	t.Marks = marks
	return t
}

// Validate refuses traits past their limits (they are refused, not cut).
func (t Traits) Validate() error {
	for _, s := range []string{t.Height, t.Build, t.Presence, t.Posture, t.Hands} {
		if utf8.RuneCountInString(s) > MaxTrait {
			return errs.Msg(errs.BadBody, "A trait is at most 200 characters.")
		}
	}
	if len(t.Marks) > MaxMarks {
		return errs.Msg(errs.BadBody, "A model has at most 12 marks.")
	}
	for _, m := range t.Marks {
		if utf8.RuneCountInString(m) > MaxMark {
			return errs.Msg(errs.BadBody, "A mark is at most 80 characters.")
		}
	}
	return nil
}

// Model is a casting board entry as the wire shows it (SPEC §2 Model).
type Model struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Tier             Tier     `json:"tier" enum:"free,sale,exclusive" description:"How the face is offered; a house's own model is exclusive to it."`
	PriceCents       int64    `json:"priceCents"`
	Currency         string   `json:"currency"`
	CoverURL         string   `json:"coverUrl" description:"The first image: an own model's collage, a face's cover."`
	PreviewURLs      []string `json:"previewUrls" description:"The other images, in dossier order."`
	Owned            bool     `json:"owned" description:"The house may use the face: it made it or holds a claim on it."`
	Mine             bool     `json:"mine" description:"The house made the model from its own photographs."`
	Usable           bool     `json:"usable" description:"The face may be cast: free, or owned."`
	ExclusiveYours   bool     `json:"exclusiveYours" description:"No other house may cast the face."`
	IdentityAssetIDs []string `json:"identityAssetIds" description:"An own model's dossier: [collage, ...sheets, ...originals], live assets only; empty for a catalogue face."`
	SheetAssetIDs    []string `json:"sheetAssetIds" description:"An own model's sheets; empty for a catalogue face."`
	Traits           Traits   `json:"traits"`
	CreatedAt        ts.Time  `json:"createdAt"`

	band int // the board's band: 0 yours, then free, sale, exclusive
}

// ImageURL is where the n-th image of a model is served (0 is the cover).
func ImageURL(id string, n int) string {
	return "/api/toolkit/models/" + id + "/image?n=" + strconv.Itoa(n)
}

// urls fills the cover and previews from the number of images.
func (m *Model) urls(n int) {
	m.PreviewURLs = []string{}
	for i := range n {
		if i == 0 {
			m.CoverURL = ImageURL(m.ID, 0)
		} else {
			m.PreviewURLs = append(m.PreviewURLs, ImageURL(m.ID, i))
		}
	}
}

// cleanIDs trims ids and checks they are distinct, non-empty and at most
// max; bad is the refusal.
func cleanIDs(ids []string, min, max int, bad error) ([]string, error) {
	if len(ids) < min || len(ids) > max {
		return nil, bad
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			return nil, bad
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// cleanName trims a name and checks its length.
func cleanName(name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return "", ErrNameRequired
	}
	if utf8.RuneCountInString(name) > MaxName {
		return "", errs.Msg(errs.BadBody, "A model's name is at most 120 characters.")
	}
	return name, nil
}
