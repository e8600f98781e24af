package brand

// Marks: logo renditions registered from the house's library.
//
// Choices made where the contract is silent:
//
//   - A mark registers a live asset of the house whose kind is mark (given
//     at upload); any other asset is 400 NOT_A_MARK, an unknown or foreign
//     one 404 ASSET_NOT_FOUND, an unknown or foreign collection 404
//     NOT_FOUND. One asset registers once per level (the house set, or one
//     collection's override): a second time is 409 ALREADY_REGISTERED.
//   - material is 1 to 300 characters, placement at most 120 and note at
//     most 600 (an empty placement or note is null); sortOrder is 0 to 9999
//     and defaults to one past the level's highest. A PATCH that clears
//     material (null or empty) is 400 BAD_MATERIAL; so is a register
//     without it.
//   - filename is the asset's name in the library.
//   - A mark whose asset was deleted stays registered but is neither listed
//     nor ridden.
//   - Which marks ride with a frame: those of the develop's collection when
//     that collection has any, else the house set; at most two, lowest
//     sortOrder first (then oldest). A develop's collection is the
//     collection (folder) of its primary input, and only that collection,
//     not its parents: the first input in the role image, else garment,
//     else a look's first piece (item); a develop without such an input
//     (a generated character) rides the house set.
//   - Marks ride whether or not the profile's clause is enabled: the clause
//     is words the house may switch off; a registered mark is the house's
//     logo. The prompt says of each riding mark its filename, material
//     (verbatim) and placement; the note is the house's own and rides
//     nowhere.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/patch"
	"studio/internal/ts"
)

// Bounds of a mark.
const (
	MaxMaterial  = 300
	MaxPlacement = 120
	MaxNote      = 600
	MaxSortOrder = 9999
	// Riding is how many marks ride with a frame at most (SPEC §8).
	Riding = 2
)

// Mark is a registered logo rendition.
type Mark struct {
	ID           string  `json:"id"`
	AssetID      string  `json:"assetId"`
	CollectionID *string `json:"collectionId" description:"null: the house set; set: that collection's override, which replaces the house set whole."`
	Material     string  `json:"material" description:"Rides the generation prompt verbatim."`
	Placement    *string `json:"placement"`
	Note         *string `json:"note"`
	SortOrder    int     `json:"sortOrder" description:"Lowest first; at most two marks ride with a frame."`
	Filename     string  `json:"filename" description:"The asset's name in the library."`
	CreatedAt    ts.Time `json:"createdAt"`
}

// Level is the level a mark is registered at: "" for the house set, else
// the collection's id.
func (m Mark) Level() string {
	if m.CollectionID == nil {
		return ""
	}
	return *m.CollectionID
}

// RegisterRequest is the body of POST /api/toolkit/brand/marks.
type RegisterRequest struct {
	AssetID      *string `json:"assetId" required:"true" description:"A live asset of the house uploaded with kind mark."`
	Material     *string `json:"material" required:"true" maxLength:"300" description:"What the mark is made of and how it looks; rides the prompt verbatim."`
	Placement    *string `json:"placement,omitempty" nullable:"true" maxLength:"120"`
	Note         *string `json:"note,omitempty" nullable:"true" maxLength:"600"`
	SortOrder    *int    `json:"sortOrder,omitempty" minimum:"0" maximum:"9999" description:"Default: one past the level's highest."`
	CollectionID *string `json:"collectionId,omitempty" nullable:"true" description:"A collection of the house: the mark joins its override. Absent or null: the house set."`
}

// Validate checks the request's fields.
func (r *RegisterRequest) Validate() error {
	if r.AssetID == nil || strings.TrimSpace(*r.AssetID) == "" {
		return ErrAssetRequired
	}
	*r.AssetID = strings.TrimSpace(*r.AssetID)
	if r.Material == nil {
		return ErrBadMaterial
	}
	m, err := material(*r.Material)
	if err != nil {
		return err
	}
	r.Material = &m
	if r.Placement, err = optional(r.Placement, MaxPlacement, "placement"); err != nil {
		return err
	}
	if r.Note, err = optional(r.Note, MaxNote, "note"); err != nil {
		return err
	}
	if r.SortOrder != nil && (*r.SortOrder < 0 || *r.SortOrder > MaxSortOrder) {
		return errBadSortOrder
	}
	if r.CollectionID != nil {
		if c := strings.TrimSpace(*r.CollectionID); c != "" {
			r.CollectionID = &c
		} else {
			r.CollectionID = nil
		}
	}
	return nil
}

