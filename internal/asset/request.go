package asset

import (
	"slices"
	"strings"

	"studio/internal/errs"
)

// PatchRequest is the body of PATCH /api/toolkit/assets/{id}. Absent fields
// stay; null clears sku, kind, fit and wearer and moves the asset to the root.
type PatchRequest struct {
	Name     *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
	SKU      *string `json:"sku,omitempty" nullable:"true" maxLength:"64" description:"The house's own code; null clears it."`
	Kind     *string `json:"kind,omitempty" nullable:"true" description:"clothes, accessory, jewelry, model or background; null un-files."`
	FolderID *string `json:"folderId,omitempty" nullable:"true" description:"A collection of this house; null is the root."`
	Fit      *string `json:"fit,omitempty" nullable:"true" description:"auto, fitted, regular, loose or oversized; null is unread."`
	Wearer   *string `json:"wearer,omitempty" nullable:"true" description:"women, men or unisex; null is unread."`

	present fields
}

// UnmarshalJSON records which fields were sent, so that null differs from absent.
func (r *PatchRequest) UnmarshalJSON(b []byte) error {
	type plain PatchRequest
	var v plain
	p, err := unmarshalTracking(b, &v)
	if err != nil {
		return err
	}
	*r = PatchRequest(v)
	r.present = p
	return nil
}

// Validate checks whatever fields are present.
func (r *PatchRequest) Validate() error {
	if r.present.has("name") {
		if r.Name == nil {
			return errs.Msg(errBadName, "name cannot be null.")
		}
		name, err := CleanName(*r.Name)
		if err != nil {
			return err
		}
		r.Name = &name
	}
	if r.SKU != nil {
		if err := CheckSKU(*r.SKU); err != nil {
			return err
		}
	}
	if r.Kind != nil {
		if _, err := ParseKind(*r.Kind, FileKinds); err != nil {
			return err
		}
	}
	if r.FolderID != nil && *r.FolderID == "" {
		return ErrBadFolder
	}
	if r.Fit != nil && !slices.Contains(Fits, Fit(*r.Fit)) {
		return errBadFit
	}
	if r.Wearer != nil && !slices.Contains(Wearers, Wearer(*r.Wearer)) {
		return errBadWearer
	}
	return nil
}

// Empty reports whether the request changes nothing.
func (r *PatchRequest) Empty() bool {
	for _, f := range []string{"name", "sku", "kind", "folderId", "fit", "wearer"} {
		if r.present.has(f) {
			return false
		}
	}
	return true
}

// Apply makes the requested changes to a. A patch is a person's word: a
// fit or wearer it sets (or clears) is no longer a guess.
func (r *PatchRequest) Apply(a *Asset) {
	if r.present.has("name") {
		a.Name = *r.Name
	}
	if r.present.has("sku") {
		a.SKU = r.SKU
	}
	if r.present.has("kind") {
		a.Kind = nil
		if r.Kind != nil {
			a.Kind = ptr(Kind(*r.Kind))
		}
	}
	if r.present.has("folderId") {
		a.FolderID = r.FolderID
	}
	if r.present.has("fit") {
		a.Fit, a.FitGuessed = nil, false
		if r.Fit != nil {
			a.Fit = ptr(Fit(*r.Fit))
		}
	}
	if r.present.has("wearer") {
		a.Wearer, a.WearerGuessed = nil, false
		if r.Wearer != nil {
			a.Wearer = ptr(Wearer(*r.Wearer))
		}
	}
}

// BatchRequest is the body of PATCH /api/toolkit/assets/batch.
type BatchRequest struct {
	AssetIDs []string `json:"assetIds" required:"true" maxItems:"1000"`
	FolderID *string  `json:"folderId,omitempty" nullable:"true" description:"A collection of this house; null is the root."`
	Kind     *string  `json:"kind,omitempty" nullable:"true" description:"clothes, accessory, jewelry, model or background; null un-files."`
	Approved *bool    `json:"approved,omitempty" description:"true stamps the approver and the time; false clears both."`

	present fields
}

// UnmarshalJSON records which fields were sent, so that null differs from absent.
func (r *BatchRequest) UnmarshalJSON(b []byte) error {
	type plain BatchRequest
	var v plain
	p, err := unmarshalTracking(b, &v)
	if err != nil {
		return err
	}
	*r = BatchRequest(v)
	r.present = p
	return nil
}

// Validate checks the ids and that at least one change is asked for.
func (r *BatchRequest) Validate() error {
	if err := checkIDList(r.AssetIDs); err != nil {
		return err
	}
	if !r.present.has("folderId") && !r.present.has("kind") && !r.present.has("approved") {
		return errNoBatchField
	}
	if r.Kind != nil {
		if _, err := ParseKind(*r.Kind, FileKinds); err != nil {
			return err
		}
	}
	if r.FolderID != nil && *r.FolderID == "" {
		return errs.NotFound
	}
	if r.present.has("approved") && r.Approved == nil {
		return errs.Msg(errs.BadBody, "approved is true or false.")
	}
	return nil
}

// Change is the validated batch change the store applies.
func (r *BatchRequest) Change() BatchChange {
	c := BatchChange{MoveFolder: r.present.has("folderId"), FolderID: r.FolderID, SetKind: r.present.has("kind"), SetApproved: r.Approved != nil}
	if r.Kind != nil {
		c.Kind = ptr(Kind(*r.Kind))
	}
	if r.Approved != nil {
		c.Approved = *r.Approved
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
