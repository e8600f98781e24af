package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"studio/internal/support"
)

// ServiceSecret returns the named secret every instance shares, making a
// random 32-byte one on first use.
func (db *DB) ServiceSecret(ctx context.Context, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := db.writer().Exec(ctx, `INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		name, base64.StdEncoding.EncodeToString(fresh), db.now().UnixMilli()); err != nil {
		return nil, err
	}
	var v string
	if err := db.writer().QueryRow(ctx, `SELECT value FROM service_secrets WHERE name = ?`, name).Scan(&v); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(v)
}

func insertSupportMessage(ctx context.Context, tx *Tx, ticket string, m support.Message, screenshots []string) error {
	shots, err := json.Marshal(screenshots)
	if err != nil || screenshots == nil {
		shots = []byte("[]")
	}
	_, err = tx.Exec(ctx, `INSERT INTO support_messages (id, ticket_id, author, author_name, content, screenshots, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, ticket, m.Author, m.AuthorName, m.Content, string(shots), m.CreatedAt.UnixMilli())
	return err
}

// InsertTicket writes a ticket with its first message, in one transaction.
func (db *DB) InsertTicket(ctx context.Context, t support.Row, first support.Message) error {
	var rating sql.NullInt64
	if t.Rating != nil {
		rating = sql.NullInt64{Int64: int64(*t.Rating), Valid: true}
	}
	return db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO support_tickets (id, organization_id, user_id, status, subject, topic, contact_email, current_url,
			source, reason, bridge_session, rating, screen, transcript, created_at, last_message_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			t.ID, nullStr(t.House), nullStr(t.UserID), t.Status, t.Subject, nullStr(t.Topic), nullStr(t.ContactEmail), nullStr(t.CurrentURL),
			t.Source, nullStr(t.Reason), nullStr(t.SessionID), rating, nullStr(string(t.Screen)), nullStr(string(t.Transcript)),
			t.CreatedAt.UnixMilli(), t.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		return insertSupportMessage(ctx, tx, t.ID, first, t.Screenshots)
	})
}

// AppendMessage adds a message to a ticket of the house that is not a
// noted report; a closed one opens again.
func (db *DB) AppendMessage(ctx context.Context, house, user, ticket string, m support.Message, screenshots []string) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE support_tickets SET last_message_at = ?, closed_at = NULL
			WHERE organization_id = ? AND id = ? AND status = 'open'`, m.CreatedAt.UnixMilli(), house, ticket)
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		return insertSupportMessage(ctx, tx, ticket, m, screenshots)
	})
}

// Tickets lists the house's tickets, open or closed (user is not read: a
// ticket is the house's), the latest message first (within one millisecond, the
// newer message id: ids are time-ordered), with their customer-visible
// counts.
func (db *DB) Tickets(ctx context.Context, house, user string) ([]support.Ticket, error) {
	rows, err := db.read().Query(ctx, `SELECT t.id, `+ticketStatus+`, t.subject, t.created_at, t.last_message_at,
		(SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.author <> 'note'),
		(SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.author = 'support' AND m.read_at IS NULL)
		FROM support_tickets t WHERE t.organization_id = ? AND t.status = 'open'
		ORDER BY t.last_message_at DESC, (SELECT MAX(m.id) FROM support_messages m WHERE m.ticket_id = t.id) DESC, t.id DESC
		LIMIT 500`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []support.Ticket{}
	for rows.Next() {
		var t support.Ticket
		var id string
		var created, last int64
		if err := rows.Scan(&id, &t.Status, &t.Summary, &created, &last, &t.MessageCount, &t.UnreadCount); err != nil {
			return nil, err
		}
		t.ID = &id
		t.CreatedAt.Time, t.LastMessageAt.Time = msTime(created), msTime(last)
		out = append(out, t)
	}
	return out, rows.Err()
}

// ticketStatus is a ticket's status on the wire: closed when the desk
// closed it (closed_at), else its stored status.
const ticketStatus = `CASE WHEN t.closed_at IS NOT NULL THEN 'closed' ELSE t.status END`

// Thread returns a ticket of the house's messages, oldest first, without
// internal notes, and marks the desk's answers read.
func (db *DB) Thread(ctx context.Context, house, user, ticket string, at time.Time) (support.Thread, error) {
	var th support.Thread
	err := db.write(ctx, func(tx *Tx) error {
		if err := tx.QueryRow(ctx, `SELECT `+ticketStatus+` FROM support_tickets t WHERE t.organization_id = ? AND t.id = ? AND t.status = 'open'`,
			house, ticket).Scan(&th.Status); err != nil {
			return notFound(err)
		}
		rows, err := tx.Query(ctx, `SELECT id, content, author, author_name, created_at FROM support_messages
			WHERE ticket_id = ? AND author <> 'note' ORDER BY created_at, id`, ticket)
		if err != nil {
			return err
		}
		th.Messages = []support.Message{}
		for rows.Next() {
			var m support.Message
			var created int64
			if err := rows.Scan(&m.ID, &m.Content, &m.Author, &m.AuthorName, &created); err != nil {
				rows.Close()
				return err
			}
			m.CreatedAt.Time = msTime(created)
			th.Messages = append(th.Messages, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE support_messages SET read_at = ? WHERE ticket_id = ? AND author = 'support' AND read_at IS NULL`, at.UnixMilli(), ticket)
		return err
	})
	return th, err
}

