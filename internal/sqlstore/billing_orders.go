package sqlstore

// A paid order grants what was paid for, once, and a subscription's events
// count in the order they happened (billing/order.go; tables in
// migrations/00114_paid_orders.sql).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"studio/internal/billing"
)

// orderSeenTx reports whether the order was granted or refused before.
func orderSeenTx(ctx context.Context, tx *Tx, provider, orderID string) (bool, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM entitlements WHERE provider = ? AND order_id = ?)
		+ (SELECT COUNT(*) FROM billing_refusals WHERE provider = ? AND order_id = ?)`, provider, orderID, provider, orderID).Scan(&n)
	return n > 0, err
}

// foreignOrderTx says why an order for house belongs to another house ("" when it
// does not): its customer is tied to another house at the provider, or
// (a first payment) its subscription is another house's plan's.
func (db *DB) foreignOrderTx(ctx context.Context, tx *Tx, provider, house string, kind billing.Kind, ev billing.Event) (string, error) {
	if ev.CustomerID != "" {
		var other string
		err := tx.QueryRow(ctx, `SELECT organization_id FROM billing_customers WHERE provider = ? AND customer_id = ?`,
			provider, ev.CustomerID).Scan(&other)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		if err == nil && other != house {
			return "its customer " + ev.CustomerID + " is another house's (" + other + ")", nil
		}
	}
	if kind == billing.KindSubscription && ev.SubscriptionID != "" {
		var other string
		err := tx.QueryRow(ctx, `SELECT organization_id FROM plans WHERE provider = ? AND subscription_id = ?`,
			provider, ev.SubscriptionID).Scan(&other)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		if err == nil && other != house {
			return "its subscription " + ev.SubscriptionID + " is another house's (" + other + ")", nil
		}
	}
	return "", nil
}

// refuseTx records the order as refused, once, and raises the operator
// alert; nothing is granted. The delivery is acknowledged (200 refused),
// so the provider does not retry it for ever.
func (db *DB) refuseTx(ctx context.Context, tx *Tx, provider, house, kind string, ev billing.Event, why string, now int64) (billing.Outcome, error) {
	res, err := tx.Exec(ctx, `INSERT INTO billing_refusals (provider, order_id, organization_id, reason, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (provider, order_id) DO NOTHING`, provider, ev.OrderID, nullStr(house), kind, now)
	if err != nil {
		return billing.Outcome{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return billing.Outcome{Result: billing.Duplicate, House: house}, err
	}
	subject := "A paid " + provider + " order was not granted: " + why
	detail, err := json.Marshal(map[string]any{"provider": provider, "orderId": ev.OrderID, "organizationId": house,
		"checkoutId": ev.CheckoutID, "subscriptionId": ev.SubscriptionID, "customerId": ev.CustomerID,
		"amountCents": ev.AmountCents, "currency": ev.Currency, "reason": why, "action": "refund the order at the provider"})
	if err != nil {
		return billing.Outcome{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO operator_alerts (id, kind, subject, detail, created_at) VALUES (?, ?, ?, ?, ?)`,
		uuid.Must(uuid.NewV7()).String(), kind, subject, string(detail), now); err != nil {
		return billing.Outcome{}, err
	}
	return billing.Outcome{Result: billing.Refused, House: house, Reason: why}, nil
}

// subLockSpace is the first key of the PostgreSQL advisory locks that
// serialise a subscription's events (the second is its id's hash).
const subLockSpace = 0x53554253 // "SUBS"

// lockSubscriptionTx serialises the transactions that record and fold a
// subscription's events, so that an event recorded while its first payment
// is applied is in that payment's fold or sees its plan (SQLite has one
// writer already). Taken before the house's lock, always.
func (db *DB) lockSubscriptionTx(ctx context.Context, tx *Tx, provider, subscriptionID string) error {
	if db.engine != Postgres || subscriptionID == "" {
		return nil
	}
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, subLockSpace, provider+":"+subscriptionID)
	return err
}

