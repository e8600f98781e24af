package sqlstore

// Auto top-up (package billing's autocharge.go; tables in
// migrations/00105_autocharge.sql): the standing order and its runs, one a
// UTC day per house (the runs' primary key), and the charges a settle
// queued when it took the balance below the threshold (00112).

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"studio/internal/billing"
)

// Autocharge returns the house's standing order (the zero rule when none)
// and its latest run (nil when none).
func (db *DB) Autocharge(ctx context.Context, house string) (billing.AutochargeRule, *billing.AutochargeRun, error) {
	var r billing.AutochargeRule
	var enabled int
	var updated int64
	var by sql.NullString
	err := db.read().QueryRow(ctx, `SELECT enabled, threshold, pack_tokens, updated_by_user_id, updated_at FROM billing_autocharge
		WHERE organization_id = ?`, house).Scan(&enabled, &r.Threshold, &r.PackTokens, &by, &updated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return r, nil, err
	}
	r.Enabled, r.UpdatedBy = enabled == 1, by.String
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

// SetAutocharge writes the house's standing order, armed: the next settle
// that finds the balance below the threshold queues a charge.
func (db *DB) SetAutocharge(ctx context.Context, house, userID string, r billing.AutochargeRule) error {
	enabled := 0
	if r.Enabled {
		enabled = 1
	}
	_, err := db.writer().Exec(ctx, `INSERT INTO billing_autocharge (organization_id, enabled, threshold, pack_tokens,
		updated_by_user_id, updated_at, armed) VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT (organization_id) DO UPDATE SET
		enabled = excluded.enabled, threshold = excluded.threshold, pack_tokens = excluded.pack_tokens,
		updated_by_user_id = excluded.updated_by_user_id, updated_at = excluded.updated_at, armed = 1`,
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

// autochargeAfterPostTx runs in the transaction that posts a hold, under
// the house's lock: when the house has a rule on and its spendable balance
// is now below the threshold, a rule still armed is disarmed and a charge
// queued (billing_autocharge_due); a balance at or above the threshold
// arms the rule again. So a charge is queued once per crossing, whatever
// the concurrency, and a crash after the commit loses none.
func (db *DB) autochargeAfterPostTx(ctx context.Context, tx *Tx, house string, now int64) error {
	var enabled, armed int
	var threshold int64
	err := tx.QueryRow(ctx, `SELECT enabled, armed, threshold FROM billing_autocharge WHERE organization_id = ?`, house).
		Scan(&enabled, &armed, &threshold)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && enabled == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	b, err := db.balanceTx(ctx, tx, house, now)
	if err != nil {
		return err
	}
	switch {
	case b.Balance >= threshold && armed == 0:
		_, err = tx.Exec(ctx, `UPDATE billing_autocharge SET armed = 1 WHERE organization_id = ?`, house)
	case b.Balance < threshold && armed == 1:
		if _, err = tx.Exec(ctx, `UPDATE billing_autocharge SET armed = 0 WHERE organization_id = ?`, house); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO billing_autocharge_due (organization_id, crossed_at) VALUES (?, ?)
			ON CONFLICT (organization_id) DO NOTHING`, house, now)
	}
	return err
}

// ClaimAutochargeDue takes the house whose queued charge waits longest and
// no worker holds (or whose worker's lease lapsed), until leaseUntil.
func (db *DB) ClaimAutochargeDue(ctx context.Context, now, leaseUntil time.Time) (string, bool, error) {
	var house string
	err := db.write(ctx, func(tx *Tx) error {
		q := `SELECT organization_id FROM billing_autocharge_due WHERE lease_until IS NULL OR lease_until < ?
			ORDER BY crossed_at, organization_id LIMIT 1`
		if db.engine == Postgres {
			q += ` FOR UPDATE SKIP LOCKED`
		}
		if err := tx.QueryRow(ctx, q, now.UnixMilli()).Scan(&house); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE billing_autocharge_due SET lease_until = ? WHERE organization_id = ?`, leaseUntil.UnixMilli(), house)
		return err
	})
	return house, err == nil && house != "", err
}

// DoneAutochargeDue removes the house's queued charge once it was dealt with.
func (db *DB) DoneAutochargeDue(ctx context.Context, house string) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM billing_autocharge_due WHERE organization_id = ?`, house)
	return err
}
