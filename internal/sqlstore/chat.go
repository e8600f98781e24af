package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"studio/internal/asset"
	"studio/internal/chat"
	"studio/internal/look"
)

// RecentPieces lists the house's n newest live assets, as the assistant's
// catalog.
func (db *DB) RecentPieces(ctx context.Context, house string, n int) ([]look.Piece, error) {
	out := []look.Piece{}
	err := eachAsset(ctx, db.read(), selectAssets(`a.organization_id = ? AND a.deleted_at IS NULL`, ` LIMIT `+strconv.Itoa(n)), []any{house},
		func(a asset.Asset) error {
			p := look.Piece{ID: a.ID, Name: a.Name}
			if a.Kind != nil {
				p.Kind = string(*a.Kind)
			}
			out = append(out, p)
			return nil
		})
	return out, err
}

// InsertChatSession writes an empty conversation of the user in the house.
func (db *DB) InsertChatSession(ctx context.Context, house, user string, s chat.Session) error {
	return insertChatSession(ctx, db.writer(), house, user, s)
}

func insertChatSession(ctx context.Context, tx *Tx, house, user string, s chat.Session) error {
	_, err := tx.Exec(ctx, `INSERT INTO chat_sessions (id, organization_id, user_id, title, created_at, last_turn_at) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, house, user, s.Title, s.CreatedAt.UnixMilli(), s.LastTurnAt.UnixMilli())
	return err
}

const chatSessionCols = `id, title, created_at, last_turn_at`

func scanChatSession(row interface{ Scan(...any) error }) (chat.Session, error) {
	var s chat.Session
	var created, last int64
	if err := row.Scan(&s.ID, &s.Title, &created, &last); err != nil {
		return chat.Session{}, notFound(err)
	}
	s.CreatedAt.Time, s.LastTurnAt.Time = msTime(created), msTime(last)
	return s, nil
}

// ChatSessions lists the user's conversations in the house, the one with
// the latest turn first (at most 500).
func (db *DB) ChatSessions(ctx context.Context, house, user string) ([]chat.Session, error) {
	rows, err := db.read().Query(ctx, `SELECT `+chatSessionCols+` FROM chat_sessions WHERE organization_id = ? AND user_id = ?
		ORDER BY last_turn_at DESC, id DESC LIMIT 500`, house, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []chat.Session{}
	for rows.Next() {
		s, err := scanChatSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// ChatSession returns one conversation of the user in the house.
func (db *DB) ChatSession(ctx context.Context, house, user, id string) (chat.Session, error) {
	return scanChatSession(db.read().QueryRow(ctx, `SELECT `+chatSessionCols+` FROM chat_sessions
		WHERE organization_id = ? AND user_id = ? AND id = ?`, house, user, id))
}

// AppendChatTurn keeps a turn (creating its session first when create is
// set) and moves the session's lastTurnAt, in one transaction, and answers
// the session the turn belongs to. A turn id the house already used is not
// kept (kept false) and moves nothing; a session to create is created all
// the same, so the id answered always exists, unless the id is a turn of
// the same user's: a retried first turn then answers that turn's session
// and creates none.
func (db *DB) AppendChatTurn(ctx context.Context, house, user string, s chat.Session, create bool, t chat.Turn) (string, bool, error) {
	applied, err := json.Marshal(t.Applied)
	if err != nil {
		return "", false, err
	}
	session, kept := s.ID, false
	err = db.write(ctx, func(tx *Tx) error {
		if create {
			var earlier string
			err := tx.QueryRow(ctx, `SELECT session_id FROM chat_turns WHERE organization_id = ? AND id = ? AND user_id = ?`, house, t.ID, user).Scan(&earlier)
			if err == nil {
				session = earlier
				return nil
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err := insertChatSession(ctx, tx, house, user, s); err != nil {
				return err
			}
		}
		res, err := tx.Exec(ctx, `INSERT INTO chat_turns (organization_id, id, session_id, user_id, message, reply, applied, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id, id) DO NOTHING`,
			house, t.ID, s.ID, user, t.Message, t.Text, string(applied), t.CreatedAt.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // the id is taken: answered, not kept
		}
		res, err = tx.Exec(ctx, `UPDATE chat_sessions SET last_turn_at = ? WHERE organization_id = ? AND user_id = ? AND id = ?`,
			t.CreatedAt.UnixMilli(), house, user, s.ID)
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		kept = true
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return session, kept, nil
}

// ChatTurns returns a session's newest turns, at most limit, oldest first.
func (db *DB) ChatTurns(ctx context.Context, house, user, session string, limit int) ([]chat.Turn, error) {
	rows, err := db.read().Query(ctx, `SELECT id, message, reply, applied, created_at FROM chat_turns
		WHERE organization_id = ? AND session_id = ? AND user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, house, session, user, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []chat.Turn{}
	for rows.Next() {
		var t chat.Turn
		var applied string
		var created int64
		if err := rows.Scan(&t.ID, &t.Message, &t.Text, &applied, &created); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(applied), &t.Applied); err != nil {
			return nil, err
		}
		t.CreatedAt.Time = msTime(created)
		out = append(out, t)
	}
	slices.Reverse(out)
	return out, rows.Err()
}
