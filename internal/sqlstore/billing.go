package sqlstore

// Money (package billing's doc; tables in migrations/00100_billing.sql).
// ApplyDelivery is the only writer of entitlements, plan moves and
// purchased credits: one transaction records the delivery, the entitlement
// and its effect, so a delivery replayed any number of times, at once or
// later, writes them once.

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"studio/internal/billing"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// OpenCheckout records an open checkout.
func (db *DB) OpenCheckout(ctx context.Context, provider string, c billing.Checkout) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO billing_checkouts (id, organization_id, provider, provider_checkout_id, kind, tier,
		tokens, amount_cents, url, status, created_by_user_id, created_at, face_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)`,
		c.ID, c.House, provider, c.ProviderID, string(c.Kind), nullStr(string(c.Tier)), c.Tokens, c.AmountCents, c.URL,
		nullStr(c.UserID), db.nowMs(), nullStr(c.FaceID))
	if errors.Is(translate(err), errUnique) {
		return errs.Conflict // the house's open checkout for the face exists
	}
	return err
}

// OpenFaceCheckout returns the house's open checkout for a face at the
// provider.
func (db *DB) OpenFaceCheckout(ctx context.Context, house, provider, faceID string) (billing.Checkout, bool, error) {
	c, err := scanCheckout(db.read().QueryRow(ctx, `SELECT `+checkoutCols+` FROM billing_checkouts c
		JOIN organizations o ON o.id = c.organization_id
		WHERE c.organization_id = ? AND c.provider = ? AND c.face_id = ? AND c.status = 'open'`, house, provider, faceID))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Checkout{}, false, nil
	}
	return c, err == nil, err
}

// FacePendingElsewhere reports whether another house opened a checkout for
// the face at or after since that is still open.
func (db *DB) FacePendingElsewhere(ctx context.Context, house, faceID string, since time.Time) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM billing_checkouts WHERE face_id = ? AND organization_id <> ?
		AND status = 'open' AND created_at >= ?`, faceID, house, since.UnixMilli()).Scan(&n)
	return n > 0, err
}

const checkoutCols = `c.id, c.organization_id, o.name, c.provider_checkout_id, c.kind, c.tier, c.tokens, c.amount_cents, c.url, c.status,
	c.created_at, c.face_id, (SELECT f.name FROM casting_faces f WHERE f.id = c.face_id)`

func scanCheckout(row interface{ Scan(...any) error }) (billing.Checkout, error) {
	var c billing.Checkout
	var tier, face, faceName sql.NullString
	var created int64
	err := row.Scan(&c.ID, &c.House, &c.HouseName, &c.ProviderID, &c.Kind, &tier, &c.Tokens, &c.AmountCents, &c.URL, &c.Status, &created,
		&face, &faceName)
	c.Tier, c.CreatedAt, c.FaceID, c.FaceName = ledger.PlanTier(tier.String), msTime(created), face.String, faceName.String
	return c, err
}

// CheckoutAt returns a checkout by the provider's id; NOT_FOUND when none.
func (db *DB) CheckoutAt(ctx context.Context, provider, providerID string) (billing.Checkout, error) {
	c, err := scanCheckout(db.read().QueryRow(ctx, `SELECT `+checkoutCols+` FROM billing_checkouts c
		JOIN organizations o ON o.id = c.organization_id WHERE c.provider = ? AND c.provider_checkout_id = ?`, provider, providerID))
	return c, notFound(err)
}

