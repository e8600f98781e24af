// Package asset is the house's image library (SPEC §2 Asset and Folder,
// §4.4): what an asset is, the reserved tags its filing fields are stored
// as, the checks an upload's bytes pass, the requests that change assets
// and collections, and the service that runs those use cases.
//
// Choices made where the contract is silent:
//
//   - Filing fields are rows of asset_tags (sku:, kind:, fit:, wearer:,
//     group:), one tag per prefix; the wire shows the parsed fields, null
//     when a tag is absent (groupId too). Other tags are kept untouched.
//   - An upload names the asset after its file (without the extension)
//     unless a name is given or classify reads one. Kind is optional at
//     upload; mark is accepted only there. 12 MB is 12 MiB.
//   - Stored bytes are never rewritten: width and height are as displayed
//     (EXIF orientation 5-8 swaps them), the file routes serve the original
//     bytes. The ETag is the quoted SHA-256 of the bytes; a matching
//     If-None-Match is answered 304 from the row alone.
//   - classify=1 with an AI endpoint holds one token (the flat "classify"
//     lane) before the read; the row and the posting of the hold commit in
//     one transaction; a failed read voids the hold. A house that cannot
//     cover the token is refused 402 INSUFFICIENT_TOKENS before anything is
//     written. The read may also guess fit and wearer of clothes (flagged
//     *Guessed); it never sets unisex.
//   - A corrupt or truncated image is 400 BAD_FORM, like a type that is not
//     accepted; the body names the accepted types in "accepted".
//   - PATCH: a folderId that is not one of the house's is 400 BAD_FOLDER; a
//     bad fit or wearer is 400 BAD_BODY with "legal". The batch patch's
//     "updated" counts the house's live assets it named, changed or not.
//   - GET /api/toolkit/assets?folderId=root lists the root; a folder that
//     is not the house's lists nothing.
//   - The list is whole unless limit (1 to 1000) is asked; it is newest
//     first by creation instant, then id. A page's nextCursor is opaque
//     (the last asset's instant and id) and before=<it> starts the next page
//     just below, so assets added meanwhile never shift a page; null marks
//     the last page (and a whole list). A cursor this list did not make is
//     400 BAD_CURSOR, a limit outside the range 400 BAD_LIMIT.
//   - Folders: a move under itself or a descendant is 400 FOLDER_CYCLE;
//     moves in one house are serialized so concurrent moves cannot close a
//     cycle.
//   - The quote prices remove-background at its one price and packshot at
//     the asked tier (default 1k); items counts the house's distinct live
//     assets among the ids.
package asset

