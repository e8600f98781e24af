package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/mail"
	"studio/internal/ts"
)

// CreateUser writes the user, the personal house, the founder's owner seat
// and the house's opening plan and grant in one transaction. With gate set
// (STUDIO_SIGNUP=invite) an address without an open door is
// account.ErrInviteNeeded, unless no user exists yet. Any door's grant
// comes with the house, expiring with the trial.
func (db *DB) CreateUser(ctx context.Context, u account.User, pwHash string, h account.House, gate bool) error {
	return db.write(ctx, func(tx *Tx) error {
		if gate {
			if err := admitted(ctx, tx, u.Email, u.CreatedAt.UnixMilli()); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO users (id, name, email, email_verified, password_hash, created_at)
			VALUES (?, ?, ?, 0, ?, ?)`, u.ID, u.Name, u.Email, pwHash, u.CreatedAt.UnixMilli())
		if errors.Is(err, errUnique) {
			return account.ErrRegistered
		}
		if err != nil {
			return err
		}
		personal := 0
		if h.Personal {
			personal = 1
		}
		if _, err := tx.Exec(ctx, `INSERT INTO organizations (id, name, personal, founder_user_id, created_at)
			VALUES (?, ?, ?, ?, ?)`, h.ID, h.Name, personal, h.FounderUserID, h.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO seats (organization_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)`,
			h.ID, u.ID, h.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		if err := db.openHouse(ctx, tx, h); err != nil {
			return err
		}
		return db.joinThroughDoors(ctx, tx, u, h)
	})
}

// Admitted answers account.ErrInviteNeeded unless the address may sign up
// while sign-up is by invitation; CreateUser checks again in its write.
func (db *DB) Admitted(ctx context.Context, email string, now int64) error {
	return admitted(ctx, db.read(), email, now)
}

// admitted answers account.ErrInviteNeeded unless the address has a door
// (an operator's invitation, a redeemed code, a pending seat offer) or the
// installation has no user yet.
func admitted(ctx context.Context, tx *Tx, email string, now int64) error {
	var n int
	err := tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM invitations WHERE email = ?)
		+ (SELECT COUNT(*) FROM seat_invitations WHERE email = ? AND status = 'pending' AND expires_at > ?)
		+ (SELECT CASE WHEN EXISTS (SELECT 1 FROM users) THEN 0 ELSE 1 END)`, email, email, now).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return account.ErrInviteNeeded
	}
	return nil
}

// joinThroughDoors records that the address signed up through its doors
// (the codes count a join) and credits the new house with their grants.
func (db *DB) joinThroughDoors(ctx context.Context, tx *Tx, u account.User, h account.House) error {
	at := h.CreatedAt.UnixMilli()
	var grant int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(SUM(grant_tokens), 0) FROM invitations WHERE email = ? AND joined_at IS NULL`,
		u.Email).Scan(&grant); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE invite_codes SET joined_count = joined_count + 1
		WHERE id IN (SELECT code_id FROM invitations WHERE email = ? AND kind = 'code' AND joined_at IS NULL)`, u.Email); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE invitations SET joined_at = ?, user_id = COALESCE(user_id, ?) WHERE email = ? AND joined_at IS NULL`,
		at, u.ID, u.Email); err != nil {
		return err
	}
	if grant == 0 {
		return nil
	}
	end := ts.Of(h.CreatedAt.Add(ledger.TrialLength))
	c := ledger.NewGrant(grant, ledger.SourceInvite, &end)
	c.CreatedAt, c.Reason = h.CreatedAt, "invite"
	return db.addCreditTx(ctx, tx, h.ID, c)
}

// openHouse is where a new house's opening state is written (plan, grant).
// The ledger adds its rows here.
var openHouseHooks []func(ctx context.Context, db *DB, tx *Tx, h account.House) error

func (db *DB) openHouse(ctx context.Context, tx *Tx, h account.House) error {
	for _, hook := range openHouseHooks {
		if err := hook(ctx, db, tx, h); err != nil {
			return err
		}
	}
	return nil
}

// CountUsers counts every user.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM users`).Scan(&n)
	return n, err
}

const userCols = `id, name, email, email_verified, image, created_at`

func scanUser(row interface{ Scan(...any) error }, extra ...any) (account.User, error) {
	var u account.User
	var created int64
	dest := append([]any{&u.ID, &u.Name, &u.Email, &u.EmailVerified, &u.Image, &created}, extra...)
	if err := row.Scan(dest...); err != nil {
		return account.User{}, notFound(err)
	}
	u.CreatedAt.Time = msTime(created)
	return u, nil
}

// UserCredentials returns the user with an address and the password hash.
func (db *DB) UserCredentials(ctx context.Context, email string) (account.User, string, error) {
	var phc string
	u, err := scanUser(db.read().QueryRow(ctx, `SELECT `+userCols+`, password_hash FROM users WHERE email = ?`, email), &phc)
	return u, phc, err
}

// UserIDByEmail names the user with the (lowercase) address; NOT_FOUND
// when there is none.
func (db *DB) UserIDByEmail(ctx context.Context, email string) (string, error) {
	var id string
	err := db.read().QueryRow(ctx, `SELECT id FROM users WHERE email = ?`, email).Scan(&id)
	return id, notFound(err)
}

