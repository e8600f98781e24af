package sqlstore

// The door in (package invite): operators' invitations, the applicant
// list, invite codes and the doors they open.

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"studio/internal/invite"
	"studio/internal/ops"
	"studio/internal/ts"
)

// EmailExists reports whether an account uses the address.
func (db *DB) EmailExists(ctx context.Context, email string) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE email = ?`, email).Scan(&n)
	return n > 0, err
}

const doorCols = `id, email, kind, code_id, grant_tokens, status, invited_by_user_id, user_id, created_at, accepted_at, joined_at`

func scanDoor(row interface{ Scan(...any) error }) (invite.Door, error) {
	var d invite.Door
	var code, by, user sql.NullString
	var created int64
	var accepted, joined sql.NullInt64
	if err := row.Scan(&d.ID, &d.Email, &d.Kind, &code, &d.GrantTokens, &d.Status, &by, &user, &created, &accepted, &joined); err != nil {
		return invite.Door{}, notFound(err)
	}
	d.CodeID, d.InvitedBy, d.UserID = code.String, by.String, user.String
	d.CreatedAt, d.AcceptedAt, d.JoinedAt = ts.Milli(created), tsPtr(accepted), tsPtr(joined)
	return d, nil
}

// IssueInvitation writes an operator's invitation, or gives the address's
// still-issued invitation a new token; an accepted one is left alone.
func (db *DB) IssueInvitation(ctx context.Context, d invite.Door, tokenHash string) (invite.Door, error) {
	var out invite.Door
	err := db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO invitations (id, email, kind, token_hash, grant_tokens, status, invited_by_user_id, created_at)
			VALUES (?, ?, 'admin', ?, 0, 'issued', ?, ?)
			ON CONFLICT (email, kind) DO UPDATE SET token_hash = excluded.token_hash
			WHERE invitations.status = 'issued'`, d.ID, d.Email, tokenHash, nullStr(d.InvitedBy), d.CreatedAt.UnixMilli())
		if err != nil {
			return err
		}
		out, err = scanDoor(tx.QueryRow(ctx, `SELECT `+doorCols+` FROM invitations WHERE email = ? AND kind = 'admin'`, d.Email))
		return err
	})
	return out, err
}

// InvitationByToken reads an operator's invitation by its token's hash.
func (db *DB) InvitationByToken(ctx context.Context, tokenHash string) (invite.Door, error) {
	return scanDoor(db.read().QueryRow(ctx, `SELECT `+doorCols+` FROM invitations WHERE token_hash = ?`, tokenHash))
}

