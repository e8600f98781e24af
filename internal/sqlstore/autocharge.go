package sqlstore

// Auto top-up (package billing's autocharge.go; tables in
// migrations/00105_autocharge.sql): the standing order and its runs, one a
// UTC day per house (the runs' primary key).

import (
	"context"
	"database/sql"
	"errors"

	"studio/internal/billing"
)

// Autocharge returns the house's standing order (the zero rule when none)
// and its latest run (nil when none).
func (db *DB) Autocharge(ctx context.Context, house string) (billing.AutochargeRule, *billing.AutochargeRun, error) {
	var r billing.AutochargeRule
	var enabled int
	var updated int64
	err := db.read().QueryRow(ctx, `SELECT enabled, threshold, pack_tokens, updated_at FROM billing_autocharge
		WHERE organization_id = ?`, house).Scan(&enabled, &r.Threshold, &r.PackTokens, &updated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return r, nil, err
	}
	r.Enabled = enabled == 1
	if err == nil {
		r.UpdatedAt = msTime(updated)
	}
	var run billing.AutochargeRun
	var created int64
	err = db.read().QueryRow(ctx, `SELECT day, checkout_id, tokens, created_at FROM billing_autocharge_runs
		WHERE organization_id = ? ORDER BY day DESC LIMIT 1`, house).Scan(&run.Day, &run.CheckoutID, &run.Tokens, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil, nil
	} else if err != nil {
		return r, nil, err
	}
	run.CreatedAt = msTime(created)
	return r, &run, nil
}

// SetAutocharge writes the house's standing order.
func (db *DB) SetAutocharge(ctx context.Context, house, userID string, r billing.AutochargeRule) error {
	enabled := 0
	if r.Enabled {
		enabled = 1
	}
	_, err := db.writer().Exec(ctx, `INSERT INTO billing_autocharge (organization_id, enabled, threshold, pack_tokens,
		updated_by_user_id, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET
		enabled = excluded.enabled, threshold = excluded.threshold, pack_tokens = excluded.pack_tokens,
		updated_by_user_id = excluded.updated_by_user_id, updated_at = excluded.updated_at`,
		house, enabled, r.Threshold, r.PackTokens, nullStr(userID), db.nowMs())
	return err
}

// ClaimAutochargeDay records the day's run; false when the house has one
// for that day already (a concurrent run claimed it).
func (db *DB) ClaimAutochargeDay(ctx context.Context, house string, run billing.AutochargeRun) (bool, error) {
	res, err := db.writer().Exec(ctx, `INSERT INTO billing_autocharge_runs (organization_id, day, checkout_id, tokens, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (organization_id, day) DO NOTHING`,
		house, run.Day, run.CheckoutID, run.Tokens, run.CreatedAt.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReleaseAutochargeDay forgets the day's run (the provider refused it), so
// a later run may charge.
func (db *DB) ReleaseAutochargeDay(ctx context.Context, house, day string) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM billing_autocharge_runs WHERE organization_id = ? AND day = ?`, house, day)
	return err
}
