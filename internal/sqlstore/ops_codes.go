package sqlstore

import (
	"context"
	"time"

	"studio/internal/invite"
)

// OperatorCodes lists the invite codes operators minted, newest first.
func (db *DB) OperatorCodes(ctx context.Context) ([]invite.Code, error) {
	rows, err := db.read().Query(ctx, `SELECT `+codeCols+` FROM invite_codes WHERE owner_user_id IS NULL
		ORDER BY created_at DESC, id DESC LIMIT 1000`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []invite.Code{}
	for rows.Next() {
		c, err := scanCode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RevokeCode stamps an operator's code revoked (the first stamp stays) and
// returns it; errs.NotFound for an unknown id or a user's referral code.
func (db *DB) RevokeCode(ctx context.Context, id string, at time.Time) (invite.Code, error) {
	var c invite.Code
	err := db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE invite_codes SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND owner_user_id IS NULL`,
			at.UnixMilli(), id); err != nil {
			return err
		}
		var err error
		c, err = scanCode(tx.QueryRow(ctx, `SELECT `+codeCols+` FROM invite_codes WHERE id = ? AND owner_user_id IS NULL`, id))
		return err
	})
	return c, err
}
