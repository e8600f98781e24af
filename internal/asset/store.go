package asset

import (
	"context"
	"time"
)

// Store is what the library needs from persistence. Every method names the
// house; an id of another house is the same errs.NotFound as a missing one.
type Store interface {
	// InsertAsset writes a new asset row and its tags and, when hold is
	// not empty, posts that ledger hold, in one transaction; errs.NotFound
	// when the asset's folder is not a folder of the house.
	InsertAsset(ctx context.Context, house, user string, a Asset, f File, hold string) error
	// ListAssets calls fn with each live asset of the house q selects,
	// newest first (created_at, then id, descending), as it reads them, in
	// one query: all of them or those of one folder (RootFolder: those at
	// the root), below q.Before, at most q.Limit when it is not 0. An error
	// from fn stops the list and is returned.
	ListAssets(ctx context.Context, house string, q ListQuery, fn func(Asset) error) error
	// GetAsset returns a live asset of the house.
	GetAsset(ctx context.Context, house, id string) (Asset, error)
	// AssetFile returns where a live asset's bytes are.
	AssetFile(ctx context.Context, house, id string) (File, error)
	// AssetHouse names the house that owns a live asset, whichever it is:
	// only the legacy bytes route asks, to answer 403 for another house's.
	AssetHouse(ctx context.Context, id string) (string, error)
	// UpdateAsset reads a live asset, lets edit change it and writes it
	// back, in one transaction; ErrBadFolder when the asset is moved to a
	// folder that is not the house's.
	UpdateAsset(ctx context.Context, house, id string, edit func(*Asset) error) (Asset, error)
	// BatchUpdateAssets applies c to the live assets of the house among
	// ids and returns how many it touched; errs.NotFound when c moves them
	// to a folder that is not the house's (nothing written).
	BatchUpdateAssets(ctx context.Context, house, user string, ids []string, c BatchChange, at time.Time) (int, error)
	// DeleteAssets soft-deletes the live assets of the house among ids and
	// returns how many it deleted.
	DeleteAssets(ctx context.Context, house string, ids []string, at time.Time) (int, error)
	// GroupAssets puts every id in the group, replacing any prior group,
	// or writes nothing and answers errs.NotFound when one id is not a live
	// asset of the house.
	GroupAssets(ctx context.Context, house string, ids []string, group string) error
	// CountAssets counts the live assets of the house among distinct ids.
	CountAssets(ctx context.Context, house string, ids []string) (int, error)
	// AssetSizes returns the stored size in bytes of each live asset of
	// the house among distinct ids; ids that are not one are absent.
	AssetSizes(ctx context.Context, house string, ids []string) (map[string]int64, error)
	// ReuseAsset returns the house's oldest live asset whose bytes have
	// the digest sum (hex), filing it as kind when kind is not "" and it
	// has none; ok false when there is none.
	ReuseAsset(ctx context.Context, house, sum string, kind Kind) (id string, ok bool, err error)
	// InsertInput writes an input's row as InsertAsset does (no hold),
	// unless the house has a live asset with the same bytes by then: that
	// one's id is returned (kind filed as ReuseAsset does) and nothing else
	// is written. Concurrent calls with one file leave one asset.
	InsertInput(ctx context.Context, house, user string, a Asset, f File) (id string, err error)
	// PurgeInputs removes the rows of assets a refused submit uploaded (no
	// job refers to them) and returns their blob keys.
	PurgeInputs(ctx context.Context, house string, ids []string) ([]string, error)

	// ListFolders lists the house's folders, newest first.
	ListFolders(ctx context.Context, house string) ([]Folder, error)
	// GetFolder returns one folder of the house.
	GetFolder(ctx context.Context, house, id string) (Folder, error)
	// InsertFolder writes a folder; errs.NotFound when its parent is not the house's.
	InsertFolder(ctx context.Context, house, user string, f Folder) error
	// UpdateFolder renames or moves a folder in one transaction:
	// errs.NotFound for a folder or a parent that is not the house's,
	// ErrFolderCycle for a move under itself.
	UpdateFolder(ctx context.Context, house, id string, p FolderPatch) (Folder, error)
}

// RootFolder is the folder filter that lists the assets at the root.
const RootFolder = "root"
