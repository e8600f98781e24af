package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"studio/internal/support"
	"studio/internal/ts"
)

// The operators' side of the help desk (support.DeskStore): tickets of
// every house, whole threads, replies, notes, closing.

const deskTicketCols = `t.id, ` + ticketStatus + `, t.subject, t.topic, t.source, t.reason, t.organization_id, o.name, t.user_id,
	COALESCE(t.contact_email, u.email),
	(SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.author <> 'note'),
	(SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.author = 'note'),
	(SELECT m.author FROM support_messages m WHERE m.ticket_id = t.id AND m.author <> 'note' ORDER BY m.created_at DESC, m.id DESC LIMIT 1),
	t.created_at, t.last_message_at, t.closed_at`

const deskTicketFrom = ` FROM support_tickets t LEFT JOIN organizations o ON o.id = t.organization_id LEFT JOIN users u ON u.id = t.user_id`

func scanDeskTicket(row interface{ Scan(...any) error }) (support.DeskTicket, error) {
	var t support.DeskTicket
	var topic, reason, house, houseName, user, contact, last sql.NullString
	var created, lastAt int64
	var closed sql.NullInt64
	if err := row.Scan(&t.ID, &t.Status, &t.Summary, &topic, &t.Source, &reason, &house, &houseName, &user, &contact,
		&t.MessageCount, &t.NoteCount, &last, &created, &lastAt, &closed); err != nil {
		return support.DeskTicket{}, notFound(err)
	}
	t.Topic, t.Reason, t.HouseID, t.HouseName = strPtr(topic), strPtr(reason), strPtr(house), strPtr(houseName)
	t.UserID, t.ContactEmail = strPtr(user), strPtr(contact)
	t.AwaitingReply = t.Status == support.StatusOpen && last.String == support.AuthorCustomer
	t.CreatedAt, t.LastMessageAt, t.ClosedAt = ts.Milli(created), ts.Milli(lastAt), tsPtr(closed)
	return t, nil
}

// DeskTickets lists tickets of every house of the status (open, closed,
// noted, or all), the latest message first.
func (db *DB) DeskTickets(ctx context.Context, status string, limit int) ([]support.DeskTicket, error) {
	where := ``
	switch status {
	case support.StatusOpen:
		where = ` WHERE t.status = 'open' AND t.closed_at IS NULL`
	case support.StatusClosed:
		where = ` WHERE t.closed_at IS NOT NULL`
	case support.StatusNoted:
		where = ` WHERE t.status = 'noted'`
	}
	rows, err := db.read().Query(ctx, `SELECT `+deskTicketCols+deskTicketFrom+where+`
		ORDER BY t.last_message_at DESC, t.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []support.DeskTicket{}
	for rows.Next() {
		t, err := scanDeskTicket(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// DeskThread returns a ticket with every message, notes included, oldest
// first.
func (db *DB) DeskThread(ctx context.Context, id string) (support.DeskThread, error) {
	return deskThreadTx(ctx, db.read(), id)
}

func deskThreadTx(ctx context.Context, tx *Tx, id string) (support.DeskThread, error) {
	var th support.DeskThread
	t, err := scanDeskTicket(tx.QueryRow(ctx, `SELECT `+deskTicketCols+deskTicketFrom+` WHERE t.id = ?`, id))
	if err != nil {
		return th, err
	}
	th.Ticket = t
	rows, err := tx.Query(ctx, `SELECT id, content, author, author_name, created_at, read_at FROM support_messages
		WHERE ticket_id = ? ORDER BY created_at, id`, id)
	if err != nil {
		return th, err
	}
	defer rows.Close()
	th.Messages = []support.DeskMessage{}
	for rows.Next() {
		var m support.DeskMessage
		var created int64
		var read sql.NullInt64
		if err := rows.Scan(&m.ID, &m.Content, &m.Author, &m.AuthorName, &created, &read); err != nil {
			return th, err
		}
		m.CreatedAt, m.ReadAt = ts.Milli(created), tsPtr(read)
		th.Messages = append(th.Messages, m)
	}
	return th, rows.Err()
}

// DeskAppend adds a desk reply or note to a ticket. A reply moves the
// ticket's latest message (the member's list is ordered by it) and opens
// a closed ticket again; a note changes nothing the member sees.
func (db *DB) DeskAppend(ctx context.Context, id string, m support.Message) (support.DeskTicket, error) {
	var out support.DeskTicket
	err := db.write(ctx, func(tx *Tx) error {
		if m.Author == support.AuthorSupport {
			res, err := tx.Exec(ctx, `UPDATE support_tickets SET last_message_at = ?, closed_at = NULL WHERE id = ?`, m.CreatedAt.UnixMilli(), id)
			if err != nil {
				return err
			}
			if err := mustAffect(res); err != nil {
				return err
			}
		} else {
			var one int
			if err := tx.QueryRow(ctx, `SELECT 1 FROM support_tickets WHERE id = ?`, id).Scan(&one); err != nil {
				return notFound(err)
			}
		}
		if err := insertSupportMessage(ctx, tx, id, m, nil); err != nil {
			return err
		}
		var err error
		out, err = scanDeskTicket(tx.QueryRow(ctx, `SELECT `+deskTicketCols+deskTicketFrom+` WHERE t.id = ?`, id))
		return err
	})
	return out, err
}

// SetClosed closes a ticket (at) or opens it again (nil); closing twice
// keeps the first time. A noted report is not a thread: NOT_FOUND, as for
// a ticket that does not exist (the desk checks which first).
func (db *DB) SetClosed(ctx context.Context, id string, at *time.Time) (support.DeskTicket, error) {
	var out support.DeskTicket
	err := db.write(ctx, func(tx *Tx) error {
		var res sql.Result
		var err error
		if at != nil {
			res, err = tx.Exec(ctx, `UPDATE support_tickets SET closed_at = COALESCE(closed_at, ?) WHERE id = ? AND status = 'open'`, at.UnixMilli(), id)
		} else {
			res, err = tx.Exec(ctx, `UPDATE support_tickets SET closed_at = NULL WHERE id = ? AND status = 'open'`, id)
		}
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		out, err = scanDeskTicket(tx.QueryRow(ctx, `SELECT `+deskTicketCols+deskTicketFrom+` WHERE t.id = ?`, id))
		return err
	})
	return out, err
}
