package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"studio/internal/asset"
	"studio/internal/errs"
)

// tagSep joins an asset's tags in one column; no tag holds a control
// character (names and SKUs refuse them, the rest are ours).
const tagSep = "\x1f"

// assetCols are the columns of an asset row as the wire shows it, its tags
// aggregated into the last one by a correlated subquery, so one row is one
// asset and a page's LIMIT counts assets. The subquery reads only the
// primary key of asset_tags (asset_id, tag): the row it is correlated with
// is already the house's (the outer WHERE names the house), asset ids are
// unique across houses, and the foreign key (organization_id, asset_id)
// keeps a tag in its asset's house, so repeating organization_id there
// would change no answer and cost a table read per tag (an eighth of the
// list's time).
const assetCols = `a.id, a.name, a.folder_id, a.mime, a.width, a.height, a.size_bytes, a.tool,
	a.fit_guessed, a.wearer_guessed, a.mark_guessed, a.carries_mark, a.approved_by_user_id, a.approved_at, a.created_at,
	(SELECT string_agg(t.tag, '` + tagSep + `') FROM asset_tags t WHERE t.asset_id = a.id)`

// assetOrder is the library's order: newest first, then by id.
const assetOrder = ` ORDER BY a.created_at DESC, a.id DESC`

// selectAssets is the statement that reads the assets a WHERE clause
// selects, newest first; tail follows the order (a LIMIT). The clause must
// name the house.
func selectAssets(where, tail string) string {
	return `SELECT ` + assetCols + ` FROM assets a WHERE ` + where + assetOrder + tail
}

