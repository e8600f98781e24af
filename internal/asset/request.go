package asset

import (
	"slices"
	"strings"

	"studio/internal/errs"
	"studio/internal/patch"
)

// PatchRequest is the body of PATCH /api/toolkit/assets/{id}. Absent fields
// stay; null clears sku, kind, fit and wearer and moves the asset to the root.
type PatchRequest struct {
	Name     patch.Field[string] `json:"name,omitempty" minLength:"1" maxLength:"200"`
	SKU      patch.Field[string] `json:"sku,omitempty" nullable:"true" maxLength:"64" description:"The house's own code; null clears it."`
	Kind     patch.Field[string] `json:"kind,omitempty" nullable:"true" description:"clothes, accessory, jewelry, model or background; null un-files."`
	FolderID patch.Field[string] `json:"folderId,omitempty" nullable:"true" description:"A collection of this house; null is the root."`
	Fit      patch.Field[string] `json:"fit,omitempty" nullable:"true" description:"auto, fitted, regular, loose or oversized; null is unread."`
	Wearer   patch.Field[string] `json:"wearer,omitempty" nullable:"true" description:"women, men or unisex; null is unread."`
}

// Validate checks whatever fields are present.
func (r *PatchRequest) Validate() error {
	if r.Name.Set {
		if r.Name.Null {
			return errs.Msg(errBadName, "name cannot be null.")
		}
		name, err := CleanName(r.Name.Value)
		if err != nil {
			return err
		}
		r.Name.Value = name
	}
	if r.SKU.Has() {
		if err := CheckSKU(r.SKU.Value); err != nil {
			return err
		}
	}
	if r.Kind.Has() {
		if _, err := ParseKind(r.Kind.Value, FileKinds); err != nil {
			return err
		}
	}
	if r.FolderID.Has() && r.FolderID.Value == "" {
		return ErrBadFolder
	}
	if r.Fit.Has() && !slices.Contains(Fits, Fit(r.Fit.Value)) {
		return errBadFit
	}
	if r.Wearer.Has() && !slices.Contains(Wearers, Wearer(r.Wearer.Value)) {
		return errBadWearer
	}
	return nil
}

// Empty reports whether the request changes nothing.
func (r *PatchRequest) Empty() bool {
	return !r.Name.Set && !r.SKU.Set && !r.Kind.Set && !r.FolderID.Set && !r.Fit.Set && !r.Wearer.Set
}

// Apply makes the requested changes to a. A patch is a person's word: a
// fit or wearer it sets (or clears) is no longer a guess.
func (r *PatchRequest) Apply(a *Asset) {
	if r.Name.Set {
		a.Name = r.Name.Value
	}
	if r.SKU.Set {
		a.SKU = r.SKU.Ptr()
	}
	if r.Kind.Set {
		a.Kind = nil
		if r.Kind.Has() {
			a.Kind = ptr(Kind(r.Kind.Value))
		}
	}
	if r.FolderID.Set {
		a.FolderID = r.FolderID.Ptr()
	}
	if r.Fit.Set {
		a.Fit, a.FitGuessed = nil, false
		if r.Fit.Has() {
			a.Fit = ptr(Fit(r.Fit.Value))
		}
	}
	if r.Wearer.Set {
		a.Wearer, a.WearerGuessed = nil, false
		if r.Wearer.Has() {
			a.Wearer = ptr(Wearer(r.Wearer.Value))
		}
	}
}

// BatchRequest is the body of PATCH /api/toolkit/assets/batch.
type BatchRequest struct {
	AssetIDs []string            `json:"assetIds" required:"true" maxItems:"1000"`
	FolderID patch.Field[string] `json:"folderId,omitempty" nullable:"true" description:"A collection of this house; null is the root."`
	Kind     patch.Field[string] `json:"kind,omitempty" nullable:"true" description:"clothes, accessory, jewelry, model or background; null un-files."`
	Approved patch.Field[bool]   `json:"approved,omitempty" description:"true stamps the approver and the time; false clears both."`
}

// Validate checks the ids and that at least one change is asked for.
func (r *BatchRequest) Validate() error {
	if err := checkIDList(r.AssetIDs); err != nil {
		return err
	}
	if !r.FolderID.Set && !r.Kind.Set && !r.Approved.Set {
		return errNoBatchField
	}
	if r.Kind.Has() {
		if _, err := ParseKind(r.Kind.Value, FileKinds); err != nil {
			return err
		}
	}
	if r.FolderID.Has() && r.FolderID.Value == "" {
		return errs.NotFound
	}
	if r.Approved.Null {
		return errs.Msg(errs.BadBody, "approved is true or false.")
	}
	return nil
}

