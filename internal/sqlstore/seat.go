package sqlstore

// Seats of a house (package seat): offers, acceptance, roles, removal and
// transfer. Every change takes the house's lock (lockHouse) first, so two
// owners demoting each other cannot leave a house without an owner on
// PostgreSQL either.

import (
	"context"
	"database/sql"
	"errors"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/seat"
)

// HouseName returns a house's name.
func (db *DB) HouseName(ctx context.Context, house string) (string, error) {
	var name string
	err := db.read().QueryRow(ctx, `SELECT name FROM organizations WHERE id = ?`, house).Scan(&name)
	return name, notFound(err)
}

// UserEmail returns a user's e-mail address.
func (db *DB) UserEmail(ctx context.Context, userID string) (string, error) {
	var email string
	err := db.read().QueryRow(ctx, `SELECT email FROM users WHERE id = ?`, userID).Scan(&email)
	return email, notFound(err)
}

// SeatedEmail reports whether the address holds a seat in the house.
func (db *DB) SeatedEmail(ctx context.Context, house, email string) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM seats s JOIN users u ON u.id = s.user_id
		WHERE s.organization_id = ? AND u.email = ?`, house, email).Scan(&n)
	return n > 0, err
}

// OfferSeat writes a seat offer, superseding the pending one to the same
// address in the same house.
func (db *DB) OfferSeat(ctx context.Context, o seat.Offer) error {
	return db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, o.HouseID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE seat_invitations SET status = 'superseded'
			WHERE organization_id = ? AND email = ? AND status = 'pending'`, o.HouseID, o.Email); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO seat_invitations (id, organization_id, email, role, status, invited_by_user_id, expires_at, created_at)
			VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`, o.ID, o.HouseID, o.Email, o.Role, nullStr(o.InvitedBy),
			o.ExpiresAt.UnixMilli(), o.CreatedAt.UnixMilli())
		return err
	})
}

// SeatOffer reads an offer by id, with the house's name and, once
// accepted, the seat its address holds there.
func (db *DB) SeatOffer(ctx context.Context, id string) (seat.Offer, error) {
	var o seat.Offer
	var by, holder, held sql.NullString
	var exp, created int64
	err := db.read().QueryRow(ctx, `SELECT i.id, i.organization_id, o.name, i.email, i.role, i.status, i.invited_by_user_id,
			i.expires_at, i.created_at, st.user_id, st.role
		FROM seat_invitations i
		JOIN organizations o ON o.id = i.organization_id
		LEFT JOIN users u ON u.email = i.email
		LEFT JOIN seats st ON st.organization_id = i.organization_id AND st.user_id = u.id
		WHERE i.id = ?`, id).Scan(&o.ID, &o.HouseID, &o.HouseName, &o.Email, &o.Role, &o.Status, &by, &exp, &created, &holder, &held)
	if err != nil {
		return seat.Offer{}, notFound(err)
	}
	o.InvitedBy, o.AcceptedBy, o.AcceptedRol = by.String, holder.String, auth.Role(held.String)
	o.ExpiresAt.Time, o.CreatedAt.Time = msTime(exp), msTime(created)
	return o, nil
}

// AcceptSeat seats the user with a pending, unexpired offer and, for a
// session, makes the house its active house.
func (db *DB) AcceptSeat(ctx context.Context, id, userID, sessionID string, now int64) (auth.Role, error) {
	var role auth.Role
	err := db.write(ctx, func(tx *Tx) error {
		var house string
		err := tx.QueryRow(ctx, `SELECT organization_id FROM seat_invitations WHERE id = ?`, id).Scan(&house)
		if err != nil {
			return notFound(err)
		}
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `UPDATE seat_invitations SET status = 'accepted', accepted_at = ?
			WHERE id = ? AND status = 'pending' AND expires_at > ? RETURNING role`, now, id, now).Scan(&role)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO seats (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (organization_id, user_id) DO NOTHING`, house, userID, role, now); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT role FROM seats WHERE organization_id = ? AND user_id = ?`, house, userID).Scan(&role); err != nil {
			return err
		}
		if sessionID != "" {
			_, err = tx.Exec(ctx, `UPDATE sessions SET active_organization_id = ? WHERE id = ? AND user_id = ?`, house, sessionID, userID)
		}
		return err
	})
	return role, err
}

// readChange reads the actor's and the target's seats and the house's
// owner count, under the house's lock; the target must hold a seat.
func (db *DB) readChange(ctx context.Context, tx *Tx, house, actor, target string) (seat.Change, error) {
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return seat.Change{}, err
	}
	holder := func(user string) (seat.Holder, error) {
		h := seat.Holder{UserID: user}
		var founder sql.NullString
		var personal int
		err := tx.QueryRow(ctx, `SELECT u.email, s.role, o.founder_user_id, o.personal FROM seats s
			JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = s.organization_id
			WHERE s.organization_id = ? AND s.user_id = ?`, house, user).Scan(&h.Email, &h.Role, &founder, &personal)
		h.Founder = personal == 1 && founder.String == user
		return h, notFound(err)
	}
	var c seat.Change
	var err error
	if c.Target, err = holder(target); err != nil {
		return seat.Change{}, err
	}
	if c.Actor, err = holder(actor); err != nil && !errors.Is(err, errs.NotFound) {
		return seat.Change{}, err
	}
	err = tx.QueryRow(ctx, `SELECT COUNT(*) FROM seats WHERE organization_id = ? AND role = 'owner'`, house).Scan(&c.Owners)
	return c, err
}

// ChangeRole sets the role decide returns on the target's seat.
func (db *DB) ChangeRole(ctx context.Context, house, actor, target string, decide func(seat.Change) (auth.Role, error)) (seat.Holder, error) {
	var h seat.Holder
	err := db.write(ctx, func(tx *Tx) error {
		c, err := db.readChange(ctx, tx, house, actor, target)
		if err != nil {
			return err
		}
		role, err := decide(c)
		if err != nil {
			return err
		}
		h = c.Target
		h.Role = role
		_, err = tx.Exec(ctx, `UPDATE seats SET role = ? WHERE organization_id = ? AND user_id = ?`, role, house, target)
		return err
	})
	return h, err
}

// RemoveSeat deletes the target's seat when decide allows, revokes the
// target's API keys of the house and moves the target's sessions that were
// in the house to another house of theirs (personal house first). Nothing
// else changes: the house keeps every piece of the target's work.
func (db *DB) RemoveSeat(ctx context.Context, house, actor, target string, decide func(seat.Change) error, now int64) (seat.Holder, error) {
	var h seat.Holder
	err := db.write(ctx, func(tx *Tx) error {
		c, err := db.readChange(ctx, tx, house, actor, target)
		if err != nil {
			return err
		}
		if err := decide(c); err != nil {
			return err
		}
		h = c.Target
		if _, err := tx.Exec(ctx, `DELETE FROM seats WHERE organization_id = ? AND user_id = ?`, house, target); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE organization_id = ? AND user_id = ? AND revoked_at IS NULL`,
			now, house, target); err != nil {
			return err
		}
		return repointSessions(ctx, tx, house, target)
	})
	return h, err
}

