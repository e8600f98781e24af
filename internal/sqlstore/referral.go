package sqlstore

// The referral program's host reward (migrations/00107_referral_rewards.sql):
// a guest's first paid subscription writes it in the delivery's
// transaction; CreditDueRewards credits the held ones once their hold ends.

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"studio/internal/invite"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// referralRewardTx writes the host's reward for the paying house's first
// subscription, when invite.RewardFor grants one: it reads how the house's
// founder came in through invite codes (oldest first), each with the
// code's owner and that owner's personal house. Once per invitation (a
// later subscription, or a replay, writes nothing).
func (db *DB) referralRewardTx(ctx context.Context, tx *Tx, house, entitlementID string, now int64) error {
	var founder string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(founder_user_id, '') FROM organizations WHERE id = ?`, house).Scan(&founder); err != nil || founder == "" {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT i.id, COALESCE(c.owner_user_id, ''), COALESCE(h.id, '') FROM invitations i
		JOIN invite_codes c ON c.id = i.code_id
		LEFT JOIN organizations h ON h.founder_user_id = c.owner_user_id AND h.personal = 1
		WHERE i.user_id = ? AND i.kind = 'code' ORDER BY i.created_at, i.id`, founder)
	if err != nil {
		return err
	}
	var arrivals []invite.Arrival
	for rows.Next() {
		var a invite.Arrival
		if err := rows.Scan(&a.InvitationID, &a.CodeOwner, &a.HostHouseID); err != nil {
			rows.Close()
			return err
		}
		arrivals = append(arrivals, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	r, ok := invite.RewardFor(founder, arrivals, time.UnixMilli(now))
	if !ok {
		return nil
	}
	_, err = tx.Exec(ctx, `INSERT INTO referral_rewards (id, organization_id, host_user_id, invitation_id, guest_organization_id,
		entitlement_id, tokens, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (invitation_id) DO NOTHING`,
		uuid.Must(uuid.NewV7()).String(), r.HostHouseID, r.HostUserID, r.InvitationID, house, entitlementID, r.Tokens, r.DueAt.UnixMilli(), now)
	return err
}

// voidRewardsTx voids the held rewards a house's subscription brought when
// it is revoked before their hold ends.
func (db *DB) voidRewardsTx(ctx context.Context, tx *Tx, house string, now int64) error {
	_, err := tx.Exec(ctx, `UPDATE referral_rewards SET voided_at = ? WHERE guest_organization_id = ?
		AND credited_at IS NULL AND voided_at IS NULL`, now, house)
	return err
}

// CreditDueRewards credits every held reward whose hold ended by at to its
// host's house, each exactly once (concurrent calls and instances credit a
// reward once: the claim is its conditional update); it answers how many
// this call credited.
func (db *DB) CreditDueRewards(ctx context.Context, at time.Time) (int, error) {
	rows, err := db.read().Query(ctx, `SELECT id FROM referral_rewards WHERE due_at <= ? AND credited_at IS NULL AND voided_at IS NULL
		ORDER BY due_at LIMIT 500`, at.UnixMilli())
	if err != nil {
		return 0, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		err := db.write(ctx, func(tx *Tx) error {
			var house string
			var tokens int64
			err := tx.QueryRow(ctx, `SELECT organization_id, tokens FROM referral_rewards WHERE id = ? AND credited_at IS NULL
				AND voided_at IS NULL`, id).Scan(&house, &tokens)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			} else if err != nil {
				return err
			}
			if err := db.lockHouse(ctx, tx, house); err != nil {
				return err
			}
			c := ledger.NewGrant(tokens, ledger.SourceReferral, nil)
			c.CreatedAt, c.Reason, c.Reference = ts.Of(at), "A guest you invited subscribed", "referral:"+id
			res, err := tx.Exec(ctx, `UPDATE referral_rewards SET credited_at = ?, credit_id = ? WHERE id = ? AND credited_at IS NULL
				AND voided_at IS NULL`, at.UnixMilli(), c.ID, id)
			if err != nil {
				return err
			}
			if k, err := res.RowsAffected(); err != nil || k == 0 {
				return err
			}
			n++
			return db.addCreditTx(ctx, tx, house, c)
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
