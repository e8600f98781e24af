// Package look is the lookbook (SPEC §4.6, DECISIONS §6): a look composes
// a model, up to six pieces, a background and an aesthetic; it is developed
// once to a look base (the lock stage), locked on one of those frames, and
// fanned out into variation frames. It also holds what looks are built
// from: output destinations, the standing preset, the factory that proposes
// and creates looks in batches, the posture library, the background presets
// and the shot templates.
//
// Choices made where the contract is silent:
//
//   - A look's jobs use the tool "lookbook" (priced by the ledger's lookbook
//     row) and carry params lookId, stage (lock or variation), key,
//     outputWidth, outputHeight, destination, aesthetic and background, so
//     their runs group as look.<id>.lock and look.<id>.variation.
//   - A destination whose long edge exceeds the tier's pixels adds one
//     restoration pass to each frame's hold: the upscale price at the next
//     tier (at 4k, which has no next tier, the 4k upscale price). The job's
//     params say so (restore=1) and the engine develops that frame at twice
//     the tier's pixels.
//   - "A develop in flight" is any job of the look still queued or running.
//     develop-lock, lock, unlock and variations all refuse while one is.
//   - Lock accepts the result of any done job of the look; locking a locked
//     look moves its base to the new frame.
//   - Look.variations lists the variation keys the look was planned with
//     (the factory's); the detail's variations are the variation jobs.
//   - Labels: a piece without a label takes its asset's name.
//   - Items: the first piece marked hero leads; with none marked, the first
//     piece is the hero; more than one hero is BAD_ITEM.
package look

