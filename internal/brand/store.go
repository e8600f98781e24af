package brand

import (
	"context"
	"time"

	"studio/internal/ledger"
)

// Store is what the brand needs from persistence. Every method names the
// house; an id of another house is the same not-found as a missing one.
type Store interface {
	// Profile returns the house's profile as stored (without its clause);
	// Empty() when the house has none.
	Profile(ctx context.Context, house string) (Profile, error)
	// EditProfile reads the profile (Empty() when none), lets edit change
	// it and writes it back, in one transaction. dnaRuns is never written.
	EditProfile(ctx context.Context, house string, edit func(*Profile)) (Profile, error)
	// ClaimFirstRead claims the house's free first read for the read id
	// until the instant given, when the house has had no successful read
	// and no other read holds a claim that has not lapsed; it reports
	// whether it claimed. Claims of one house are serialized.
	ClaimFirstRead(ctx context.Context, house, id string, until time.Time) (bool, error)
	// ReleaseFirstRead gives back the claim the read id holds, if it holds one.
	ReleaseFirstRead(ctx context.Context, house, id string) error
	// SaveRead stores a successful read in one transaction: it posts the
	// read's hold (if any), writes visionEn, vibe, palette and signature
	// keywords, adds one to dnaRuns, gives back the read's claim and logs
	// the read; it returns the profile as stored.
	SaveRead(ctx context.Context, house string, r Read) (Profile, error)

	// InsertMark registers a mark, in one transaction with its checks: the
	// asset is a live asset of the house (else ErrAssetNotFound) of kind
	// mark (else ErrNotAMark), the collection one of the house's (else
	// ErrNoCollection), the asset not yet registered at the level (else
	// ErrRegistered). A negative SortOrder takes one past the level's
	// highest. It returns the mark as stored (filename set).
	InsertMark(ctx context.Context, house, user string, m Mark) (Mark, error)
	// Marks lists the marks of one level ("" the house set, else a
	// collection) whose assets are live, lowest sortOrder first, then oldest.
	Marks(ctx context.Context, house, level string) ([]Mark, error)
	// HasCollection reports whether the collection is one of the house's.
	HasCollection(ctx context.Context, house, id string) (bool, error)
	// GetMark returns one mark of the house.
	GetMark(ctx context.Context, house, id string) (Mark, error)
	// UpdateMark reads a mark, lets edit change it and writes it back, in
	// one transaction.
	UpdateMark(ctx context.Context, house, id string, edit func(*Mark)) (Mark, error)
	// DeleteMark removes a mark; its asset stays in the library.
	DeleteMark(ctx context.Context, house, id string) error
	// AssetFolder returns the collection an asset of the house is filed
	// in, deleted or not: "" for the root or an unknown asset.
	AssetFolder(ctx context.Context, house, assetID string) (string, error)
}

// Ledger is what a re-read needs from the token ledger: its hold, taken
// before the model is asked and voided when the read fails (SaveRead
// posts it with the read).
type Ledger interface {
	// TakeHold reserves the hold's tokens; ledger.ErrInsufficientTokens
	// (402) when the house is short, and nothing is held.
	TakeHold(ctx context.Context, house string, h ledger.Hold) error
	// VoidHold releases a pending hold: nothing is spent.
	VoidHold(ctx context.Context, house, holdID string) error
}