import (
	"slices"
	"strings"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Kind files an asset. Mark is only ever given at upload, for logo renditions.
type Kind string

// The kinds.
const (
	Clothes    Kind = "clothes"
	Accessory  Kind = "accessory"
	Jewelry    Kind = "jewelry"
	Model      Kind = "model"
	Background Kind = "background"
	Mark       Kind = "mark"
)

// UploadKinds are the kinds an upload may name; FileKinds those a patch or
// a classification may set.
var (
	UploadKinds = []Kind{Clothes, Accessory, Jewelry, Model, Background, Mark}
	FileKinds   = []Kind{Clothes, Accessory, Jewelry, Model, Background}
)

// Fit is the cut of a garment.
type Fit string

// Fits lists every fit.
var Fits = []Fit{"auto", "fitted", "regular", "loose", "oversized"}

// Wearer is the body a garment is cut for.
type Wearer string

// The wearers. Unisex is only ever set by a person.
const (
	Women  Wearer = "women"
	Men    Wearer = "men"
	Unisex Wearer = "unisex"
)

// Wearers lists every wearer.
var Wearers = []Wearer{Women, Men, Unisex}

// Asset is an image of the house, as the wire shows it. Its filing fields
// (sku, kind, fit, wearer, groupId) are stored as reserved tags.
type Asset struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	SKU           *string  `json:"sku" description:"The house's own code; never invented. Stored as the reserved tag sku:."`
	Kind          *Kind    `json:"kind" description:"clothes, accessory, jewelry, model or background (mark for logo renditions); null is unfiled. Stored as the reserved tag kind:."`
	URL           string   `json:"url" description:"The asset's file route."`
	FolderID      *string  `json:"folderId" description:"The collection; null is the root."`
	GroupID       *string  `json:"groupId" description:"Set by grouping (POST /api/toolkit/assets/group); null when ungrouped. Stored as the reserved tag group:."`
	Fit           *Fit     `json:"fit" description:"auto, fitted, regular, loose or oversized; null is unread. Stored as the reserved tag fit:."`
	Wearer        *Wearer  `json:"wearer" description:"women, men or unisex (unisex only ever set by a person); null is unread. Stored as the reserved tag wearer:."`
	FitGuessed    bool     `json:"fitGuessed" description:"The fit was inferred, not given by a person."`
	WearerGuessed bool     `json:"wearerGuessed" description:"The wearer was inferred, not given by a person."`
	MarkGuessed   bool     `json:"markGuessed" description:"carriesMark was inferred, not given by a person."`
	CarriesMark   bool     `json:"carriesMark" description:"The garment carries the house mark."`
	Mime          string   `json:"mime" description:"The stored type, sniffed from the bytes: image/jpeg, image/png or image/webp for uploads."`
	Tool          *string  `json:"tool" description:"The tool that made the asset; null for uploads."`
	Width         int      `json:"width" description:"Pixels, as displayed (after EXIF orientation)."`
	Height        int      `json:"height" description:"Pixels, as displayed (after EXIF orientation)."`
	Size          int64    `json:"size" description:"Bytes of the stored file."`
	CreatedAt     ts.Time  `json:"createdAt"`
	Approved      bool     `json:"approved" description:"The director's decision, set by the batch patch."`
	ApprovedBy    *string  `json:"approvedBy" description:"The user who approved; null unless approved."`
	ApprovedAt    *ts.Time `json:"approvedAt" description:"When it was approved; null unless approved."`

	// OtherTags are stored tags outside the reserved prefixes; kept as they are.
	OtherTags []string `json:"-"`
}

// File is what the file routes need to serve an asset's bytes.
type File struct {
	ID        string
	HouseID   string
	BlobKey   string
	Mime      string
	ETag      string // quoted SHA-256 of the bytes
	Size      int64
	CreatedAt ts.Time
}

// FileURL is the file route of the asset id.
func FileURL(id string) string { return "/api/toolkit/assets/" + id + "/file" }

// BlobKey is where the bytes of an asset of the house are kept. It is
// derived from ids only, never from user input.
func BlobKey(house, id string) string { return "assets/" + house + "/" + id }

// FrameName names a developed frame: the tool that made it and the last
// six characters of its id (the random tail of a UUIDv7), so frames of one
// tool are told apart in the library.
func FrameName(tool, id string) string {
	if len(id) > 6 {
		id = id[len(id)-6:]
	}
	return tool + " " + id
}

// Reserved tag prefixes.
const (
	tagSKU    = "sku:"
	tagKind   = "kind:"
	tagFit    = "fit:"
	tagWearer = "wearer:"
	tagGroup  = "group:"
)

// ReservedPrefixes are the tag prefixes whose values are asset fields.
var ReservedPrefixes = []string{tagSKU, tagKind, tagFit, tagWearer, tagGroup}

// Tags returns the tags that store a's filing fields, then its other tags.
func (a Asset) Tags() []string {
	var out []string
	if a.SKU != nil {
		out = append(out, tagSKU+*a.SKU)
	}
	if a.Kind != nil {
		out = append(out, tagKind+string(*a.Kind))
	}
	if a.Fit != nil {
		out = append(out, tagFit+string(*a.Fit))
	}
	if a.Wearer != nil {
		out = append(out, tagWearer+string(*a.Wearer))
	}
	if a.GroupID != nil {
		out = append(out, tagGroup+*a.GroupID)
	}
	return append(out, a.OtherTags...)
}