// repointSessions moves the user's sessions active in house to the first
// house where the user still holds a seat (personal house first), and ends
// them when there is none.
func repointSessions(ctx context.Context, tx *Tx, house, user string) error {
	var next string
	err := tx.QueryRow(ctx, `SELECT o.id FROM seats s JOIN organizations o ON o.id = s.organization_id
		WHERE s.user_id = ? AND s.organization_id <> ?
		ORDER BY (CASE WHEN o.founder_user_id = s.user_id AND o.personal = 1 THEN 0 ELSE 1 END), s.created_at, o.id
		LIMIT 1`, user, house).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND active_organization_id = ?`, user, house)
		return err
	}
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE sessions SET active_organization_id = ? WHERE user_id = ? AND active_organization_id = ?`, next, user, house)
	return err
}

// Transfer makes the target the owner and the actor an admin, in one
// write, when decide allows.
func (db *DB) Transfer(ctx context.Context, house, actor, target string, decide func(seat.Change) error) (seat.Holder, error) {
	var h seat.Holder
	err := db.write(ctx, func(tx *Tx) error {
		c, err := db.readChange(ctx, tx, house, actor, target)
		if err != nil {
			return err
		}
		if err := decide(c); err != nil {
			return err
		}
		h = c.Target
		if _, err := tx.Exec(ctx, `UPDATE seats SET role = 'owner' WHERE organization_id = ? AND user_id = ?`, house, target); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE seats SET role = 'admin' WHERE organization_id = ? AND user_id = ?`, house, actor)
		return err
	})
	return h, err
}

// Seats reads every seat of the house with its holder, newest first.
func (db *DB) Seats(ctx context.Context, house string) ([]seat.Seat, error) {
	rows, err := db.read().Query(ctx, `SELECT s.user_id, u.name, u.email, s.role, s.created_at,
			CASE WHEN o.personal = 1 AND o.founder_user_id = s.user_id THEN 1 ELSE 0 END
		FROM seats s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = s.organization_id
		WHERE s.organization_id = ?
		ORDER BY s.created_at DESC, s.user_id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []seat.Seat
	for rows.Next() {
		var st seat.Seat
		var joined int64
		var founder int
		if err := rows.Scan(&st.UserID, &st.Name, &st.Email, &st.Role, &joined, &founder); err != nil {
			return nil, err
		}
		st.JoinedAt.Time, st.Founder = msTime(joined), founder == 1
		out = append(out, st)
	}
	return out, rows.Err()
}

// PendingOffers reads the house's offers still pending and unexpired at
// now, newest first, with the name of the person who made each.
func (db *DB) PendingOffers(ctx context.Context, house string, now int64) ([]seat.PendingOffer, error) {
	rows, err := db.read().Query(ctx, `SELECT i.id, i.email, i.role, COALESCE(u.name, ''), i.created_at, i.expires_at
		FROM seat_invitations i LEFT JOIN users u ON u.id = i.invited_by_user_id
		WHERE i.organization_id = ? AND i.status = 'pending' AND i.expires_at > ?
		ORDER BY i.created_at DESC, i.id DESC`, house, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []seat.PendingOffer
	for rows.Next() {
		var o seat.PendingOffer
		var created, exp int64
		if err := rows.Scan(&o.ID, &o.Email, &o.Role, &o.InvitedBy, &created, &exp); err != nil {
			return nil, err
		}
		o.CreatedAt.Time, o.ExpiresAt.Time = msTime(created), msTime(exp)
		out = append(out, o)
	}
	return out, rows.Err()
}
