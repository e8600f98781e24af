package sqlstore

// The operators' entitlements (package ops, entitlements.go): the list
// across houses and the revoke (tables in migrations/00087).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"studio/internal/billing"
	"studio/internal/ops"
	"studio/internal/ts"
)

const adminEntitlementCols = `e.id, e.organization_id, o.name, e.provider, e.order_id, e.kind, e.tier, e.face_id, e.claim, e.tokens,
	e.credit_id, e.amount_cents, e.created_at, v.revoked_at, v.revoked_by_user_id, v.reason, v.tokens_taken, v.tokens_pending,
	v.claim_released`

const adminEntitlementFrom = ` FROM entitlements e JOIN organizations o ON o.id = e.organization_id
	LEFT JOIN entitlement_revocations v ON v.organization_id = e.organization_id AND v.entitlement_id = e.id`

func scanAdminEntitlement(row interface{ Scan(...any) error }) (ops.Entitlement, error) {
	var e ops.Entitlement
	var tier, face, claim, credit, by, reason sql.NullString
	var created int64
	var revokedAt, taken, pending, released sql.NullInt64
	if err := row.Scan(&e.ID, &e.House.ID, &e.House.Name, &e.Provider, &e.OrderID, &e.Kind, &tier, &face, &claim, &e.Tokens,
		&credit, &e.AmountCents, &created, &revokedAt, &by, &reason, &taken, &pending, &released); err != nil {
		return ops.Entitlement{}, err
	}
	e.Tier, e.FaceID, e.Claim, e.CreditID, e.CreatedAt = tier.String, face.String, claim.String, credit.String, ts.Milli(created)
	e.Status = ops.EntitlementActive
	if revokedAt.Valid {
		e.Status = ops.EntitlementRevoked
		e.Revocation = &ops.Revocation{RevokedAt: ts.Milli(revokedAt.Int64), Reason: reason.String, TokensTakenBack: taken.Int64,
			TokensPending: pending.Int64, ClaimReleased: released.Int64 == 1}
		if by.Valid {
			e.Revocation.RevokedBy = &by.String
		}
	}
	return e, nil
}

// EntitlementsAcross lists entitlements of every house (or one), newest
// first, at most f.Limit.
func (db *DB) EntitlementsAcross(ctx context.Context, f ops.EntitlementFilter) ([]ops.Entitlement, error) {
	var where []string
	var args []any
	if f.House != "" {
		where, args = append(where, "e.organization_id = ?"), append(args, f.House)
	}
	if f.Kind != "" {
		where, args = append(where, "e.kind = ?"), append(args, f.Kind)
	}
	switch f.Status {
	case ops.EntitlementActive:
		where = append(where, "v.entitlement_id IS NULL")
	case ops.EntitlementRevoked:
		where = append(where, "v.entitlement_id IS NOT NULL")
	case "":
	default:
		return nil, fmt.Errorf("entitlements: status %q", f.Status)
	}
	if c := f.Before; c != nil {
		where = append(where, "(e.created_at < ? OR (e.created_at = ? AND e.id < ?))")
		args = append(args, c.CreatedAt, c.CreatedAt, c.ID)
	}
	q := `SELECT ` + adminEntitlementCols + adminEntitlementFrom
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY e.created_at DESC, e.id DESC LIMIT ?`
	rows, err := db.read().Query(ctx, q, append(args, f.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Entitlement{}
	for rows.Next() {
		e, err := scanAdminEntitlement(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// RevokeEntitlement ends an entitlement, once, in one transaction under
// the house's ledger lock, writing its effect as rows of their own:
//
//   - the credit the order wrote: what is left of it is taken back
//     (revokeCreditTx); pending holds keep their reservations, and a void
//     of one later gives its part to the revocation, not to the house;
//   - a model order's claim on the face is released, unless another
//     unrevoked order of the house claims the same face;
//   - a referral reward the order brought that is still held is voided;
//   - the revocation row: by whom, why, and the figures answered.
//
// A repeat writes nothing and answers the first revoke. An unknown id is
// NOT_FOUND. The plan row is left as the provider's subscription has it:
// the provider alone moves a plan (its cancel or revoke delivery).
func (db *DB) RevokeEntitlement(ctx context.Context, id, by, reason string) (ops.Entitlement, error) {
	err := db.write(ctx, func(tx *Tx) error {
		var house string
		var kind billing.Kind
		var credit, face, claim sql.NullString
		if err := tx.QueryRow(ctx, `SELECT organization_id, kind, credit_id, face_id, claim FROM entitlements WHERE id = ?`,
			id).Scan(&house, &kind, &credit, &face, &claim); err != nil {
			return notFound(err)
		}
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM entitlement_revocations WHERE organization_id = ? AND entitlement_id = ?`,
			house, id).Scan(&n); err != nil || n > 0 {
			return err // revoked before: the answer below is the first one's
		}
		now := db.nowMs()
		var taken, pending int64
		if credit.Valid {
			var err error
			if taken, pending, _, err = db.revokeCreditTx(ctx, tx, house, credit.String, now); err != nil {
				return err
			}
		}
		released := 0
		if kind == billing.KindModel && (claim.String == "purchase" || claim.String == "exclusive") {
			res, err := tx.Exec(ctx, `UPDATE face_claims SET released_at = ? WHERE organization_id = ? AND face_id = ? AND released_at IS NULL
				AND NOT EXISTS (SELECT 1 FROM entitlements e WHERE e.organization_id = face_claims.organization_id
					AND e.face_id = face_claims.face_id AND e.id <> ? AND e.claim IN ('purchase', 'exclusive')
					AND NOT EXISTS (SELECT 1 FROM entitlement_revocations v WHERE v.organization_id = e.organization_id AND v.entitlement_id = e.id))`,
				now, house, face.String, id)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				released = 1
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE referral_rewards SET voided_at = ? WHERE guest_organization_id = ? AND entitlement_id = ?
			AND credited_at IS NULL AND voided_at IS NULL`, now, house, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO entitlement_revocations (entitlement_id, organization_id, credit_id, tokens_taken, tokens_pending,
			claim_released, reason, revoked_by_user_id, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, house, credit, taken, pending, released, nullStr(reason), nullStr(by), now)
		return err
	})
	if err != nil {
		return ops.Entitlement{}, err
	}
	e, err := scanAdminEntitlement(db.read().QueryRow(ctx, `SELECT `+adminEntitlementCols+adminEntitlementFrom+` WHERE e.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ops.Entitlement{}, notFound(err)
	}
	return e, err
}