// eachAsset runs a selectAssets statement and calls fn with each asset as
// its row is read. An error from fn ends the read and is returned.
func eachAsset(ctx context.Context, q *Tx, query string, args []any, fn func(asset.Asset) error) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a asset.Asset
		var folder, tool, approvedBy, tags sql.NullString
		var approvedAt sql.NullInt64
		var created int64
		if err := rows.Scan(&a.ID, &a.Name, &folder, &a.Mime, &a.Width, &a.Height, &a.Size, &tool,
			&a.FitGuessed, &a.WearerGuessed, &a.MarkGuessed, &a.CarriesMark, &approvedBy, &approvedAt, &created, &tags); err != nil {
			return err
		}
		a.URL = asset.FileURL(a.ID)
		a.FolderID, a.Tool, a.ApprovedBy = strPtr(folder), strPtr(tool), strPtr(approvedBy)
		a.ApprovedAt = tsPtr(approvedAt)
		a.Approved = a.ApprovedAt != nil
		a.CreatedAt.Time = msTime(created)
		if tags.Valid {
			for tag := range strings.SplitSeq(tags.String, tagSep) {
				a.SetTag(tag)
			}
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryAssets reads the assets a WHERE clause selects, newest first. The
// clause must name the house.
func queryAssets(ctx context.Context, q *Tx, where string, args ...any) ([]asset.Asset, error) {
	out := []asset.Asset{}
	err := eachAsset(ctx, q, selectAssets(where, ""), args, func(a asset.Asset) error {
		out = append(out, a)
		return nil
	})
	return out, err
}

func strPtr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

func nullPtr(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// inList returns "(?, ?, ...)" for n values and the values as arguments.
func inList(ids []string) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

func folderExists(ctx context.Context, tx *Tx, house, id string) (bool, error) {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM folders WHERE organization_id = ? AND id = ?`, house, id).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

func insertTags(ctx context.Context, tx *Tx, house, id string, tags []string) error {
	for _, tag := range tags {
		if _, err := tx.Exec(ctx, `INSERT INTO asset_tags (organization_id, asset_id, tag) VALUES (?, ?, ?)`, house, id, tag); err != nil {
			return err
		}
	}
	return nil
}

// InsertAsset writes a new asset and its tags and, when hold is not empty,
// posts that ledger hold, in one transaction: the row and the charge for
// its classification commit together or not at all. errs.NotFound when the
// asset's folder is not one of the house's.
func (db *DB) InsertAsset(ctx context.Context, house, user string, a asset.Asset, f asset.File, hold string) error {
	return db.write(ctx, func(tx *Tx) error {
		if err := db.insertAssetTx(ctx, tx, house, user, a, f); err != nil {
			return err
		}
		if hold != "" {
			return db.postHoldTx(ctx, tx, house, hold)
		}
		return nil
	})
}

// insertAssetTx writes an asset row and its tags inside tx (an upload, or
// a developed frame stored by the job engine in its own transaction).
// f.ETag may be quoted or bare hex. errs.NotFound when the asset's folder
// is not one of the house's.
func (db *DB) insertAssetTx(ctx context.Context, tx *Tx, house, user string, a asset.Asset, f asset.File) error {
	if a.FolderID != nil {
		ok, err := folderExists(ctx, tx, house, *a.FolderID)
		if err != nil {
			return err
		}
		if !ok {
			return errs.NotFound
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO assets (id, organization_id, created_by_user_id, folder_id, name, mime, width, height,
		size_bytes, sha256, blob_key, tool, fit_guessed, wearer_guessed, mark_guessed, carries_mark, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, house, nullStr(user), nullPtr(a.FolderID), a.Name, a.Mime, a.Width, a.Height,
		f.Size, strings.Trim(f.ETag, `"`), f.BlobKey, nullPtr(a.Tool), b2i(a.FitGuessed), b2i(a.WearerGuessed),
		b2i(a.MarkGuessed), b2i(a.CarriesMark), a.CreatedAt.UnixMilli()); err != nil {
		return err
	}
	if err := insertTags(ctx, tx, house, a.ID, a.Tags()); err != nil {
		return err
	}
	if a.Tool != nil { // a developed frame is no piece
		return nil
	}
	return reindexPieces(ctx, tx, house, `a.id = ?`, a.ID)
}

// ListAssets calls fn with each live asset of the house q selects, newest
// first, as the rows are read: every asset, those of one folder or (for
// asset.RootFolder) those at the root, below q.Before, at most q.Limit when
// it is set. One query; the order and a page's start are a range of the
// index assets_house_created (assets_house_folder with a folder) on both
// engines.
func (db *DB) ListAssets(ctx context.Context, house string, q asset.ListQuery, fn func(asset.Asset) error) error {
	query, args := listAssetsQuery(house, q)
	return eachAsset(ctx, db.read(), query, args, fn)
}

// listAssetsQuery is the statement ListAssets runs, and its arguments.
func listAssetsQuery(house string, q asset.ListQuery) (string, []any) {
	where, args := `a.organization_id = ? AND a.deleted_at IS NULL`, []any{house}
	switch q.Folder {
	case "":
	case asset.RootFolder:
		where += ` AND a.folder_id IS NULL`
	default:
		where += ` AND a.folder_id = ?`
		args = append(args, q.Folder)
	}
	if q.Before != nil {
		where += ` AND (a.created_at, a.id) < (?, ?)`
		args = append(args, q.Before.CreatedAt, q.Before.ID)
	}
	tail := ""
	if q.Limit > 0 {
		tail = ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return selectAssets(where, tail), args
}

func getAsset(ctx context.Context, q *Tx, house, id string) (asset.Asset, error) {
	as, err := queryAssets(ctx, q, `a.organization_id = ? AND a.id = ? AND a.deleted_at IS NULL`, house, id)
	if err != nil {
		return asset.Asset{}, err
	}
	if len(as) == 0 {
		return asset.Asset{}, errs.NotFound
	}
	return as[0], nil
}

// GetAsset returns one live asset of the house.
func (db *DB) GetAsset(ctx context.Context, house, id string) (asset.Asset, error) {
	return getAsset(ctx, db.read(), house, id)
}

// AssetFile returns where a live asset's bytes are kept.
func (db *DB) AssetFile(ctx context.Context, house, id string) (asset.File, error) {
	f := asset.File{HouseID: house}
	var created int64
	err := db.read().QueryRow(ctx, `SELECT id, blob_key, mime, sha256, size_bytes, created_at FROM assets
		WHERE organization_id = ? AND id = ? AND deleted_at IS NULL`, house, id).
		Scan(&f.ID, &f.BlobKey, &f.Mime, &f.ETag, &f.Size, &created)
	if err != nil {
		return asset.File{}, notFound(err)
	}
	f.ETag = `"` + f.ETag + `"`
	f.CreatedAt.Time = msTime(created)
	return f, nil
}

// AssetHouse names the house of a live asset, whichever house it is. It is
// the one asset query that does not name the caller's house: the legacy
// bytes route answers 403, not 404, for another house's asset (SPEC §4.4).
func (db *DB) AssetHouse(ctx context.Context, id string) (string, error) {
	var house string
	err := db.read().QueryRow(ctx, `SELECT organization_id FROM assets WHERE id = ? AND deleted_at IS NULL`, id).Scan(&house)
	return house, notFound(err)
}

// UpdateAsset reads a live asset under a row lock, lets edit change it and
// writes it back: its columns and its tags.
func (db *DB) UpdateAsset(ctx context.Context, house, id string, edit func(*asset.Asset) error) (asset.Asset, error) {
	var out asset.Asset
	err := db.write(ctx, func(tx *Tx) error {
		// Lock the row first (PostgreSQL), so concurrent patches queue.
		res, err := tx.Exec(ctx, `UPDATE assets SET name = name WHERE organization_id = ? AND id = ? AND deleted_at IS NULL`, house, id)
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		a, err := getAsset(ctx, tx, house, id)
		if err != nil {
			return err
		}
		before := a.FolderID
		if err := edit(&a); err != nil {
			return err
		}
		if a.FolderID != nil && (before == nil || *before != *a.FolderID) {
			ok, err := folderExists(ctx, tx, house, *a.FolderID)
			if err != nil {
				return err
			}
			if !ok {
				return asset.ErrBadFolder
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE assets SET name = ?, folder_id = ?, fit_guessed = ?, wearer_guessed = ?, mark_guessed = ?, carries_mark = ?
			WHERE organization_id = ? AND id = ?`, a.Name, nullPtr(a.FolderID), b2i(a.FitGuessed), b2i(a.WearerGuessed),
			b2i(a.MarkGuessed), b2i(a.CarriesMark), house, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM asset_tags WHERE organization_id = ? AND asset_id = ?`, house, id); err != nil {
			return err
		}
		if err := insertTags(ctx, tx, house, id, a.Tags()); err != nil {
			return err
		}
		out = a
		return reindexPieces(ctx, tx, house, `a.id = ?`, id)
	})
	return out, err
}

// lockLive returns the ids among ids that are live assets of the house, in
// id order, and on PostgreSQL locks their rows in that order, so that two
// batches over the same assets queue rather than interleave their tag
// rewrites (and never deadlock). SQLite has one writer.
func (db *DB) lockLive(ctx context.Context, tx *Tx, house string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	in, args := inList(ids)
	q := `SELECT id FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN ` + in + ` ORDER BY id`
	if db.engine == Postgres {
		q += ` FOR NO KEY UPDATE`
	}
	rows, err := tx.Query(ctx, q, append([]any{house}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// replaceTag drops the tags of ids that start with prefix and, when tag is
// not empty, gives each id tag instead.
func replaceTag(ctx context.Context, tx *Tx, house string, ids []string, prefix, tag string) error {
	in, args := inList(ids)
	if _, err := tx.Exec(ctx, `DELETE FROM asset_tags WHERE organization_id = ? AND tag LIKE ? AND asset_id IN `+in,
		append([]any{house, prefix + "%"}, args...)...); err != nil {
		return err
	}
	if tag == "" {
		return nil
	}
	for _, id := range ids {
		if err := insertTags(ctx, tx, house, id, []string{tag}); err != nil {
			return err
		}
	}
	return nil
}

// BatchUpdateAssets applies c to the live assets of the house among ids, in
// one transaction, and returns how many it touched. A target folder that
// is not the house's is errs.NotFound, and nothing is written.
func (db *DB) BatchUpdateAssets(ctx context.Context, house, user string, ids []string, c asset.BatchChange, at time.Time) (int, error) {
	var n int
	err := db.write(ctx, func(tx *Tx) error {
		if c.MoveFolder && c.FolderID != nil {
			ok, err := folderExists(ctx, tx, house, *c.FolderID)
			if err != nil {
				return err
			}
			if !ok {
				return errs.NotFound
			}
		}
		live, err := db.lockLive(ctx, tx, house, ids)
		if err != nil || len(live) == 0 {
			return err
		}
		in, args := inList(live)
		if c.MoveFolder {
			if _, err := tx.Exec(ctx, `UPDATE assets SET folder_id = ? WHERE organization_id = ? AND id IN `+in,
				append([]any{nullPtr(c.FolderID), house}, args...)...); err != nil {
				return err
			}
		}
		if c.SetApproved {
			by, when := sql.NullString{}, sql.NullInt64{}
			if c.Approved {
				by, when = nullStr(user), sql.NullInt64{Int64: at.UnixMilli(), Valid: true}
			}
			if _, err := tx.Exec(ctx, `UPDATE assets SET approved_by_user_id = ?, approved_at = ? WHERE organization_id = ? AND id IN `+in,
				append([]any{by, when, house}, args...)...); err != nil {
				return err
			}
		}
		if c.SetKind {
			tag := ""
			if c.Kind != nil {
				tag = asset.KindTag(*c.Kind)
			}
			if err := replaceTag(ctx, tx, house, live, asset.TagPrefixKind, tag); err != nil {
				return err
			}
		}
		n = len(live)
		if c.MoveFolder || c.SetKind {
			return reindexPieces(ctx, tx, house, `a.id IN `+in, args...)
		}
		return nil
	})
	return n, err
}

// DeleteAssets stamps deleted_at on the live assets of the house among ids
// and returns how many it stamped. The bytes stay.
func (db *DB) DeleteAssets(ctx context.Context, house string, ids []string, at time.Time) (int, error) {
	var n int
	err := db.write(ctx, func(tx *Tx) error {
		live, err := db.lockLive(ctx, tx, house, ids)
		if err != nil || len(live) == 0 {
			return err
		}
		in, args := inList(live)
		res, err := tx.Exec(ctx, `UPDATE assets SET deleted_at = ? WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
			append([]any{at.UnixMilli(), house}, args...)...)
		if err != nil {
			return err
		}
		affected, err := res.RowsAffected()
		if err != nil {
			return err
		}
		n = int(affected)
		return reindexPieces(ctx, tx, house, `a.id IN `+in, args...)
	})
	return n, err
}

// GroupAssets gives every id the group's tag in place of any prior group,
// or, when one id is not a live asset of the house, writes nothing and
// answers errs.NotFound.
func (db *DB) GroupAssets(ctx context.Context, house string, ids []string, group string) error {
	return db.write(ctx, func(tx *Tx) error {
		live, err := db.lockLive(ctx, tx, house, ids)
		if err != nil {
			return err
		}
		if len(live) != len(ids) {
			return errs.NotFound
		}
		return replaceTag(ctx, tx, house, ids, asset.TagPrefixGroup, asset.GroupTag(group))
	})
}

// CountAssets counts the live assets of the house among distinct ids.
func (db *DB) CountAssets(ctx context.Context, house string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	in, args := inList(ids)
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
		append([]any{house}, args...)...).Scan(&n)
	return n, err
}

// AssetSizes returns the stored size in bytes of each live asset of the
// house among distinct ids; ids that are not one are absent.
func (db *DB) AssetSizes(ctx context.Context, house string, ids []string) (map[string]int64, error) {
	out := make(map[string]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := db.read().Query(ctx, `SELECT id, size_bytes FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
		append([]any{house}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// qAssetByDigest finds the house's oldest live asset with the bytes of a
// digest (house, sha256 hex), on the index assets_org_sha256.
const qAssetByDigest = `SELECT id FROM assets WHERE organization_id = ? AND sha256 = ? AND deleted_at IS NULL
	ORDER BY created_at, id LIMIT 1`

// ReuseAsset returns the house's oldest live asset whose bytes have the
// digest sum (hex), filing it as kind when kind is not "" and the asset has
// no kind; ok is false when the house has no such asset (nothing written).
func (db *DB) ReuseAsset(ctx context.Context, house, sum string, kind asset.Kind) (string, bool, error) {
	var id string
	err := db.read().QueryRow(ctx, qAssetByDigest, house, sum).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil || kind == "" {
		return id, err == nil, err
	}
	err = db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		return fileKindTx(ctx, tx, house, id, kind)
	})
	return id, err == nil, err
}

// InsertInput writes the row of an input uploaded with a submit, as
// InsertAsset does, unless the house already has a live asset with the
// same bytes (f.ETag): then it writes nothing but the kind (filed on that
// asset when it has none) and returns that asset's id, and the caller
// removes the bytes it stored. The check and the insert run under the
// house's lock, so concurrent submits of one file leave one asset.
func (db *DB) InsertInput(ctx context.Context, house, user string, a asset.Asset, f asset.File) (string, error) {
	id := a.ID
	err := db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		var have string
		err := tx.QueryRow(ctx, qAssetByDigest, house, strings.Trim(f.ETag, `"`)).Scan(&have)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			id = a.ID
			return db.insertAssetTx(ctx, tx, house, user, a, f)
		case err != nil:
			return err
		}
		id = have
		if a.Kind == nil {
			return nil
		}
		return fileKindTx(ctx, tx, house, have, *a.Kind)
	})
	return id, err
}

// fileKindTx files a live asset of the house as kind when it has no kind.
func fileKindTx(ctx context.Context, tx *Tx, house, id string, kind asset.Kind) error {
	_, err := tx.Exec(ctx, `INSERT INTO asset_tags (organization_id, asset_id, tag)
		SELECT ?, ?, ? WHERE NOT EXISTS (
			SELECT 1 FROM asset_tags WHERE organization_id = ? AND asset_id = ? AND tag LIKE ?)`,
		house, id, asset.KindTag(kind), house, id, asset.TagPrefixKind+"%")
	return err
}