import (
	"slices"
	"strings"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Status is where a look stands.
type Status string

// The look statuses (DECISIONS §6).
const (
	Draft  Status = "draft"
	Locked Status = "locked"
)

// Stage names a look develop: the lock develop or a variation frame.
type Stage string

// The stages of a look's jobs.
const (
	StageLock      Stage = "lock"
	StageVariation Stage = "variation"
)

// Tool is the develop tool of every look frame.
const Tool = "lookbook"

// Limits (DECISIONS §6, SPEC §8).
const (
	MaxItems  = 6
	MaxKeys   = 12
	MaxLooks  = 20
	ListLimit = 50
	maxName   = 120
	maxLabel  = 80
)

// Aesthetics are the grades a look may take.
var Aesthetics = []string{"editorial", "minimal", "street", "studio", "romantic", "noir"}

// BackgroundPresets are the grounds a look may stand on without an asset.
var BackgroundPresets = []string{"studio-white", "studio-grey", "seamless-sand", "concrete", "garden", "city-street", "beach"}

// ItemRoles are the roles a piece may play in a look.
var ItemRoles = []string{"top", "bottom", "dress", "outerwear", "shoes", "bag", "accessory", "jewelry"}

// VariationKeys are the fixed variation keys; posture:<id> keys come on top.
var VariationKeys = []string{"front", "back", "side", "three-quarter", "walking", "seated", "detail", "close-up"}

// PosturePrefix starts a variation key that names a posture.
const PosturePrefix = "posture:"

// Codes raised by looks.
var (
	ErrNameRequired    = errs.Msg(errs.NameRequired, "A look needs a name.")
	ErrModelRequired   = errs.New(errs.KindInvalid, "MODEL_REQUIRED", "A look needs a model asset.")
	ErrItemsRequired   = errs.New(errs.KindInvalid, "ITEMS_REQUIRED", "A look needs at least one piece.")
	ErrTooManyItems    = errs.New(errs.KindInvalid, "TOO_MANY_ITEMS", "A look takes at most 6 pieces.")
	ErrBadItem         = errs.New(errs.KindInvalid, "BAD_ITEM", "Each piece needs an asset id and one of the legal roles, once, with at most one hero.")
	ErrBadBackground   = errs.New(errs.KindInvalid, "BAD_BACKGROUND", "The background must be {kind: preset, value} with a legal preset, or {kind: asset, assetId}.")
	ErrBadAesthetic    = errs.New(errs.KindInvalid, "BAD_AESTHETIC", "The aesthetic must be one of the legal values.")
	ErrBadQuality      = errs.BadQuality
	ErrKeysRequired    = errs.New(errs.KindInvalid, "KEYS_REQUIRED", "Name at least one variation key.")
	ErrTooManyFrames   = errs.Msg(errs.TooManyFrames, "At most 12 variation keys a request.")
	ErrUnknownVariant  = errs.New(errs.KindInvalid, "UNKNOWN_VARIATION", "A variation key is not one of the legal keys or a known posture.")
	ErrAssetRequired   = errs.Msg(errs.AssetRequired, "Name the frame to lock on (assetId).")
	ErrAssetNotFound   = errs.AssetNotFound
	ErrDevelopInFlight = errs.New(errs.KindConflict, "DEVELOP_IN_FLIGHT", "A develop of this look is still queued or running.")
	ErrLookLocked      = errs.New(errs.KindConflict, "LOOK_LOCKED", "The look is locked; unlock it to develop it again.")
	ErrLockRequired    = errs.New(errs.KindConflict, "LOCK_REQUIRED", "Lock the look on a frame before asking for variations.")
	ErrNotALookFrame   = errs.New(errs.KindUnprocessable, "NOT_A_LOOK_FRAME", "That asset is not a developed frame of this look.")
	ErrAssetsRequired  = errs.New(errs.KindInvalid, "ASSETS_REQUIRED", "Name at least one asset.")
	ErrLooksRequired   = errs.New(errs.KindInvalid, "LOOKS_REQUIRED", "Name at least one look.")
	ErrTooManyLooks    = errs.New(errs.KindInvalid, "TOO_MANY_LOOKS", "A factory run makes at most 20 looks.")
)

// Item is one piece of a look.
type Item struct {
	AssetID string `json:"assetId"`
	Role    string `json:"role" enum:"top,bottom,dress,outerwear,shoes,bag,accessory,jewelry"`
	Label   string `json:"label,omitempty" description:"The piece's own name; absent when unusable."`
	Hero    bool   `json:"hero,omitempty" description:"True on the single piece the look sells."`
}

// Background is what a look stands on: a preset or a house asset.
type Background struct {
	Kind    string `json:"kind" enum:"preset,asset"`
	Value   string `json:"value,omitempty" description:"The preset, when kind is preset."`
	AssetID string `json:"assetId,omitempty" description:"The background asset, when kind is asset."`
}

// Preset is a look's grade and ground.
type Preset struct {
	Aesthetic  string     `json:"aesthetic"`
	Background Background `json:"background"`
}

// Look is a composition of the house (SPEC §2 Look).
type Look struct {
	ID                string  `json:"id"`
	OrganizationID    string  `json:"organizationId"`
	CreatedByUserID   *string `json:"createdByUserId"`
	BrandID           *string `json:"brandId"`
	Name              string  `json:"name"`
	ModelAssetID      string  `json:"modelAssetId"`
	BackgroundAssetID *string `json:"backgroundAssetId"`
	Items             []Item  `json:"itemAssetIds"`
	Preset            Preset  `json:"preset"`
	Status            Status  `json:"status" enum:"draft,locked"`
	LookBaseAssetID   *string `json:"lookBaseAssetId"`
	LookBaseJobID     *string `json:"lookBaseJobId"`
	// LookBaseParentAssetID is the look base frame's parent: the collage
	// of the house's own model the look casts, recorded at lock.
	LookBaseParentAssetID *string  `json:"lookBaseParentAssetId" description:"The look base frame's parent: the collage of the own model the look casts (its modelAssetId is one of that model's identity assets); null otherwise."`
	Variations            []string `json:"variations" description:"The variation keys the look was planned with."`
	BatchID               *string  `json:"-"`
	CreatedAt             ts.Time  `json:"createdAt"`
	UpdatedAt             ts.Time  `json:"updatedAt"`
}

// Variation is one variation frame of a look, joined to its job.
type Variation struct {
	Key     string  `json:"key"`
	Framing string  `json:"framing" description:"How the key frames the look base, in a few plain words."`
	JobID   string  `json:"jobId"`
	AssetID *string `json:"assetId" description:"The developed frame; null until done."`
	Locked  bool    `json:"locked" description:"True when the frame was developed from the look's current base."`
	Status  string  `json:"status" enum:"queued,running,done,failed,cancelled"`
	Error   *string `json:"error"`
}

// LockDevelop is the look's newest lock-stage develop.
type LockDevelop struct {
	ID            string  `json:"id"`
	Status        string  `json:"status" enum:"queued,running,done,failed,cancelled"`
	ResultAssetID *string `json:"resultAssetId"`
	Error         *string `json:"error"`
}

// Detail is a look with its variation frames and its newest lock develop.
type Detail struct {
	Look        Look         `json:"look"`
	Variations  []Variation  `json:"variations"`
	LockDevelop *LockDevelop `json:"lockDevelop,omitempty" description:"The newest lock-stage develop; absent before the first develop-lock."`
}

// framings describes each fixed variation key.
var framings = map[string]string{
	"front":         "full length, facing the camera",
	"back":          "full length, from behind",
	"side":          "full length, in profile",
	"three-quarter": "full length, turned three-quarters",
	"walking":       "full length, mid-stride",
	"seated":        "seated, full figure",
	"detail":        "tight on the hero piece",
	"close-up":      "head and shoulders",
}

// Framing describes a variation key in plain words.
func Framing(key string, postures Postures) string {
	if f, ok := framings[key]; ok {
		return f
	}
	if id, ok := strings.CutPrefix(key, PosturePrefix); ok {
		if p, ok := postures.Find(id); ok {
			return "posture: " + p.Name
		}
	}
	return key
}

// legalKeys lists the legal variation keys, with the posture form.
func legalKeys() []string {
	return append(slices.Clone(VariationKeys), PosturePrefix+"<posture_id>")
}

// CheckKeys validates variation keys against the fixed keys and the
// postures that can be cast: KEYS_REQUIRED, TOO_MANY_FRAMES or
// UNKNOWN_VARIATION (with legal). Duplicates are refused as unknown.
func CheckKeys(keys []string, postures Postures) error {
	if len(keys) == 0 {
		return ErrKeysRequired
	}
	if len(keys) > MaxKeys {
		return errs.With(ErrTooManyFrames, "max", MaxKeys)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		ok := slices.Contains(VariationKeys, k)
		if id, isPosture := strings.CutPrefix(k, PosturePrefix); isPosture {
			_, ok = postures.Find(id)
		}
		if !ok || seen[k] {
			return errs.With(errs.Msg(ErrUnknownVariant, "The variation key "+quote(k)+" is not legal here (or is repeated)."), "legal", legalKeys())
		}
		seen[k] = true
	}
	return nil
}

// CheckAesthetic validates an aesthetic: BAD_AESTHETIC with legal.
func CheckAesthetic(a string) error {
	if !slices.Contains(Aesthetics, a) {
		return errs.With(ErrBadAesthetic, "legal", Aesthetics)
	}
	return nil
}

// Check validates a background's shape: BAD_BACKGROUND with legal.
func (b *Background) Check() error {
	bad := errs.With(ErrBadBackground, "legal", BackgroundPresets)
	switch b.Kind {
	case "preset":
		if !slices.Contains(BackgroundPresets, b.Value) {
			return bad
		}
		b.AssetID = ""
	case "asset":
		if strings.TrimSpace(b.AssetID) == "" {
			return bad
		}
		b.Value = ""
	default:
		return bad
	}
	return nil
}

// CheckItems validates the pieces of a look and settles the hero: the
// marked one, or the first. Labels are trimmed; unusable ones dropped.
func CheckItems(items []Item) ([]Item, error) {
	if len(items) == 0 {
		return nil, ErrItemsRequired
	}
	if len(items) > MaxItems {
		return nil, errs.With(ErrTooManyItems, "max", MaxItems)
	}
	bad := func(msg string) error { return errs.With(errs.Msg(ErrBadItem, msg), "legal", ItemRoles) }
	out := make([]Item, 0, len(items))
	seen := map[string]bool{}
	heroes := 0
	for _, it := range items {
		it.AssetID = strings.TrimSpace(it.AssetID)
		if it.AssetID == "" {
			return nil, bad("Each piece needs an assetId.")
		}
		if !slices.Contains(ItemRoles, it.Role) {
			return nil, bad("The role " + quote(it.Role) + " is not one of the legal roles.")
		}
		if seen[it.AssetID] {
			return nil, bad("A piece is listed twice.")
		}
		seen[it.AssetID] = true
		it.Label = cleanLabel(it.Label)
		if it.Hero {
			heroes++
		}
		out = append(out, it)
	}
	if heroes > 1 {
		return nil, bad("Only one piece may be the hero.")
	}
	if heroes == 0 {
		out[0].Hero = true
	}
	// The hero leads.
	slices.SortStableFunc(out, func(a, b Item) int {
		switch {
		case a.Hero == b.Hero:
			return 0
		case a.Hero:
			return -1
		}
		return 1
	})
	return out, nil
}

func cleanLabel(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxLabel || strings.ContainsAny(s, "\x00\n\r") {
		return ""
	}
	return s
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return `"` + s + `"`
}