// User returns one user.
func (db *DB) User(ctx context.Context, id string) (account.User, error) {
	return scanUser(db.read().QueryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
}

// CreateSession stores a session by the hash of its token.
func (db *DB) CreateSession(ctx context.Context, s account.Session, userID, tokenHash string) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO sessions (id, token_hash, user_id, active_organization_id, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, s.ID, tokenHash, userID, s.ActiveOrganizationID, s.ExpiresAt.UnixMilli(), db.nowMs())
	return err
}

// DeleteSession removes a session.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// SessionByToken resolves a session with its user's seat in the active house.
func (db *DB) SessionByToken(ctx context.Context, tokenHash string) (account.SessionInfo, error) {
	var info account.SessionInfo
	var exp int64
	var role sql.NullString
	err := db.read().QueryRow(ctx, `SELECT s.id, s.active_organization_id, s.expires_at, s.user_id, u.email, st.role
		FROM sessions s
		JOIN users u ON u.id = s.user_id
		LEFT JOIN seats st ON st.organization_id = s.active_organization_id AND st.user_id = s.user_id
		WHERE s.token_hash = ?`, tokenHash).Scan(&info.Session.ID, &info.Session.ActiveOrganizationID, &exp, &info.UserID, &info.Email, &role)
	if err != nil {
		return account.SessionInfo{}, notFound(err)
	}
	info.Session.ExpiresAt.Time = msTime(exp)
	info.Role = auth.Role(role.String)
	return info, nil
}

// RenewSession moves a session's expiry.
func (db *DB) RenewSession(ctx context.Context, id string, expiresAt int64) error {
	_, err := db.writer().Exec(ctx, `UPDATE sessions SET expires_at = ? WHERE id = ?`, expiresAt, id)
	return err
}

// Memberships lists the user's houses, personal house first.
func (db *DB) Memberships(ctx context.Context, userID string) ([]account.Membership, error) {
	rows, err := db.read().Query(ctx, `SELECT o.id, o.name, s.role FROM seats s
		JOIN organizations o ON o.id = s.organization_id
		WHERE s.user_id = ?
		ORDER BY (CASE WHEN o.founder_user_id = s.user_id AND o.personal = 1 THEN 0 ELSE 1 END), s.created_at, o.id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.Membership{}
	for rows.Next() {
		var m account.Membership
		if err := rows.Scan(&m.ID, &m.Name, &m.Role); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetActive points a session at a house where its user holds a seat.
func (db *DB) SetActive(ctx context.Context, sessionID, userID, houseID string) error {
	res, err := db.writer().Exec(ctx, `UPDATE sessions SET active_organization_id = ?
		WHERE id = ? AND user_id = ?
		AND EXISTS (SELECT 1 FROM seats WHERE organization_id = ? AND user_id = ?)`,
		houseID, sessionID, userID, houseID, userID)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// CreateVerification stores an e-mail verification token by its hash.
func (db *DB) CreateVerification(ctx context.Context, userID, tokenHash string, expiresAt int64) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO email_verifications (token_hash, user_id, expires_at) VALUES (?, ?, ?)`,
		tokenHash, userID, expiresAt)
	return err
}

// VerifyEmail consumes a verification token and marks the address verified.
func (db *DB) VerifyEmail(ctx context.Context, tokenHash string, now int64) error {
	return db.write(ctx, func(tx *Tx) error {
		var userID string
		var exp int64
		err := tx.QueryRow(ctx, `SELECT user_id, expires_at FROM email_verifications WHERE token_hash = ?`, tokenHash).Scan(&userID, &exp)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && exp <= now) {
			return account.ErrBadToken
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM email_verifications WHERE token_hash = ?`, tokenHash); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE users SET email_verified = 1 WHERE id = ?`, userID)
		return err
	})
}

// LogEmail writes a row of the e-mail log.
func (db *DB) LogEmail(ctx context.Context, e mail.Entry) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO email_log (id, user_id, to_addr, template, subject, body_text, body_html, status, provider_id,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, nullStr(e.UserID), e.To, e.Template, e.Subject, e.Text, nullStr(e.HTML),
		e.Status, nullStr(e.ProviderID), e.CreatedAt.UnixMilli(), e.CreatedAt.UnixMilli())
	return err
}

// Emails lists the e-mail log, newest first (tests and admin reads).
func (db *DB) Emails(ctx context.Context, to string) ([]mail.Entry, error) {
	rows, err := db.read().Query(ctx, `SELECT id, to_addr, template, subject, body_text, body_html, status, provider_id, created_at
		FROM email_log WHERE to_addr = ? ORDER BY created_at DESC, id DESC`, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mail.Entry
	for rows.Next() {
		var e mail.Entry
		var html, provider sql.NullString
		var at int64
		if err := rows.Scan(&e.ID, &e.To, &e.Template, &e.Subject, &e.Text, &html, &e.Status, &provider, &at); err != nil {
			return nil, err
		}
		e.HTML, e.ProviderID, e.CreatedAt = html.String, provider.String, msTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

func mustAffect(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errs.NotFound
	}
	return nil
}

// AddSeat gives a user a seat in a house (seat invitations build on it).
func (db *DB) AddSeat(ctx context.Context, house, user string, role auth.Role) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO seats (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`, house, user, role, db.nowMs())
	return err
}