// subEventTx records an event of a subscription, once per delivery.
func (db *DB) subEventTx(ctx context.Context, tx *Tx, provider, deliveryID string, ev billing.Event, now int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO billing_sub_events (provider, subscription_id, delivery_id, event_type, occurred_at, period_end,
		ends_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (provider, subscription_id, delivery_id) DO NOTHING`,
		provider, ev.SubscriptionID, deliveryID, string(ev.Type), ev.At.UnixMilli(), msOrNull(ev.PeriodEnd), msOrNull(ev.EndsAt), now)
	return err
}

func msOrNull(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// refoldPlanTx sets the house's plan's status, renewal and end to the fold
// of its subscription's events (billing.Fold), and reports whether they
// changed.
func (db *DB) refoldPlanTx(ctx context.Context, tx *Tx, provider, house, subscriptionID string, now int64) (bool, error) {
	rows, err := tx.Query(ctx, `SELECT event_type, occurred_at, created_at, period_end, ends_at FROM billing_sub_events
		WHERE provider = ? AND subscription_id = ? ORDER BY occurred_at, created_at, delivery_id`, provider, subscriptionID)
	if err != nil {
		return false, err
	}
	var evs []billing.SubEvent
	for rows.Next() {
		var e billing.SubEvent
		var typ string
		var at, created int64
		var period, ends sql.NullInt64
		if err := rows.Scan(&typ, &at, &created, &period, &ends); err != nil {
			rows.Close()
			return false, err
		}
		e.Type, e.At, e.Seq = billing.EventType(typ), msTime(at), created
		if period.Valid {
			e.PeriodEnd = msTime(period.Int64)
		}
		if ends.Valid {
			e.EndsAt = msTime(ends.Int64)
		}
		evs = append(evs, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	f, ok := billing.Fold(evs)
	if !ok {
		return false, nil
	}
	var status string
	var renews, ends sql.NullInt64
	if err := tx.QueryRow(ctx, `SELECT status, renews_at, ends_at FROM plans WHERE organization_id = ? AND provider = ? AND subscription_id = ?`,
		house, provider, subscriptionID).Scan(&status, &renews, &ends); err != nil {
		return false, err
	}
	newRenews, newEnds := renews, msOrNull(f.EndsAt)
	if !f.RenewsAt.IsZero() {
		newRenews = msOrNull(f.RenewsAt)
	}
	if status == string(f.Status) && newRenews == renews && newEnds == ends {
		return false, nil
	}
	_, err = tx.Exec(ctx, `UPDATE plans SET status = ?, renews_at = ?, ends_at = ?, updated_at = ? WHERE organization_id = ?`,
		string(f.Status), newRenews, newEnds, now, house)
	return err == nil, err
}

// applySubEventTx records a subscription's status event and, when a plan
// mirrors the subscription, folds it in: updated when the plan moved,
// ignored when the event changes nothing in the order of events (a stale
// or redundant one). Before the first payment it is kept: deferred, to
// count when the payment lands. A revoke voids a held referral reward the
// plan brought.
func (db *DB) applySubEventTx(ctx context.Context, tx *Tx, provider, deliveryID string, ev billing.Event, now int64) (billing.Outcome, error) {
	if ev.SubscriptionID == "" {
		return billing.Outcome{Result: billing.Unmatched}, nil
	}
	if err := db.lockSubscriptionTx(ctx, tx, provider, ev.SubscriptionID); err != nil {
		return billing.Outcome{}, err
	}
	if err := db.subEventTx(ctx, tx, provider, deliveryID, ev, now); err != nil {
		return billing.Outcome{}, err
	}
	var house string
	err := tx.QueryRow(ctx, `SELECT organization_id FROM plans WHERE provider = ? AND subscription_id = ?`,
		provider, ev.SubscriptionID).Scan(&house)
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Outcome{Result: billing.Deferred}, nil
	} else if err != nil {
		return billing.Outcome{}, err
	}
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return billing.Outcome{}, err
	}
	moved, err := db.refoldPlanTx(ctx, tx, provider, house, ev.SubscriptionID, now)
	if err != nil {
		return billing.Outcome{}, err
	}
	if !moved {
		return billing.Outcome{Result: billing.IgnoredResult, House: house}, nil
	}
	if ev.Type == billing.SubscriptionRevoked { // ended at once: a held referral reward it brought is void
		if err := db.voidRewardsTx(ctx, tx, house, now); err != nil {
			return billing.Outcome{}, err
		}
	}
	return billing.Outcome{Result: billing.Updated, House: house}, nil
}
