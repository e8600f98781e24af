package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"studio/internal/notify"
)

const notificationCols = `id, organization_id, user_id, kind, subject_type, subject_id, payload, created_at, matures_at, event_seq, read_at`

// seenBy is the clause that keeps the notifications a caller sees: the
// house's, addressed to the house or to the caller.
const seenBy = `organization_id = ? AND (user_id IS NULL OR user_id = ?)`

func scanNotification(row interface{ Scan(...any) error }) (notify.Notification, error) {
	var n notify.Notification
	var user sql.NullString
	var payload string
	var created, matures int64
	var read sql.NullInt64
	if err := row.Scan(&n.ID, &n.HouseID, &user, &n.Kind, &n.SubjectType, &n.SubjectID, &payload, &created, &matures, &n.EventSeq, &read); err != nil {
		return notify.Notification{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(payload), &n.Payload); err != nil {
		return notify.Notification{}, fmt.Errorf("notification %s payload: %w", n.ID, err)
	}
	if n.Payload == nil {
		n.Payload = map[string]any{}
	}
	n.UserID = user.String
	n.CreatedAt.Time = msTime(created)
	n.MaturesAt = msTime(matures)
	n.Read = read.Valid
	return n, nil
}

// insertNotification raises n inside tx: it takes the house's next event
// sequence number, so the notification commits in order with the change
// it reports. It returns n with its EventSeq.
func insertNotification(ctx context.Context, tx *Tx, n notify.Notification) (notify.Notification, error) {
	seq, err := nextSeq(ctx, tx, n.HouseID)
	if err != nil {
		return n, err
	}
	payload, err := json.Marshal(n.Payload)
	if err != nil {
		return n, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO notifications (id, organization_id, user_id, kind, subject_type, subject_id, payload,
		created_at, matures_at, event_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.ID, n.HouseID, nullStr(n.UserID), n.Kind, n.SubjectType, n.SubjectID, string(payload),
		n.CreatedAt.UnixMilli(), n.MaturesAt.UnixMilli(), seq); err != nil {
		return n, err
	}
	n.EventSeq = seq
	return n, nil
}

// ListNotifications answers a page of the notifications the caller sees:
// with q.Since, those raised after it in ascending order; otherwise newest
// first, below q.Before when set.
func (db *DB) ListNotifications(ctx context.Context, house, user string, q notify.Query) ([]notify.Notification, error) {
	var rows *sql.Rows
	var err error
	switch {
	case q.Backfill:
		rows, err = db.read().Query(ctx, `SELECT `+notificationCols+` FROM notifications WHERE `+seenBy+`
			AND event_seq > ? ORDER BY event_seq LIMIT ?`, house, user, q.Since, q.Limit)
	case q.Before > 0:
		rows, err = db.read().Query(ctx, `SELECT `+notificationCols+` FROM notifications WHERE `+seenBy+`
			AND event_seq < ? ORDER BY event_seq DESC LIMIT ?`, house, user, q.Before, q.Limit)
	default:
		rows, err = db.read().Query(ctx, `SELECT `+notificationCols+` FROM notifications WHERE `+seenBy+`
			ORDER BY event_seq DESC LIMIT ?`, house, user, q.Limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []notify.Notification{}
	for rows.Next() {
		n, err := scanNotification(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// CountUnread counts the caller's matured unread notifications raised at
// or after from.
func (db *DB) CountUnread(ctx context.Context, house, user string, from, now time.Time) (int, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM notifications WHERE `+seenBy+`
		AND read_at IS NULL AND matures_at <= ? AND created_at >= ?`, house, user, now.UnixMilli(), from.UnixMilli()).Scan(&n)
	return n, err
}

// MarkRead marks the caller's unread notifications among ids (every one
// when all is set) read at now, and returns the ids it marked.
func (db *DB) MarkRead(ctx context.Context, house, user string, ids []string, all bool, now time.Time) ([]string, error) {
	var marked []string
	err := db.write(ctx, func(tx *Tx) error {
		marked = marked[:0]
		where := seenBy + ` AND read_at IS NULL`
		args := []any{now.UnixMilli(), house, user}
		if !all {
			in, idArgs := inList(ids)
			where += ` AND id IN ` + in
			args = append(args, idArgs...)
		}
		rows, err := tx.Query(ctx, `UPDATE notifications SET read_at = ? WHERE `+where+` RETURNING id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			marked = append(marked, id)
		}
		return rows.Err()
	})
	return marked, err
}