// AcceptInvitation marks an issued invitation accepted by the user.
func (db *DB) AcceptInvitation(ctx context.Context, id, userID string, at int64) error {
	res, err := db.writer().Exec(ctx, `UPDATE invitations SET status = 'accepted', accepted_at = ?, user_id = ?
		WHERE id = ? AND status = 'issued'`, at, userID, id)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// AddApplicant adds an address to the applicant list; false when it was
// there already.
func (db *DB) AddApplicant(ctx context.Context, a invite.Applicant) (bool, error) {
	res, err := db.writer().Exec(ctx, `INSERT INTO invite_requests (id, email, name, house, website, details, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`,
		a.ID, a.Email, a.Name, nullStr(a.House), nullStr(a.Website), a.Details, a.Status, a.CreatedAt.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

const codeCols = `id, code, label, grant_tokens, max_uses, used_count, joined_count, owner_user_id, created_by_user_id,
	expires_at, revoked_at, created_at`

func scanCode(row interface{ Scan(...any) error }) (invite.Code, error) {
	var c invite.Code
	var owner, by sql.NullString
	var exp, rev sql.NullInt64
	var created int64
	if err := row.Scan(&c.ID, &c.Code, &c.Label, &c.GrantTokens, &c.MaxUses, &c.UsedCount, &c.JoinedCount, &owner, &by,
		&exp, &rev, &created); err != nil {
		return invite.Code{}, notFound(err)
	}
	c.Owner, c.CreatedBy = owner.String, by.String
	c.ExpiresAt, c.RevokedAt, c.CreatedAt = tsPtr(exp), tsPtr(rev), ts.Milli(created)
	return c, nil
}

// InsertCode writes an invite code; invite.ErrCodeTaken when its text (or
// its owner's referral code) exists already.
func (db *DB) InsertCode(ctx context.Context, c invite.Code) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO invite_codes (id, code, label, grant_tokens, max_uses, used_count, joined_count,
			owner_user_id, created_by_user_id, expires_at, revoked_at, created_at)
		VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)`, c.ID, c.Code, c.Label, c.GrantTokens, c.MaxUses,
		nullStr(c.Owner), nullStr(c.CreatedBy), msPtr(c.ExpiresAt), msPtr(c.RevokedAt), c.CreatedAt.UnixMilli())
	if errors.Is(err, errUnique) {
		return invite.ErrCodeTaken
	}
	return err
}

// ReferralCode returns the user's own code.
func (db *DB) ReferralCode(ctx context.Context, userID string) (invite.Code, error) {
	return scanCode(db.read().QueryRow(ctx, `SELECT `+codeCols+` FROM invite_codes WHERE owner_user_id = ?`, userID))
}

// Redeem reads the code under a lock, asks decide, and when it says use,
// counts the use and opens the address's door with the code's grant.
func (db *DB) Redeem(ctx context.Context, code, email string, at int64, decide func(invite.Code, bool) (bool, error)) (invite.Code, error) {
	var c invite.Code
	err := db.write(ctx, func(tx *Tx) error {
		q := `SELECT ` + codeCols + ` FROM invite_codes WHERE code = ?`
		if db.engine == Postgres {
			q += ` FOR UPDATE`
		}
		var err error
		if c, err = scanCode(tx.QueryRow(ctx, q, code)); err != nil {
			return err
		}
		var in int
		if err := tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM invitations WHERE email = ?) + (SELECT COUNT(*) FROM users WHERE email = ?)`,
			email, email).Scan(&in); err != nil {
			return err
		}
		use, err := decide(c, in > 0)
		if err != nil || !use {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE invite_codes SET used_count = used_count + 1 WHERE id = ?`, c.ID); err != nil {
			return err
		}
		c.UsedCount++
		_, err = tx.Exec(ctx, `INSERT INTO invitations (id, email, kind, code_id, grant_tokens, status, created_at)
			VALUES (?, ?, 'code', ?, ?, 'opened', ?)`, uuid.Must(uuid.NewV7()).String(), email, c.ID, c.GrantTokens, at)
		return err
	})
	return c, err
}

// Invitees lists the addresses a code let in, newest first.
func (db *DB) Invitees(ctx context.Context, codeID string) ([]invite.Invitee, error) {
	rows, err := db.read().Query(ctx, `SELECT i.email, i.created_at, i.joined_at, r.created_at FROM invitations i
		LEFT JOIN referral_rewards r ON r.invitation_id = i.id AND r.voided_at IS NULL
		WHERE i.code_id = ? ORDER BY i.created_at DESC, i.id DESC`, codeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []invite.Invitee{}
	for rows.Next() {
		var v invite.Invitee
		var at int64
		var joined, subscribed sql.NullInt64
		if err := rows.Scan(&v.Email, &at, &joined, &subscribed); err != nil {
			return nil, err
		}
		v.InvitedAt, v.SignedUp, v.Subscribed, v.SubscribedAt = ts.Milli(at), joined.Valid, subscribed.Valid, tsPtr(subscribed)
		out = append(out, v)
	}
	return out, rows.Err()
}

func msPtr(t *ts.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

const applicantCols = `id, email, name, house, website, status, decision_reason, created_at, decided_at`

func scanApplicant(row interface{ Scan(...any) error }) (ops.Applicant, error) {
	var a ops.Applicant
	var house, website, reason sql.NullString
	var created int64
	var decided sql.NullInt64
	if err := row.Scan(&a.ID, &a.Email, &a.Name, &house, &website, &a.Status, &reason, &created, &decided); err != nil {
		return ops.Applicant{}, notFound(err)
	}
	a.House, a.Website, a.DecisionReason = strPtr(house), strPtr(website), strPtr(reason)
	a.CreatedAt, a.DecidedAt = ts.Milli(created), tsPtr(decided)
	return a, nil
}

// Applicants lists the applicant list of a status ("" for all), newest
// first.
func (db *DB) Applicants(ctx context.Context, status string, limit int) ([]ops.Applicant, error) {
	q, args := `SELECT `+applicantCols+` FROM invite_requests`, []any{}
	if status != "" {
		q, args = q+` WHERE status = ?`, append(args, status)
	}
	rows, err := db.read().Query(ctx, q+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Applicant{}
	for rows.Next() {
		a, err := scanApplicant(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Applicant reads one applicant.
func (db *DB) Applicant(ctx context.Context, id string) (ops.Applicant, error) {
	return scanApplicant(db.read().QueryRow(ctx, `SELECT `+applicantCols+` FROM invite_requests WHERE id = ?`, id))
}
