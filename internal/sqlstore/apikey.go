package sqlstore

import (
	"context"
	"database/sql"

	"studio/internal/apikey"
)

// InsertKey stores a key by the hash of its secret.
func (db *DB) InsertKey(ctx context.Context, house, user string, k apikey.Key, hash string) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO api_keys (id, organization_id, user_id, name, role, prefix, key_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, house, user, k.Name, k.Role, k.Prefix, hash, k.CreatedAt.UnixMilli())
	return err
}

// ListKeys lists the house's keys, newest first, revoked ones included.
func (db *DB) ListKeys(ctx context.Context, house string) ([]apikey.Key, error) {
	rows, err := db.read().Query(ctx, `SELECT id, name, role, prefix, last_used_at, revoked_at, created_at
		FROM api_keys WHERE organization_id = ? ORDER BY created_at DESC, id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []apikey.Key{}
	for rows.Next() {
		var k apikey.Key
		var used, revoked sql.NullInt64
		var created int64
		if err := rows.Scan(&k.ID, &k.Name, &k.Role, &k.Prefix, &used, &revoked, &created); err != nil {
			return nil, err
		}
		k.LastUsedAt, k.RevokedAt = tsPtr(used), tsPtr(revoked)
		k.CreatedAt.Time = msTime(created)
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey stamps revoked_at once; it reports whether the key is the house's.
func (db *DB) RevokeKey(ctx context.Context, house, id string, at int64) (bool, error) {
	res, err := db.writer().Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?)
		WHERE organization_id = ? AND id = ?`, at, house, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// KeyByHash reads a live key by the hash of its secret, with the seat its
// minter holds in the key's house now; a key whose minter holds no seat
// there is not live.
func (db *DB) KeyByHash(ctx context.Context, hash string) (apikey.Resolved, error) {
	var r apikey.Resolved
	var used sql.NullInt64
	err := db.read().QueryRow(ctx, `SELECT k.id, k.organization_id, k.user_id, k.role, s.role, k.last_used_at
		FROM api_keys k JOIN seats s ON s.organization_id = k.organization_id AND s.user_id = k.user_id
		WHERE k.key_hash = ? AND k.revoked_at IS NULL`, hash).Scan(&r.ID, &r.HouseID, &r.UserID, &r.Role, &r.SeatRole, &used)
	if err != nil {
		return apikey.Resolved{}, notFound(err)
	}
	if used.Valid {
		r.LastUsedAt = &used.Int64
	}
	return r, nil
}

// TouchKey records a use, at most once a minute.
func (db *DB) TouchKey(ctx context.Context, house, id string, at int64) error {
	_, err := db.writer().Exec(ctx, `UPDATE api_keys SET last_used_at = ?
		WHERE organization_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`, at, house, id, at-60_000)
	return err
}