// SetTag reads one stored tag into a: a reserved tag sets its field (a
// value that is not legal is ignored), any other tag is kept in OtherTags.
func (a *Asset) SetTag(tag string) {
	switch {
	case strings.HasPrefix(tag, tagSKU):
		a.SKU = ptr(tag[len(tagSKU):])
	case strings.HasPrefix(tag, tagKind):
		if k := Kind(tag[len(tagKind):]); slices.Contains(UploadKinds, k) {
			a.Kind = &k
		}
	case strings.HasPrefix(tag, tagFit):
		if f := Fit(tag[len(tagFit):]); slices.Contains(Fits, f) {
			a.Fit = &f
		}
	case strings.HasPrefix(tag, tagWearer):
		if w := Wearer(tag[len(tagWearer):]); slices.Contains(Wearers, w) {
			a.Wearer = &w
		}
	case strings.HasPrefix(tag, tagGroup):
		a.GroupID = ptr(tag[len(tagGroup):])
	default:
		a.OtherTags = append(a.OtherTags, tag)
	}
}

// GroupTag is the stored tag of a group id.
func GroupTag(id string) string { return tagGroup + id }

// KindTag is the stored tag of a kind.
func KindTag(k Kind) string { return tagKind + string(k) }

// TagPrefixGroup and TagPrefixKind let the store replace one reserved tag.
const (
	TagPrefixGroup = tagGroup
	TagPrefixKind  = tagKind
)

// Limits on an asset's text.
const (
	MaxName = 200
	MaxSKU  = 64
	// MaxBatch caps the ids of one batch request.
	MaxBatch = 1000
)

// Codes the asset routes answer besides the shared ones.
var (
	ErrBadKind      = errs.New(errs.KindInvalid, "BAD_KIND", "The kind is not one the library files.")
	ErrBadSKU       = errs.New(errs.KindInvalid, "BAD_SKU", "A SKU is 1 to 64 printable characters without surrounding spaces.")
	ErrBadFolder    = errs.New(errs.KindInvalid, "BAD_FOLDER", "The collection is not one of this house's.")
	ErrBadAssetIDs  = errs.New(errs.KindInvalid, "BAD_ASSET_IDS", "assetIds must be a non-empty list of distinct asset ids.")
	ErrFolderCycle  = errs.New(errs.KindInvalid, "FOLDER_CYCLE", "A collection cannot sit inside itself or one of its own collections.")
	ErrNoImage      = errs.Msg(errs.NoImage, "The form has no file part.")
	ErrEmptyImage   = errs.Msg(errs.EmptyImage, "The file is empty.")
	ErrTooLarge     = errs.With(errs.New(errs.KindTooLarge, "IMAGE_TOO_LARGE", "The image is larger than 12 MB."), "maxMb", MaxMB)
	ErrNotAnImage   = errs.With(errs.Msg(errs.BadForm, "The file must be a JPEG, PNG or WebP image."), "accepted", Accepted)
	ErrUnreadable   = errs.With(errs.Msg(errs.BadForm, "The file could not be read as a JPEG, PNG or WebP image."), "accepted", Accepted)
	errTooManyIDs   = errs.Msg(errs.BadBody, "At most 1000 asset ids may be sent at once.")
	errBadName      = errs.Msg(errs.BadBody, "name must be 1 to 200 characters.")
	errBadFit       = errs.With(errs.Msg(errs.BadBody, "fit must be auto, fitted, regular, loose, oversized or null."), "legal", Fits)
	errBadWearer    = errs.With(errs.Msg(errs.BadBody, "wearer must be women, men, unisex or null."), "legal", Wearers)
	errNoBatchField = errs.Msg(errs.BadBody, "Give at least one of folderId, kind and approved.")
)

// badKind is BAD_KIND naming the legal kinds.
func badKind(legal []Kind) *errs.Error { return errs.With(ErrBadKind, "legal", legal) }

// ParseKind checks k against the legal kinds.
func ParseKind(k string, legal []Kind) (Kind, error) {
	if !slices.Contains(legal, Kind(k)) {
		return "", badKind(legal)
	}
	return Kind(k), nil
}

// CleanName trims a name and checks its length.
func CleanName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxName || strings.ContainsFunc(s, isControl) {
		return "", errBadName
	}
	return s, nil
}

// CheckSKU checks a SKU: 1 to 64 characters, no control characters, no
// surrounding spaces. A SKU is the house's own code and is kept as given.
func CheckSKU(s string) error {
	if s == "" || len(s) > MaxSKU || strings.TrimSpace(s) != s || strings.ContainsFunc(s, isControl) {
		return ErrBadSKU
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r == '\uFFFD' }

func ptr[T any](v T) *T { return &v }