// OpenCheckouts lists the house's open checkouts, newest first.
func (db *DB) OpenCheckouts(ctx context.Context, house string) ([]billing.Checkout, error) {
	rows, err := db.read().Query(ctx, `SELECT `+checkoutCols+` FROM billing_checkouts c JOIN organizations o ON o.id = c.organization_id
		WHERE c.organization_id = ? AND c.status = 'open' ORDER BY c.created_at DESC, c.id DESC LIMIT 50`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []billing.Checkout{}
	for rows.Next() {
		c, err := scanCheckout(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Customer returns the house's customer id at the provider ("" when none).
func (db *DB) Customer(ctx context.Context, house, provider string) (string, error) {
	var id string
	err := db.read().QueryRow(ctx, `SELECT customer_id FROM billing_customers WHERE organization_id = ? AND provider = ?`,
		house, provider).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// HouseOfSubscription returns the house whose plan mirrors the
// subscription; NOT_FOUND when none.
func (db *DB) HouseOfSubscription(ctx context.Context, provider, subscriptionID string) (string, error) {
	var house string
	err := db.read().QueryRow(ctx, `SELECT organization_id FROM plans WHERE provider = ? AND subscription_id = ?`,
		provider, subscriptionID).Scan(&house)
	return house, notFound(err)
}

// MirrorCancel marks the house's plan canceled at endsAt, once the provider
// accepted the cancel of subscriptionID; false when the plan no longer
// mirrors that subscription. The cancel is an event of the subscription,
// dated now, so a later fold of its events keeps it.
func (db *DB) MirrorCancel(ctx context.Context, house, subscriptionID string, endsAt time.Time) (bool, error) {
	moved := false
	err := db.write(ctx, func(tx *Tx) error {
		var mirrored sql.NullString // the provider the plan mirrors, for the subscription's lock (taken before the house's)
		if err := tx.QueryRow(ctx, `SELECT provider FROM plans WHERE organization_id = ?`, house).Scan(&mirrored); err != nil {
			return notFound(err)
		}
		if err := db.lockSubscriptionTx(ctx, tx, mirrored.String, subscriptionID); err != nil {
			return err
		}
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		var provider string
		err := tx.QueryRow(ctx, `SELECT provider FROM plans WHERE organization_id = ? AND subscription_id = ?`, house, subscriptionID).Scan(&provider)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		now := db.nowMs()
		ev := billing.Event{Type: billing.SubscriptionCanceled, SubscriptionID: subscriptionID, EndsAt: endsAt, At: msTime(now)}
		if err := db.subEventTx(ctx, tx, provider, "local-cancel:"+uuid.Must(uuid.NewV7()).String(), ev, now); err != nil {
			return err
		}
		moved = true
		_, err = db.refoldPlanTx(ctx, tx, provider, house, subscriptionID, now)
		return err
	})
	return moved, err
}

// SetBillingEmail records where the house's billing letters go.
func (db *DB) SetBillingEmail(ctx context.Context, house, email string) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO billing_settings (organization_id, email, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET email = excluded.email, updated_at = excluded.updated_at`, house, email, db.nowMs())
	return err
}

// Entitlements lists the house's entitlements, newest first.
func (db *DB) Entitlements(ctx context.Context, house string) ([]billing.Entitlement, error) {
	rows, err := db.read().Query(ctx, `SELECT e.id, e.provider, e.order_id, e.kind, e.tier, e.tokens, e.amount_cents, e.created_at, e.face_id,
		e.claim, v.revoked_at FROM entitlements e
		LEFT JOIN entitlement_revocations v ON v.organization_id = e.organization_id AND v.entitlement_id = e.id
		WHERE e.organization_id = ? ORDER BY e.created_at DESC, e.id DESC LIMIT 200`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []billing.Entitlement{}
	for rows.Next() {
		var e billing.Entitlement
		var tier, face, claim sql.NullString
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&e.ID, &e.Provider, &e.OrderID, &e.Kind, &tier, &e.Tokens, &e.AmountCents, &created, &face, &claim,
			&revoked); err != nil {
			return nil, err
		}
		e.Tier, e.CreatedAt, e.FaceID, e.Claim = tier.String, ts.Milli(created), face.String, claim.String
		e.Status, e.RevokedAt = "active", tsPtr(revoked)
		if revoked.Valid {
			e.Status = "revoked"
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ApplyDelivery records a verified delivery and applies its event in one
// transaction. offer returns a plan tier's terms. The outcome says what
// happened: granted, updated, duplicate, unmatched or ignored.
func (db *DB) ApplyDelivery(ctx context.Context, provider, deliveryID string, ev billing.Event,
	offer func(ledger.PlanTier) (ledger.PlanOffer, bool)) (billing.Outcome, error) {
	var out billing.Outcome
	err := db.write(ctx, func(tx *Tx) error {
		now := db.nowMs()
		res, err := tx.Exec(ctx, `INSERT INTO billing_deliveries (provider, delivery_id, event_type, outcome, received_at)
			VALUES (?, ?, ?, '', ?) ON CONFLICT (provider, delivery_id) DO NOTHING`, provider, deliveryID, ev.Raw, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			out = billing.Outcome{Result: billing.Duplicate}
			return err
		}
		if ev.At.IsZero() {
			ev.At = msTime(now) // a provider that dates nothing: it happened when it arrived
		}
		switch ev.Type {
		case billing.OrderPaid:
			out, err = db.applyOrderTx(ctx, tx, provider, deliveryID, ev, offer, now)
		case billing.SubscriptionCanceled, billing.SubscriptionRevoked, billing.SubscriptionPastDue, billing.SubscriptionActive,
			billing.SubscriptionUncanceled:
			out, err = db.applySubEventTx(ctx, tx, provider, deliveryID, ev, now)
		default:
			out = billing.Outcome{Result: billing.IgnoredResult}
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE billing_deliveries SET outcome = ? WHERE provider = ? AND delivery_id = ?`,
			string(out.Result), provider, deliveryID)
		return err
	})
	return out, err
}

// applyOrderTx writes a paid order's entitlement and its effect, unless
// the order is not what was sold (billing.Mismatch), its customer or
// subscription is another house's, or its checkout was granted already
// (by another order): then nothing is granted, the order is recorded as
// refused (once) and an operator alert raised (billing/order.go).
func (db *DB) applyOrderTx(ctx context.Context, tx *Tx, provider, deliveryID string, ev billing.Event,
	offer func(ledger.PlanTier) (ledger.PlanOffer, bool), now int64) (billing.Outcome, error) {
	var house, checkoutID string
	var kind billing.Kind
	var tier ledger.PlanTier
	var tokens, price int64
	var face sql.NullString
	entKind := ""
	switch {
	case ev.CheckoutID != "" && !ev.Renewal:
		var t sql.NullString
		err := tx.QueryRow(ctx, `SELECT id, organization_id, kind, tier, tokens, amount_cents, face_id FROM billing_checkouts
			WHERE provider = ? AND provider_checkout_id = ?`, provider, ev.CheckoutID).Scan(&checkoutID, &house, &kind, &t, &tokens, &price, &face)
		if errors.Is(err, sql.ErrNoRows) {
			return billing.Outcome{Result: billing.Unmatched}, nil
		} else if err != nil {
			return billing.Outcome{}, err
		}
		tier, entKind = ledger.PlanTier(t.String), string(kind)
	case ev.SubscriptionID != "":
		var t string
		err := tx.QueryRow(ctx, `SELECT organization_id, tier FROM plans WHERE provider = ? AND subscription_id = ?`,
			provider, ev.SubscriptionID).Scan(&house, &t)
		if errors.Is(err, sql.ErrNoRows) {
			return billing.Outcome{Result: billing.Unmatched}, nil
		} else if err != nil {
			return billing.Outcome{}, err
		}
		kind, tier, entKind = billing.KindSubscription, ledger.PlanTier(t), "renewal"
		o, ok := offer(tier)
		if !ok {
			return billing.Outcome{}, errors.New("billing: no offer for tier " + string(tier))
		}
		price = o.PriceUSD * 100
	default:
		return billing.Outcome{Result: billing.Unmatched}, nil
	}
	if kind == billing.KindSubscription {
		if err := db.lockSubscriptionTx(ctx, tx, provider, ev.SubscriptionID); err != nil {
			return billing.Outcome{}, err
		}
	}
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return billing.Outcome{}, err
	}
	if seen, err := orderSeenTx(ctx, tx, provider, ev.OrderID); err != nil || seen {
		return billing.Outcome{Result: billing.Duplicate}, err
	}
	if why, err := db.foreignOrderTx(ctx, tx, provider, house, kind, ev); err != nil {
		return billing.Outcome{}, err
	} else if why != "" {
		return db.refuseTx(ctx, tx, provider, house, billing.AlertCustomerConflict, ev, why, now)
	}
	if why := billing.Mismatch(ev, price); why != "" {
		return db.refuseTx(ctx, tx, provider, house, billing.AlertPaymentMismatch, ev, why, now)
	}
	entID := uuid.Must(uuid.NewV7()).String()
	if checkoutID != "" { // a checkout grants once, whatever the order ids
		res, err := tx.Exec(ctx, `INSERT INTO billing_checkout_grants (provider, checkout_id, entitlement_id, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (provider, checkout_id) DO NOTHING`, provider, checkoutID, entID, now)
		if err != nil {
			return billing.Outcome{}, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return billing.Outcome{}, err
		} else if n == 0 {
			return db.refuseTx(ctx, tx, provider, house, billing.AlertDuplicateOrder, ev, "its checkout was granted by another order", now)
		}
	}
	res, err := tx.Exec(ctx, `INSERT INTO entitlements (id, organization_id, provider, order_id, kind, tier, tokens, amount_cents,
		checkout_id, subscription_id, created_at, face_id) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) ON CONFLICT (provider, order_id) DO NOTHING`,
		entID, house, provider, ev.OrderID, entKind, nullStr(string(tier)), ev.AmountCents, nullStr(checkoutID),
		nullStr(ev.SubscriptionID), now, face)
	if err != nil {
		return billing.Outcome{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return billing.Outcome{Result: billing.Duplicate}, err
	}
	result := billing.Granted
	reference := provider + ":" + ev.OrderID
	var credit ledger.Credit
	switch kind {
	case billing.KindModel:
		if result, err = db.claimPaidFaceTx(ctx, tx, house, face.String, entID, now); err != nil {
			return billing.Outcome{}, err
		}
	case billing.KindTopUp, billing.KindCustom:
		credit = ledger.NewTopUp(tokens, reference)
	case billing.KindSubscription:
		o, ok := offer(tier)
		if !ok {
			return billing.Outcome{}, errors.New("billing: no offer for tier " + string(tier))
		}
		end := ev.PeriodEnd
		if end.IsZero() || end.UnixMilli() <= now {
			end = msTime(now).AddDate(0, 1, 0)
		}
		if _, err := tx.Exec(ctx, `UPDATE plans SET tier = ?, period_start = ?, provider = ?, subscription_id = ?, updated_at = ?
			WHERE organization_id = ?`, string(tier), now, provider, nullStr(ev.SubscriptionID), now, house); err != nil {
			return billing.Outcome{}, err
		}
		// The payment is an event of the subscription: the plan's status is
		// the fold of them all, in the order they happened.
		ev.PeriodEnd = end
		if err := db.subEventTx(ctx, tx, provider, deliveryID, ev, now); err != nil {
			return billing.Outcome{}, err
		}
		if _, err := db.refoldPlanTx(ctx, tx, provider, house, ev.SubscriptionID, now); err != nil {
			return billing.Outcome{}, err
		}
		var live int64 // the plan's tokens still live: the period's grant tops them up (ledger.PlanOffer.PeriodGrant)
		if err := tx.QueryRow(ctx, qLivePlanTokens, house, now, house, house, ledger.SourcePlan).Scan(&live); err != nil {
			return billing.Outcome{}, err
		}
		tokens = o.PeriodGrant(live)
		credit = ledger.NewGrant(tokens, ledger.SourcePlan, nil)
		credit.Reference, credit.Reason = reference, "Plan "+o.Name
	}
	creditID := ""
	if tokens > 0 {
		credit.CreatedAt = ts.Milli(now)
		if err := db.addCreditTx(ctx, tx, house, credit); err != nil {
			return billing.Outcome{}, err
		}
		creditID = credit.ID
	}
	if _, err := tx.Exec(ctx, `UPDATE entitlements SET tokens = ?, credit_id = ? WHERE id = ?`, tokens, nullStr(creditID), entID); err != nil {
		return billing.Outcome{}, err
	}
	if entKind == string(billing.KindSubscription) { // a first payment: the referral program's host reward, held
		if err := db.referralRewardTx(ctx, tx, house, entID, now); err != nil {
			return billing.Outcome{}, err
		}
	}
	if checkoutID != "" {
		if _, err := tx.Exec(ctx, `UPDATE billing_checkouts SET status = 'paid', paid_at = ? WHERE id = ? AND status = 'open'`,
			now, checkoutID); err != nil {
			return billing.Outcome{}, err
		}
	}
	if ev.CustomerID != "" {
		if _, err := tx.Exec(ctx, `INSERT INTO billing_customers (organization_id, provider, customer_id) VALUES (?, ?, ?)
			ON CONFLICT (organization_id, provider) DO UPDATE SET customer_id = excluded.customer_id`,
			house, provider, ev.CustomerID); err != nil {
			return billing.Outcome{}, err
		}
	}
	return billing.Outcome{Result: result, House: house, Entitlement: entID, Tokens: tokens}, nil
}

// claimPaidFaceTx gives the house its claim on a paid face: the exclusive
// claim for an exclusive face, a purchase for one on sale. A face another
// house already holds exclusively gets no claim: the entitlement says
// taken (the order is to be refunded). The house lock serialises a house's
// deliveries; two houses paying for one exclusive face at once meet the
// partial unique index, and the loser's delivery fails and is retried by
// the provider, to find the face taken.
func (db *DB) claimPaidFaceTx(ctx context.Context, tx *Tx, house, faceID, entID string, now int64) (billing.Result, error) {
	var tier string
	if err := tx.QueryRow(ctx, `SELECT tier FROM casting_faces WHERE id = ?`, faceID).Scan(&tier); err != nil {
		return "", err
	}
	claim := "purchase"
	if tier == "exclusive" {
		claim = "exclusive"
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM face_claims WHERE face_id = ? AND kind = 'exclusive' AND released_at IS NULL
			AND organization_id <> ?`, faceID, house).Scan(&n); err != nil {
			return "", err
		}
		if n > 0 {
			_, err := tx.Exec(ctx, `UPDATE entitlements SET claim = 'taken' WHERE id = ?`, entID)
			return billing.Taken, err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO face_claims (organization_id, face_id, kind, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, face_id) DO UPDATE SET kind = excluded.kind, created_at = excluded.created_at, released_at = NULL`,
		house, faceID, claim, now); err != nil {
		return "", err
	}
	_, err := tx.Exec(ctx, `UPDATE entitlements SET claim = ? WHERE id = ?`, claim, entID)
	return billing.Granted, err
}
