package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"studio/internal/notify"
	"studio/internal/pack"
)

const packCols = `id, organization_id, user_id, mode, status, name, filename, asset_ids, sizes, items, bytes, blob_key, error, attempts, created_at`

func scanPack(row interface{ Scan(...any) error }) (pack.Pack, error) {
	var p pack.Pack
	var user, name, key, errText sql.NullString
	var ids, sizes string
	var created int64
	if err := row.Scan(&p.ID, &p.HouseID, &user, &p.Mode, &p.Status, &name, &p.Filename, &ids, &sizes, &p.Items, &p.Bytes,
		&key, &errText, &p.Attempts, &created); err != nil {
		return pack.Pack{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(ids), &p.AssetIDs); err != nil {
		return pack.Pack{}, fmt.Errorf("pack %s asset ids: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(sizes), &p.Sizes); err != nil {
		return pack.Pack{}, fmt.Errorf("pack %s sizes: %w", p.ID, err)
	}
	p.UserID, p.Name, p.BlobKey, p.Error = user.String, name.String, key.String, errText.String
	p.CreatedAt = msTime(created)
	return p, nil
}

// packEntryChunk bounds the ids of one IN list.
const packEntryChunk = 500

// PackEntries returns the live assets of the house among ids, in the
// order of ids, each once.
func (db *DB) PackEntries(ctx context.Context, house string, ids []string) ([]pack.Entry, error) {
	found := make(map[string]pack.Entry, len(ids))
	for start := 0; start < len(ids); start += packEntryChunk {
		chunk := ids[start:min(len(ids), start+packEntryChunk)]
		in, args := inList(chunk)
		rows, err := db.read().Query(ctx, `SELECT id, name, mime, blob_key, width, height, size_bytes, created_at FROM assets
			WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in, append([]any{house}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var e pack.Entry
			var created int64
			if err := rows.Scan(&e.ID, &e.Name, &e.Mime, &e.BlobKey, &e.Width, &e.Height, &e.Size, &created); err != nil {
				rows.Close()
				return nil, err
			}
			e.CreatedAt = msTime(created)
			found[e.ID] = e
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]pack.Entry, 0, len(found))
	for _, id := range ids {
		if e, ok := found[id]; ok {
			out = append(out, e)
			delete(found, id)
		}
	}
	return out, nil
}

// InsertPack records a pack.
func (db *DB) InsertPack(ctx context.Context, p pack.Pack) error {
	ids, err := json.Marshal(p.AssetIDs)
	if err != nil {
		return err
	}
	sizes, err := json.Marshal(p.Sizes)
	if err != nil {
		return err
	}
	_, err = db.writer().Exec(ctx, `INSERT INTO packs (id, organization_id, user_id, mode, status, name, filename, asset_ids, sizes,
		items, bytes, blob_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.HouseID, nullStr(p.UserID), p.Mode, p.Status, nullStr(p.Name), p.Filename, string(ids), string(sizes),
		p.Items, p.Bytes, nullStr(p.BlobKey), p.CreatedAt.UnixMilli())
	return err
}

// GetPack returns a pack of the house created at or after since.
func (db *DB) GetPack(ctx context.Context, house, id string, since time.Time) (pack.Pack, error) {
	return scanPack(db.read().QueryRow(ctx, `SELECT `+packCols+` FROM packs
		WHERE organization_id = ? AND id = ? AND created_at >= ?`, house, id, since.UnixMilli()))
}

// ClaimPack takes the oldest queued pack, or a building one whose lease
// ran out, for worker until leaseUntil. On PostgreSQL concurrent builders
// skip each other's locked rows; on SQLite the single writer serialises
// them. The queue spans every house, so the first query names none; the
// claim itself does.
func (db *DB) ClaimPack(ctx context.Context, worker string, leaseUntil time.Time) (p pack.Pack, ok bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		q := `SELECT id, organization_id FROM packs
			WHERE status = 'queued' OR (status = 'building' AND lease_until < ?)
			ORDER BY created_at, id LIMIT 1`
		if db.engine == Postgres {
			q += ` FOR UPDATE SKIP LOCKED`
		}
		var id, house string
		if err := tx.QueryRow(ctx, q, db.nowMs()).Scan(&id, &house); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE packs SET status = 'building', lease_owner = ?, lease_until = ?, attempts = attempts + 1
			WHERE organization_id = ? AND id = ?`, worker, leaseUntil.UnixMilli(), house, id); err != nil {
			return err
		}
		p, err = scanPack(tx.QueryRow(ctx, `SELECT `+packCols+` FROM packs WHERE organization_id = ? AND id = ?`, house, id))
		ok = err == nil
		return err
	})
	return p, ok, err
}

// errPackLeaseLost reports a pack the worker no longer holds.
var errPackLeaseLost = errors.New("pack: the builder no longer holds the pack")

// FinishPack marks a pack the worker holds ready with the archive's size
// and raises n in the same transaction.
func (db *DB) FinishPack(ctx context.Context, p pack.Pack, worker string, size int64, n notify.Notification) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE packs SET status = 'ready', bytes = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL
			WHERE organization_id = ? AND id = ? AND status = 'building' AND lease_owner = ?`, size, db.nowMs(), p.HouseID, p.ID, worker)
		if err != nil {
			return err
		}
		if k, err := res.RowsAffected(); err != nil || k != 1 {
			return errors.Join(errPackLeaseLost, err)
		}
		_, err = insertNotification(ctx, tx, n)
		return err
	})
}

// FailPack marks a pack the worker holds failed with the reason.
func (db *DB) FailPack(ctx context.Context, p pack.Pack, worker, reason string) error {
	_, err := db.writer().Exec(ctx, `UPDATE packs SET status = 'failed', error = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL
		WHERE organization_id = ? AND id = ? AND status = 'building' AND lease_owner = ?`, reason, db.nowMs(), p.HouseID, p.ID, worker)
	return err
}

// ExpiredPackBlobs returns up to limit packs, of any house, created before
// before that still keep an archive in the blob store.
func (db *DB) ExpiredPackBlobs(ctx context.Context, before time.Time, limit int) ([]pack.Pack, error) {
	rows, err := db.read().Query(ctx, `SELECT `+packCols+` FROM packs
		WHERE blob_key IS NOT NULL AND created_at < ? AND status IN ('ready', 'failed')
		ORDER BY created_at LIMIT ?`, before.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pack.Pack
	for rows.Next() {
		p, err := scanPack(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ForgetPackBlob records that a pack of the house keeps no archive.
func (db *DB) ForgetPackBlob(ctx context.Context, house, id string) error {
	_, err := db.writer().Exec(ctx, `UPDATE packs SET blob_key = NULL WHERE organization_id = ? AND id = ?`, house, id)
	return err
}
