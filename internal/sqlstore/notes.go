package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"studio/internal/errs"
	"studio/internal/judge"
	"studio/internal/ts"
)

const noteCols = `id, organization_id, created_by_user_id, text, norm, scope_tools, scope_phrase, evidence_job_ids, active_from, retired_at`

func scanNote(row interface{ Scan(...any) error }) (judge.Note, error) {
	var n judge.Note
	var user sql.NullString
	var tools, evidence string
	var from int64
	var retired sql.NullInt64
	if err := row.Scan(&n.ID, &n.HouseID, &user, &n.Text, &n.Norm, &tools, &n.ScopePhrase, &evidence, &from, &retired); err != nil {
		return judge.Note{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(tools), &n.ScopeTools); err != nil {
		return judge.Note{}, fmt.Errorf("note %s scope: %w", n.ID, err)
	}
	if err := json.Unmarshal([]byte(evidence), &n.EvidenceJobIDs); err != nil {
		return judge.Note{}, fmt.Errorf("note %s evidence: %w", n.ID, err)
	}
	n.UserID = user.String
	n.ActiveFrom = ts.Milli(from)
	n.RetiredAt = tsPtr(retired)
	return n, nil
}

// Notes returns the house's standing notes, newest first, retired included.
func (db *DB) Notes(ctx context.Context, house string) ([]judge.Note, error) {
	rows, err := db.read().Query(ctx, `SELECT `+noteCols+` FROM standing_notes WHERE organization_id = ?
		ORDER BY created_at DESC, id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []judge.Note{}
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Note returns one of the house's notes.
func (db *DB) Note(ctx context.Context, house, id string) (judge.Note, error) {
	return scanNote(db.read().QueryRow(ctx, `SELECT `+noteCols+` FROM standing_notes WHERE organization_id = ? AND id = ?`, house, id))
}

func scopeKey(tools []string) string { return strings.Join(tools, ",") }

func standingTx(ctx context.Context, tx *Tx, house, norm string, tools []string) (judge.Note, error) {
	return scanNote(tx.QueryRow(ctx, `SELECT `+noteCols+` FROM standing_notes
		WHERE organization_id = ? AND norm = ? AND scope_key = ? AND retired_at IS NULL`, house, norm, scopeKey(tools)))
}

// InsertNote writes n unless the same sentence stands on the same scope;
// then it returns that note, created false. Two writers racing for the
// same sentence meet on the unique index of notes in force.
func (db *DB) InsertNote(ctx context.Context, n judge.Note) (judge.Note, bool, error) {
	tools, err := json.Marshal(n.ScopeTools)
	if err != nil {
		return judge.Note{}, false, err
	}
	evidence, err := json.Marshal(n.EvidenceJobIDs)
	if err != nil {
		return judge.Note{}, false, err
	}
	var out judge.Note
	created := false
	err = db.write(ctx, func(tx *Tx) error {
		prior, err := standingTx(ctx, tx, n.HouseID, n.Norm, n.ScopeTools)
		if err == nil {
			out = prior
			return nil
		}
		if !errors.Is(err, errs.NotFound) {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO standing_notes (id, organization_id, created_by_user_id, text, norm, scope_tools, scope_key,
			scope_phrase, evidence_job_ids, active_from, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			n.ID, n.HouseID, nullStr(n.UserID), n.Text, n.Norm, string(tools), scopeKey(n.ScopeTools), n.ScopePhrase, string(evidence),
			n.ActiveFrom.UnixMilli(), n.ActiveFrom.UnixMilli()); err != nil {
			return err
		}
		out, created = n, true
		return nil
	})
	if errors.Is(err, errUnique) {
		prior, rerr := standingTx(ctx, db.writer(), n.HouseID, n.Norm, n.ScopeTools)
		return prior, false, rerr
	}
	return out, created, err
}

// UpdateNote applies edit to the house's note and stores it, in one
// transaction. When the edit narrows the note onto the scope of another
// note of the same sentence in force, the edited note retires into that
// one, which is returned.
func (db *DB) UpdateNote(ctx context.Context, house, id string, edit func(*judge.Note) error) (judge.Note, error) {
	var out judge.Note
	err := db.write(ctx, func(tx *Tx) error {
		q := `SELECT ` + noteCols + ` FROM standing_notes WHERE organization_id = ? AND id = ?`
		if db.engine == Postgres {
			q += ` FOR UPDATE`
		}
		n, err := scanNote(tx.QueryRow(ctx, q, house, id))
		if err != nil {
			return err
		}
		if err := edit(&n); err != nil {
			return err
		}
		if n.InForce() {
			if other, err := standingTx(ctx, tx, house, n.Norm, n.ScopeTools); err == nil && other.ID != n.ID {
				now := db.now()
				at := ts.Of(now)
				n.RetiredAt = &at
				out = other
			} else if err != nil && !errors.Is(err, errs.NotFound) {
				return err
			}
		}
		tools, err := json.Marshal(n.ScopeTools)
		if err != nil {
			return err
		}
		var retired sql.NullInt64
		if n.RetiredAt != nil {
			retired = sql.NullInt64{Int64: n.RetiredAt.UnixMilli(), Valid: true}
		}
		if _, err := tx.Exec(ctx, `UPDATE standing_notes SET scope_tools = ?, scope_key = ?, scope_phrase = ?, retired_at = ?
			WHERE organization_id = ? AND id = ?`, string(tools), scopeKey(n.ScopeTools), n.ScopePhrase, retired, house, id); err != nil {
			return err
		}
		if out.ID == "" {
			out = n
		}
		return nil
	})
	return out, err
}