// Change is the validated batch change the store applies.
func (r *BatchRequest) Change() BatchChange {
	c := BatchChange{MoveFolder: r.FolderID.Set, FolderID: r.FolderID.Ptr(), SetKind: r.Kind.Set,
		SetApproved: r.Approved.Has(), Approved: r.Approved.Value}
	if r.Kind.Has() {
		c.Kind = ptr(Kind(r.Kind.Value))
	}
	return c
}

// BatchChange is what a batch patch does to each asset it names.
type BatchChange struct {
	MoveFolder  bool
	FolderID    *string // nil is the root
	SetKind     bool
	Kind        *Kind // nil un-files
	SetApproved bool
	Approved    bool
}

// IDsRequest is a body that names assets: POST /api/toolkit/assets/batch/delete.
type IDsRequest struct {
	AssetIDs []string `json:"assetIds" required:"true" maxItems:"1000"`
}

// Validate checks the list is there and not too long.
func (r *IDsRequest) Validate() error { return checkIDList(r.AssetIDs) }

func checkIDList(ids []string) error {
	if ids == nil {
		return errs.Msg(errs.BadBody, "assetIds is required.")
	}
	if len(ids) > MaxBatch {
		return errTooManyIDs
	}
	return nil
}

// GroupRequest is the body of POST /api/toolkit/assets/group.
type GroupRequest struct {
	AssetIDs []string `json:"assetIds" required:"true" minItems:"1" maxItems:"1000" uniqueItems:"true"`
	Name     string   `json:"name,omitempty" description:"Accepted and unused."`
}

// Validate checks the ids are a non-empty list of distinct ids.
func (r *GroupRequest) Validate() error {
	if r.AssetIDs == nil {
		return errs.Msg(errs.BadBody, "assetIds is required.")
	}
	if len(r.AssetIDs) == 0 || len(r.AssetIDs) > MaxBatch {
		return ErrBadAssetIDs
	}
	seen := make(map[string]bool, len(r.AssetIDs))
	for _, id := range r.AssetIDs {
		if strings.TrimSpace(id) == "" || seen[id] {
			return ErrBadAssetIDs
		}
		seen[id] = true
	}
	return nil
}

// Operations a batch quote prices.
const (
	OpRemoveBackground = "remove-background"
	OpPackshot         = "packshot"
)

// Qualities are the develop tiers.
var Qualities = []string{"1k", "2k", "4k"}

// QuoteRequest is the body of POST /api/toolkit/assets/batch/quote.
type QuoteRequest struct {
	AssetIDs             []string `json:"assetIds" required:"true" maxItems:"1000"`
	Operation            string   `json:"operation" required:"true" enum:"remove-background,packshot"`
	Quality              string   `json:"quality,omitempty" enum:"1k,2k,4k" default:"1k" description:"Packshot only; remove-background has one price."`
	AlsoRemoveBackground bool     `json:"alsoRemoveBackground,omitempty" description:"Packshot only: add a background removal per item."`
}

// Validate checks the operation and quality.
func (r *QuoteRequest) Validate() error {
	if err := checkIDList(r.AssetIDs); err != nil {
		return err
	}
	if r.Operation != OpRemoveBackground && r.Operation != OpPackshot {
		return errs.With(errs.Msg(errs.BadBody, "operation must be remove-background or packshot."),
			"legal", []string{OpRemoveBackground, OpPackshot})
	}
	if r.Quality == "" {
		r.Quality = "1k"
	}
	if !slices.Contains(Qualities, r.Quality) {
		return errs.With(errs.Msg(errs.BadBody, "quality must be 1k, 2k or 4k."), "legal", Qualities)
	}
	return nil
}

// Quote is the answer of a batch quote: what the operation would cost and
// whether the house can afford it. It spends and reserves nothing.
type Quote struct {
	Operation  string `json:"operation" enum:"remove-background,packshot"`
	Items      int    `json:"items" description:"Live assets of this house among the ids; others are not priced."`
	PerItem    int64  `json:"perItem"`
	Tokens     int64  `json:"tokens"`
	Spendable  int64  `json:"spendable"`
	Affordable bool   `json:"affordable"`
}

// dedupe returns ids without repeats, in order.
func dedupe(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
