package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// The fixed-window counters of internal/ratelimit, shared by every instance
// on the same database. A take is one statement: the insert creates the
// window's row at 1, or the conflicting row is raised by one only while it
// is under the limit; no row back means the limit was reached.

// RateTake counts one event for key in the window [start, end) unless
// limit are already counted; it reports whether it counted.
func (db *DB) RateTake(ctx context.Context, key string, start, end int64, limit int) (bool, error) {
	var n int64
	err := db.writer().QueryRow(ctx, `INSERT INTO rate_counters (k, w, n, ends_at) VALUES (?, ?, 1, ?)
		ON CONFLICT (k, w) DO UPDATE SET n = rate_counters.n + 1 WHERE rate_counters.n < ?
		RETURNING n`, key, start, end, limit).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// RateGive takes back one event of key's window starting at start.
func (db *DB) RateGive(ctx context.Context, key string, start int64) error {
	_, err := db.writer().Exec(ctx, `UPDATE rate_counters SET n = n - 1 WHERE k = ? AND w = ? AND n > 0`, key, start)
	return err
}

// RatePrune deletes the windows that ended at or before now.
func (db *DB) RatePrune(ctx context.Context, now int64) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM rate_counters WHERE ends_at <= ?`, now)
	return err
}