// MarkPatch is the body of PATCH /api/toolkit/brand/marks/{id}.
type MarkPatch struct {
	Material  patch.Field[string] `json:"material,omitempty" maxLength:"300" description:"Cannot be cleared: null or empty is 400 BAD_MATERIAL."`
	Placement patch.Field[string] `json:"placement,omitempty" nullable:"true" maxLength:"120" description:"null clears it."`
	Note      patch.Field[string] `json:"note,omitempty" nullable:"true" maxLength:"600" description:"null clears it."`
	SortOrder patch.Field[int]    `json:"sortOrder,omitempty" minimum:"0" maximum:"9999"`
}

// Validate checks the fields the patch names.
func (r *MarkPatch) Validate() error {
	if r.Material.Set {
		if r.Material.Null {
			return ErrBadMaterial
		}
		m, err := material(r.Material.Value)
		if err != nil {
			return err
		}
		r.Material.Value = m
	}
	for _, f := range []struct {
		field *patch.Field[string]
		most  int
		name  string
	}{{&r.Placement, MaxPlacement, "placement"}, {&r.Note, MaxNote, "note"}} {
		if f.field.Has() {
			v, err := optional(&f.field.Value, f.most, f.name)
			if err != nil {
				return err
			}
			if v == nil {
				f.field.Null = true
			}
		}
	}
	if r.SortOrder.Set && (r.SortOrder.Null || r.SortOrder.Value < 0 || r.SortOrder.Value > MaxSortOrder) {
		return errBadSortOrder
	}
	return nil
}

// Empty reports whether the patch names no field.
func (r MarkPatch) Empty() bool {
	return !r.Material.Set && !r.Placement.Set && !r.Note.Set && !r.SortOrder.Set
}

// apply changes m by the patch.
func (r MarkPatch) apply(m *Mark) {
	if r.Material.Has() {
		m.Material = r.Material.Value
	}
	if r.Placement.Set {
		m.Placement = r.Placement.Ptr()
	}
	if r.Note.Set {
		m.Note = r.Note.Ptr()
	}
	if r.SortOrder.Has() {
		m.SortOrder = r.SortOrder.Value
	}
}

func material(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxMaterial {
		return "", ErrBadMaterial
	}
	return s, nil
}

// optional trims an optional text; empty is nil.
func optional(s *string, most int, name string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	v := strings.TrimSpace(*s)
	if v == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(v) > most {
		return nil, errs.Msg(errs.BadBody, name+" is at most "+strconv.Itoa(most)+" characters.")
	}
	return &v, nil
}

// MarksList is the answer of GET /api/toolkit/brand/marks.
type MarksList struct {
	House      []Mark `json:"house" description:"The house set, lowest sortOrder first."`
	Collection []Mark `json:"collection" description:"The asked collection's override, lowest sortOrder first; empty without collectionId."`
	Riding     string `json:"riding" enum:"house,collection" description:"Which set rides with a frame of the asked collection (the house set without collectionId); at most two of it ride."`
}

// ride picks the marks that ride with a frame out of a level's set, which
// the store lists lowest sortOrder first.
func ride(set []Mark) []Mark {
	return set[:min(len(set), Riding)]
}

// Codes of the marks routes.
var (
	ErrCannotEditMarks = errs.New(errs.KindForbidden, "role_cannot_edit_marks", "A viewer may not register, change or remove the house's marks.")
	ErrAssetRequired   = errs.Msg(errs.AssetRequired, "Name the asset to register (assetId).")
	ErrBadMaterial     = errs.New(errs.KindInvalid, "BAD_MATERIAL", "material is required: 1 to 300 characters.")
	ErrNotAMark        = errs.New(errs.KindInvalid, "NOT_A_MARK", "The asset was not uploaded as a mark (kind mark).")
	ErrRegistered      = errs.Msg(errs.AlreadyRegistered, "The asset is already registered as a mark at this level.")
	ErrAssetNotFound   = errs.Msg(errs.AssetNotFound, "The asset is not one of this house's.")
	ErrNoCollection    = errs.Msg(errs.NotFound, "No such collection.")
	errBadSortOrder    = errs.Msg(errs.BadBody, "sortOrder is a whole number from 0 to 9999.")
)