// InsertShot records a stored screenshot.
func (db *DB) InsertShot(ctx context.Context, s support.Shot) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO support_shots (id, organization_id, user_id, mime, blob_key, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, s.House, nullStr(s.UserID), s.Mime, s.Key, s.CreatedAt.UnixMilli())
	return err
}

func scanShot(row interface{ Scan(...any) error }) (support.Shot, error) {
	var s support.Shot
	var user sql.NullString
	var created int64
	if err := row.Scan(&s.ID, &s.House, &user, &s.Mime, &s.Key, &created); err != nil {
		return support.Shot{}, notFound(err)
	}
	s.UserID, s.CreatedAt = user.String, msTime(created)
	return s, nil
}

const shotCols = `id, organization_id, user_id, mime, blob_key, created_at`

// Shot returns a screenshot of the house.
func (db *DB) Shot(ctx context.Context, house, id string) (support.Shot, error) {
	return scanShot(db.read().QueryRow(ctx, `SELECT `+shotCols+` FROM support_shots WHERE organization_id = ? AND id = ?`, house, id))
}

// OldShots lists screenshots taken before before, oldest first.
func (db *DB) OldShots(ctx context.Context, before time.Time, limit int) ([]support.Shot, error) {
	rows, err := db.read().Query(ctx, `SELECT `+shotCols+` FROM support_shots WHERE created_at < ? ORDER BY created_at LIMIT ?`, before.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []support.Shot
	for rows.Next() {
		s, err := scanShot(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DeleteShot removes a screenshot's row.
func (db *DB) DeleteShot(ctx context.Context, house, id string) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM support_shots WHERE organization_id = ? AND id = ?`, house, id)
	return err
}

// UserName returns a user's name and e-mail.
func (db *DB) UserName(ctx context.Context, user string) (string, string, error) {
	var name, email string
	err := db.read().QueryRow(ctx, `SELECT name, email FROM users WHERE id = ?`, user).Scan(&name, &email)
	return name, email, notFound(err)
}

// UserByEmail finds the user with that address holding a seat in house.
func (db *DB) UserByEmail(ctx context.Context, email, house string) (string, error) {
	var id string
	err := db.read().QueryRow(ctx, `SELECT u.id FROM users u JOIN seats s ON s.user_id = u.id WHERE u.email = ? AND s.organization_id = ?`,
		email, house).Scan(&id)
	return id, notFound(err)
}

// HouseExists reports whether the house exists.
func (db *DB) HouseExists(ctx context.Context, house string) (bool, error) {
	var one int
	err := db.read().QueryRow(ctx, `SELECT 1 FROM organizations WHERE id = ?`, house).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
