package sqlstore

import (
	"context"
	"database/sql"

	"studio/internal/asset"
	"studio/internal/errs"
)

const folderCols = `id, name, parent_id, created_at`

func scanFolder(row interface{ Scan(...any) error }) (asset.Folder, error) {
	var f asset.Folder
	var parent sql.NullString
	var created int64
	if err := row.Scan(&f.ID, &f.Name, &parent, &created); err != nil {
		return asset.Folder{}, notFound(err)
	}
	f.ParentID = strPtr(parent)
	f.CreatedAt.Time = msTime(created)
	return f, nil
}

// ListFolders lists the house's folders, flat, newest first.
func (db *DB) ListFolders(ctx context.Context, house string) ([]asset.Folder, error) {
	rows, err := db.read().Query(ctx, `SELECT `+folderCols+` FROM folders WHERE organization_id = ? ORDER BY created_at DESC, id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []asset.Folder{}
	for rows.Next() {
		f, err := scanFolder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// GetFolder returns one folder of the house.
func (db *DB) GetFolder(ctx context.Context, house, id string) (asset.Folder, error) {
	return scanFolder(db.read().QueryRow(ctx, `SELECT `+folderCols+` FROM folders WHERE organization_id = ? AND id = ?`, house, id))
}

// InsertFolder writes a folder of the house; errs.NotFound when its parent
// is not one of the house's folders.
func (db *DB) InsertFolder(ctx context.Context, house, user string, f asset.Folder) error {
	return db.write(ctx, func(tx *Tx) error {
		if f.ParentID != nil {
			ok, err := folderExists(ctx, tx, house, *f.ParentID)
			if err != nil {
				return err
			}
			if !ok {
				return errs.NotFound
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO folders (id, organization_id, parent_id, name, created_by_user_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, f.ID, house, nullPtr(f.ParentID), f.Name, nullStr(user), f.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		return reindexCollection(ctx, tx, house, f.ID)
	})
}

// UpdateFolder renames or moves a folder of the house. Moves in one house
// are serialized by the house's lock (lockHouse: the house row on
// PostgreSQL; SQLite has one writer), so two concurrent moves cannot close
// a cycle between them.
func (db *DB) UpdateFolder(ctx context.Context, house, id string, p asset.FolderPatch) (asset.Folder, error) {
	var out asset.Folder
	err := db.write(ctx, func(tx *Tx) error {
		if p.MoveParent {
			if err := db.lockHouse(ctx, tx, house); err != nil {
				return err
			}
		}
		f, err := scanFolder(tx.QueryRow(ctx, `SELECT `+folderCols+` FROM folders WHERE organization_id = ? AND id = ?`, house, id))
		if err != nil {
			return err
		}
		if p.MoveParent && p.ParentID != nil {
			cycle, err := isAncestorOrSelf(ctx, tx, house, id, *p.ParentID)
			if err != nil {
				return err
			}
			if cycle {
				return asset.ErrFolderCycle
			}
		}
		if p.Name != nil {
			f.Name = *p.Name
		}
		if p.MoveParent {
			f.ParentID = p.ParentID
		}
		if p.Name == nil && !p.MoveParent {
			out = f
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE folders SET name = ?, parent_id = ? WHERE organization_id = ? AND id = ?`,
			f.Name, nullPtr(f.ParentID), house, id); err != nil {
			return err
		}
		out = f
		return reindexCollection(ctx, tx, house, id)
	})
	return out, err
}

// isAncestorOrSelf reports whether folder is parent or one of parent's
// ancestors; errs.NotFound when parent is not one of the house's folders.
func isAncestorOrSelf(ctx context.Context, tx *Tx, house, folder, parent string) (bool, error) {
	ok, err := folderExists(ctx, tx, house, parent)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, errs.NotFound
	}
	var one int
	err = tx.QueryRow(ctx, `WITH RECURSIVE up (id, parent_id) AS (
			SELECT id, parent_id FROM folders WHERE organization_id = ? AND id = ?
			UNION
			SELECT f.id, f.parent_id FROM folders f JOIN up ON f.id = up.parent_id WHERE f.organization_id = ?
		)
		SELECT 1 FROM up WHERE id = ? LIMIT 1`, house, parent, house, folder).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}
