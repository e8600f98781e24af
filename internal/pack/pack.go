// Package pack is the batch download (SPEC §3 Pack, §4.4 POST
// /api/toolkit/assets/pack, §4.19 packs, §8 pack limits): what a pack is,
// how its size is judged, the zip archive it becomes, and the service that
// records, builds and serves packs.
//
// Choices made where the contract is silent:
//
//   - Only the caller's house's live assets among assetIds count; foreign,
//     deleted and unknown ids are skipped, and none left is the one 404.
//     A frame is one asset; items counts frames. Each frame is the
//     original bytes at the root of the archive, plus one rendition per
//     asked size in a folder named after the size.
//   - bytes estimates the archive: the originals, zip headers, and each
//     rendition at 4 bytes a pixel of its fitted size (an upper bound for
//     the jpeg and png we write). Above MaxFrames or MaxBytes: 413
//     PACK_TOO_LARGE. Under InstantFrames and InstantBytes: an instant
//     pack, ready at once, whose archive is built from the house's live
//     assets on each download (a frame deleted since is left out; none left
//     is 404). Otherwise a queued pack: the builder writes the archive to
//     the blob store ("packs/<house>/<id>.zip"), marks it ready with its
//     real size and raises pack.ready for the requester in the same
//     transaction, or marks it failed with the reason.
//   - Archive entries use zip.Store (images do not compress) and are named
//     "<asset name or id>.<ext>", made safe for a path and de-duplicated
//     as "<name> (2).<ext>", in the order of assetIds. Renditions fit
//     within width x height, are never upscaled, honour EXIF orientation
//     and are jpeg for jpeg and webp sources, png for png sources.
//   - A pack lives Life (7 days) from its creation; after that both pack
//     routes answer the one 404, and the builder deletes a stored
//     archive. status is queued, building, ready or failed; the file of a
//     pack that is not ready is 409 NOT_READY.
//   - seconds estimates the time until the archive is ready: 0 for an
//     instant pack, about one second per 64 MiB for a queued one.
//   - Resizing never needs an outside engine, so the 503 the spec allows
//     when sizes cannot be made is never answered.
//   - A viewer may pack: a download changes nothing and costs nothing.
package pack

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"studio/internal/errs"
	"studio/internal/ts"
)

// Mode says how a pack is delivered.
type Mode string

// The modes.
const (
	Instant Mode = "instant" // built in the download request
	Queued  Mode = "pack"    // built by the builder into the blob store
)

// Status is where a pack got to.
type Status string

// The statuses.
const (
	StatusQueued   Status = "queued"
	StatusBuilding Status = "building"
	StatusReady    Status = "ready"
	StatusFailed   Status = "failed"
)

// Limits decide a pack's mode and ceiling (SPEC §8). The zero value of a
// field means the SPEC's value.
type Limits struct {
	InstantFrames int           // instant when fewer frames than this ...
	InstantBytes  int64         // ... and fewer estimated bytes than this
	MaxFrames     int           // refused above this many frames
	MaxBytes      int64         // refused above this many estimated bytes
	Life          time.Duration // how long a pack and its link live
}

