package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/judge"
)

func scanTake(row interface{ Scan(...any) error }) (judge.TakeRecord, error) {
	var t judge.TakeRecord
	var answer string
	var created int64
	if err := row.Scan(&t.ID, &t.HouseID, &t.UserID, &t.IdempotencyKey, &t.Fingerprint, &answer, &created); err != nil {
		return judge.TakeRecord{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(answer), &t.Answer); err != nil {
		return judge.TakeRecord{}, fmt.Errorf("take %s answer: %w", t.ID, err)
	}
	t.CreatedAt = msTime(created)
	return t, nil
}

const takeCols = `id, organization_id, user_id, idempotency_key, fingerprint, answer, created_at`

// TakeByKey returns the take the user made in the house under key.
func (db *DB) TakeByKey(ctx context.Context, house, user, key string) (judge.TakeRecord, error) {
	return scanTake(db.read().QueryRow(ctx, `SELECT `+takeCols+` FROM takes
		WHERE organization_id = ? AND user_id = ? AND idempotency_key = ?`, house, user, key))
}

// SubmitTake writes a take in one transaction (enqueue): its key (when it
// has one), every job's hold, taken together so the first shortfall
// answers INSUFFICIENT_TOKENS with nothing written, every job with its
// first event, and the directions. A take already stored under the key is
// returned, replayed, with nothing written; a concurrent one that won the
// key is read back the same way. The jobs get their event seqs in place.
func (db *DB) SubmitTake(ctx context.Context, t judge.TakeRecord, jobs []job.Job, dirs []judge.Direction) (judge.TakeRecord, bool, error) {
	answer, err := json.Marshal(t.Answer)
	if err != nil {
		return judge.TakeRecord{}, false, err
	}
	out := t
	e := enqueue{house: t.HouseID, spend: spend{Queue: jobs, Hold: jobs},
		record: func(tx *Tx, _ enqueued) error {
			for _, d := range dirs {
				if _, err := tx.Exec(ctx, `INSERT INTO directions (organization_id, job_id, source_job_id, user_id, tool, said, norm, take_id, shoot, created_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.HouseID, d.JobID, d.SourceJobID, nullStr(d.UserID), d.Tool, d.Said, d.Norm,
					d.TakeID, d.Shoot, d.At.UnixMilli()); err != nil {
					return err
				}
			}
			return nil
		}}
	if t.IdempotencyKey != "" {
		e.replay = func(tx *Tx) (bool, error) {
			var err error
			out, err = scanTake(tx.QueryRow(ctx, `SELECT `+takeCols+` FROM takes
				WHERE organization_id = ? AND user_id = ? AND idempotency_key = ?`, t.HouseID, t.UserID, t.IdempotencyKey))
			if errors.Is(err, errs.NotFound) {
				return false, nil
			}
			return err == nil, err
		}
		e.check = func(tx *Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO takes (id, organization_id, user_id, idempotency_key, fingerprint, answer, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, t.ID, t.HouseID, t.UserID, t.IdempotencyKey, t.Fingerprint, string(answer), t.CreatedAt.UnixMilli())
			return err
		}
	}
	queued, replayed, err := db.enqueue(ctx, e)
	if err != nil {
		return judge.TakeRecord{}, false, err
	}
	if replayed {
		return out, true, nil
	}
	copy(jobs, queued)
	return t, false, nil
}

// Directions returns the house's directions normalised to norm, newest
// first, at most limit.
func (db *DB) Directions(ctx context.Context, house, norm string, limit int) ([]judge.Direction, error) {
	rows, err := db.read().Query(ctx, `SELECT organization_id, job_id, source_job_id, user_id, tool, said, norm, take_id, shoot, created_at
		FROM directions WHERE organization_id = ? AND norm = ? ORDER BY created_at DESC, job_id DESC LIMIT ?`, house, norm, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []judge.Direction
	for rows.Next() {
		var d judge.Direction
		var user sql.NullString
		var at int64
		if err := rows.Scan(&d.HouseID, &d.JobID, &d.SourceJobID, &user, &d.Tool, &d.Said, &d.Norm, &d.TakeID, &d.Shoot, &at); err != nil {
			return nil, err
		}
		d.UserID, d.At = user.String, msTime(at)
		out = append(out, d)
	}
	return out, rows.Err()
}