// DefaultLimits are the SPEC's limits.
func DefaultLimits() Limits {
	return Limits{InstantFrames: 250, InstantBytes: 256 << 20, MaxFrames: 700, MaxBytes: 4 << 30, Life: 7 * 24 * time.Hour}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.InstantFrames <= 0 {
		l.InstantFrames = d.InstantFrames
	}
	if l.InstantBytes <= 0 {
		l.InstantBytes = d.InstantBytes
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = d.MaxFrames
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.Life <= 0 {
		l.Life = d.Life
	}
	return l
}

// Request limits.
const (
	MaxIDs       = 10000 // ids in one request; past the frame ceiling by far
	MaxSizes     = 8
	MaxDimension = 8192
	MaxName      = 200
)

// Size asks for a rendition of every frame that fits within Width x Height.
type Size struct {
	Name   string `json:"name" pattern:"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" description:"The folder of these renditions in the archive."`
	Width  int    `json:"width" minimum:"1" maximum:"8192"`
	Height int    `json:"height" minimum:"1" maximum:"8192"`
}

var sizeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Request is the body of POST /api/toolkit/assets/pack.
type Request struct {
	AssetIDs []string `json:"assetIds" required:"true" minItems:"1" description:"The frames; other houses' and removed ids are skipped."`
	Name     string   `json:"name,omitempty" maxLength:"200" description:"Names the archive; absent: pack-<date>."`
	Sizes    []Size   `json:"sizes,omitempty" maxItems:"8" description:"Renditions to add, one folder per size."`
}

// Validate checks the request's shape.
func (r *Request) Validate() error {
	if len(r.AssetIDs) == 0 {
		return errs.Msg(errs.BadBody, "assetIds must list at least one asset id.")
	}
	if len(r.AssetIDs) > MaxIDs {
		return errs.Msg(errs.BadBody, fmt.Sprintf("At most %d asset ids may be packed at once.", MaxIDs))
	}
	for _, id := range r.AssetIDs {
		if id == "" || len(id) > 64 {
			return errs.Msg(errs.BadBody, "assetIds must be asset ids.")
		}
	}
	r.Name = strings.TrimSpace(r.Name)
	if len(r.Name) > MaxName || strings.ContainsFunc(r.Name, unicode.IsControl) {
		return errs.Msg(errs.BadBody, "name must be at most 200 characters.")
	}
	if len(r.Sizes) > MaxSizes {
		return errs.Msg(errs.BadBody, fmt.Sprintf("At most %d sizes may be asked.", MaxSizes))
	}
	seen := map[string]bool{}
	for _, s := range r.Sizes {
		if !sizeName.MatchString(s.Name) {
			return errs.Msg(errs.BadBody, "A size name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit.")
		}
		if seen[strings.ToLower(s.Name)] {
			return errs.Msg(errs.BadBody, "Size names must differ.")
		}
		seen[strings.ToLower(s.Name)] = true
		if s.Width < 1 || s.Height < 1 || s.Width > MaxDimension || s.Height > MaxDimension {
			return errs.Msg(errs.BadBody, fmt.Sprintf("A size's width and height are 1 to %d pixels.", MaxDimension))
		}
	}
	return nil
}

// Pack is a recorded pack.
type Pack struct {
	ID        string
	HouseID   string
	UserID    string
	Mode      Mode
	Status    Status
	Name      string
	Filename  string
	AssetIDs  []string
	Sizes     []Size
	Items     int
	Bytes     int64
	BlobKey   string
	Error     string
	Attempts  int
	CreatedAt time.Time
}

// BlobKey is where the archive of a queued pack of the house is kept.
func BlobKey(house, id string) string { return "packs/" + house + "/" + id + ".zip" }

// FileURL is the file route of the pack id.
func FileURL(id string) string { return "/api/toolkit/packs/" + id + "/file" }

// Created answers POST /api/toolkit/assets/pack.
type Created struct {
	PackID   string  `json:"packId"`
	Mode     Mode    `json:"mode" enum:"instant,pack"`
	Status   Status  `json:"status" enum:"queued,ready"`
	Items    int     `json:"items" description:"Frames in the pack."`
	Bytes    int64   `json:"bytes" description:"Estimated size of the archive."`
	Href     string  `json:"href" description:"The archive's file route; 409 NOT_READY until status is ready."`
	Filename string  `json:"filename"`
	Seconds  int     `json:"seconds" description:"Estimated seconds until the archive is ready; 0 when it is."`
	Error    *string `json:"error" description:"Always null on creation."`
}

// View answers GET /api/toolkit/packs/{id}: where a pack got to.
type View struct {
	PackID    string  `json:"packId"`
	Mode      Mode    `json:"mode" enum:"instant,pack"`
	Status    Status  `json:"status" enum:"queued,building,ready,failed"`
	Items     int     `json:"items"`
	Bytes     int64   `json:"bytes" description:"The archive's size once a queued pack is built; the estimate before."`
	Href      string  `json:"href"`
	Filename  string  `json:"filename"`
	ExpiresAt ts.Time `json:"expiresAt" description:"After this the pack routes answer 404."`
	Error     *string `json:"error" description:"Why a failed pack failed; null otherwise."`
}

// Codes the pack routes answer besides the shared ones.
var (
	ErrTooLarge = errs.New(errs.KindTooLarge, "PACK_TOO_LARGE", "The pack is past the ceiling of 700 frames or 4 GiB.")
	ErrNotReady = errs.New(errs.KindConflict, "NOT_READY", "The pack is not ready yet.")
)

// Entry is one frame as a pack reads it: a live asset of the house.
type Entry struct {
	ID        string
	Name      string
	Mime      string
	BlobKey   string
	Width     int
	Height    int
	Size      int64
	CreatedAt time.Time
}
