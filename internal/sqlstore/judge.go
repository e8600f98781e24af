package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/notify"
	"studio/internal/ts"
	"studio/internal/webhook"
)

// storedFinding is a finding as the verdicts table keeps it: the label is
// the server's sentence for the code, resolved when read.
type storedFinding struct {
	Code       judge.Code       `json:"code"`
	Where      string           `json:"where"`
	Confidence judge.Confidence `json:"confidence"`
	FromInput  bool             `json:"fromInput,omitempty"`
}

const verdictCols = `v.organization_id, v.job_id, v.score, v.unreadable, v.flagged, v.show_score, v.retry_futile, v.findings,
	v.rubric_version, v.judge, v.model, v.note, v.cost, v.cost_usd, v.latency_ms, v.created_at, f.agrees_with_judge, f.note`

const verdictFrom = ` FROM verdicts v LEFT JOIN frame_feedback f ON f.organization_id = v.organization_id AND f.job_id = v.job_id`

func scanVerdict(row interface{ Scan(...any) error }) (judge.Verdict, error) {
	var v judge.Verdict
	var score, agrees sql.NullInt64
	var unreadable, flagged, show, futile int
	var findings string
	var model, note, answerNote sql.NullString
	var created int64
	if err := row.Scan(&v.HouseID, &v.JobID, &score, &unreadable, &flagged, &show, &futile, &findings, &v.RubricVersion,
		&v.Judge, &model, &note, &v.Cost, &v.CostUSD, &v.LatencyMs, &created, &agrees, &answerNote); err != nil {
		return judge.Verdict{}, notFound(err)
	}
	if score.Valid {
		s := int(score.Int64)
		v.Score = &s
	}
	v.Unreadable, v.Flagged, v.ShowScore, v.RetryFutile = unreadable == 1, flagged == 1, show == 1, futile == 1
	var stored []storedFinding
	if err := json.Unmarshal([]byte(findings), &stored); err != nil {
		return judge.Verdict{}, fmt.Errorf("verdict of %s findings: %w", v.JobID, err)
	}
	v.Findings = make([]judge.Finding, len(stored))
	for i, f := range stored {
		v.Findings[i] = judge.Finding{Code: f.Code, Where: f.Where, Label: f.Code.Label(), Confidence: f.Confidence, FromInput: f.FromInput}
	}
	v.Model, v.Note = model.String, note.String
	v.CreatedAt = ts.Milli(created)
	if agrees.Valid {
		v.Answer = &judge.Answer{Agrees: agrees.Int64 == 1, Note: answerNote.String}
	}
	return v, nil
}

// Verdict returns the verdict of the house's job, with the house's answer.
func (db *DB) Verdict(ctx context.Context, house, jobID string) (judge.Verdict, error) {
	return scanVerdict(db.read().QueryRow(ctx, `SELECT `+verdictCols+verdictFrom+` WHERE v.organization_id = ? AND v.job_id = ?`, house, jobID))
}

// Verdicts returns the verdicts of those of ids the house has, in the
// order of ids.
func (db *DB) Verdicts(ctx context.Context, house string, ids []string) ([]judge.Verdict, error) {
	out := []judge.Verdict{}
	if len(ids) == 0 {
		return out, nil
	}
	found := map[string]judge.Verdict{}
	for start := 0; start < len(ids); start += 500 {
		in, args := inList(ids[start:min(len(ids), start+500)])
		vs, err := db.verdicts(ctx, ` WHERE v.organization_id = ? AND v.job_id IN `+in, append([]any{house}, args...)...)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			found[v.JobID] = v
		}
	}
	for _, id := range ids {
		if v, ok := found[id]; ok {
			out = append(out, v)
			delete(found, id)
		}
	}
	return out, nil
}

// VerdictsSince returns the house's verdicts written at or after the instant.
func (db *DB) VerdictsSince(ctx context.Context, house string, after time.Time) ([]judge.Verdict, error) {
	return db.verdicts(ctx, ` WHERE v.organization_id = ? AND v.created_at >= ? ORDER BY v.created_at`, house, after.UnixMilli())
}

func (db *DB) verdicts(ctx context.Context, where string, args ...any) ([]judge.Verdict, error) {
	rows, err := db.read().Query(ctx, `SELECT `+verdictCols+verdictFrom+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []judge.Verdict
	for rows.Next() {
		v, err := scanVerdict(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// AnswerVerdict upserts the frame's shared feedback row, setting only
// agrees_with_judge, rating and note: the last answer wins. NOT_FOUND when
// the house's job has no verdict.
func (db *DB) AnswerVerdict(ctx context.Context, house, user, jobID string, l judge.Label, at time.Time) error {
	return db.write(ctx, func(tx *Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM verdicts WHERE organization_id = ? AND job_id = ?`, house, jobID).Scan(&one); err != nil {
			return notFound(err)
		}
		var rating sql.NullInt64
		if l.Rating != nil {
			rating = sql.NullInt64{Int64: int64(*l.Rating), Valid: true}
		}
		var note sql.NullString
		if l.Note != nil {
			note = sql.NullString{String: *l.Note, Valid: true}
		}
		_, err := tx.Exec(ctx, `INSERT INTO frame_feedback (organization_id, job_id, user_id, agrees_with_judge, rating, note, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (organization_id, job_id) DO UPDATE SET agrees_with_judge = excluded.agrees_with_judge,
				rating = excluded.rating, note = excluded.note, user_id = excluded.user_id, updated_at = excluded.updated_at`,
			house, jobID, nullStr(user), b2i(l.Agrees), rating, note, at.UnixMilli(), at.UnixMilli())
		return err
	})
}

// enqueueJudging raises the frame's judging task inside the transaction
// that settles it, so every settled frame gets its verdict, once.
func enqueueJudging(ctx context.Context, tx *Tx, house, jobID string, now int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO judge_tasks (organization_id, job_id, not_before, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, job_id) DO NOTHING`, house, jobID, now, now)
	return err
}

// ClaimJudging leases the oldest due frame waiting for its verdict (a
// lapsed lease counts as free). On PostgreSQL concurrent judges skip each
// other's locked rows.
func (db *DB) ClaimJudging(ctx context.Context, worker string, now, leaseUntil time.Time) (t judge.Task, ok bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		q := `SELECT organization_id, job_id, attempts FROM judge_tasks
			WHERE not_before <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY not_before, job_id LIMIT 1`
		if db.engine == Postgres {
			q += ` FOR UPDATE SKIP LOCKED`
		}
		if err := tx.QueryRow(ctx, q, now.UnixMilli(), now.UnixMilli()).Scan(&t.HouseID, &t.JobID, &t.Attempts); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		t.Attempts++
		_, err := tx.Exec(ctx, `UPDATE judge_tasks SET attempts = ?, lease_owner = ?, lease_until = ? WHERE organization_id = ? AND job_id = ?`,
			t.Attempts, worker, leaseUntil.UnixMilli(), t.HouseID, t.JobID)
		ok = err == nil
		return err
	})
	return t, ok, err
}

// WriteVerdict writes the verdict and ends the frame's judging task, in
// one transaction: the one place a verdict is written, so what reports it
// (the verdict.written webhook's outbox row) can join this transaction.
// written is false when the job had its verdict already: one per job, ever.
func (db *DB) WriteVerdict(ctx context.Context, v judge.Verdict) (bool, error) {
	stored := make([]storedFinding, len(v.Findings))
	for i, f := range v.Findings {
		stored[i] = storedFinding{Code: f.Code, Where: f.Where, Confidence: f.Confidence, FromInput: f.FromInput}
	}
	findings, err := json.Marshal(stored)
	if err != nil {
		return false, err
	}
	var score sql.NullInt64
	if v.Score != nil {
		score = sql.NullInt64{Int64: int64(*v.Score), Valid: true}
	}
	written := false
	err = db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `INSERT INTO verdicts (organization_id, job_id, score, unreadable, flagged, show_score, retry_futile,
			findings, rubric_version, judge, model, note, cost, cost_usd, latency_ms, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id, job_id) DO NOTHING`,
			v.HouseID, v.JobID, score, b2i(v.Unreadable), b2i(v.Flagged), b2i(v.ShowScore), b2i(v.RetryFutile), string(findings),
			v.RubricVersion, v.Judge, nullStr(v.Model), nullStr(v.Note), v.Cost, v.CostUSD, v.LatencyMs, v.CreatedAt.UnixMilli())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		written = n == 1
		if written { // the house's endpoints hear it from the outbox, sent after commit
			if err := db.enqueueWebhooksTx(ctx, tx, v.HouseID, webhook.VerdictWritten, v); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `DELETE FROM judge_tasks WHERE organization_id = ? AND job_id = ?`, v.HouseID, v.JobID)
		return err
	})
	return written, err
}

// DeferJudging hands a claimed task back to wait until notBefore, noting
// why.
func (db *DB) DeferJudging(ctx context.Context, t judge.Task, worker string, notBefore time.Time, reason string) error {
	_, err := db.writer().Exec(ctx, `UPDATE judge_tasks SET not_before = ?, lease_owner = NULL, lease_until = NULL, last_error = ?
		WHERE organization_id = ? AND job_id = ? AND lease_owner = ?`, notBefore.UnixMilli(), clipText(reason, 1000), t.HouseID, t.JobID, worker)
	return err
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// FrameKey is the blob key of one of the house's assets, deleted or not
// (a deleted frame's bytes remain until swept).
func (db *DB) FrameKey(ctx context.Context, house, assetID string) (string, error) {
	var key string
	err := db.read().QueryRow(ctx, `SELECT blob_key FROM assets WHERE organization_id = ? AND id = ?`, house, assetID).Scan(&key)
	return key, notFound(err)
}

// RaiseOpinion raises n once per settlement of a run (the run and its
// newest frame), in one transaction with its mark; raised is false when
// that settlement raised it already.
func (db *DB) RaiseOpinion(ctx context.Context, house, runID, newestJobID string, n notify.Notification) (raised bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `INSERT INTO opinions (organization_id, run_id, newest_job_id, notification_id, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (organization_id, run_id, newest_job_id) DO NOTHING`,
			house, runID, newestJobID, n.ID, n.CreatedAt.UnixMilli())
		if err != nil {
			return err
		}
		if k, err := res.RowsAffected(); err != nil || k == 0 {
			return err
		}
		_, err = insertNotification(ctx, tx, n)
		raised = err == nil
		return err
	})
	return raised, err
}

// Notification returns one notification the user sees in the house.
func (db *DB) Notification(ctx context.Context, house, user, id string) (notify.Notification, error) {
	return scanNotification(db.read().QueryRow(ctx, `SELECT `+notificationCols+` FROM notifications WHERE `+seenBy+` AND id = ?`, house, user, id))
}

// Jobs returns those of ids the house has, in the order of ids.
func (db *DB) Jobs(ctx context.Context, house string, ids []string) ([]job.Job, error) {
	out := []job.Job{}
	if len(ids) == 0 {
		return out, nil
	}
	found := map[string]job.Job{}
	for start := 0; start < len(ids); start += 500 {
		in, args := inList(ids[start:min(len(ids), start+500)])
		js, err := db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND id IN `+in, append([]any{house}, args...)...)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			found[j.ID] = j
		}
	}
	for _, id := range ids {
		if j, ok := found[id]; ok {
			out = append(out, j)
		}
	}
	return out, nil
}

// RecordDirection records on the job what its provider is told beside the
// tool's own instructions: the composed prompt and the references. For
// operators; never on the wire.
func (db *DB) RecordDirection(ctx context.Context, j job.Job, d job.Direction) error {
	refs := d.Refs
	if refs == nil {
		refs = []job.Ref{}
	}
	b, err := json.Marshal(refs)
	if err != nil {
		return err
	}
	_, err = db.writer().Exec(ctx, `UPDATE jobs SET provider_prompt = ?, provider_refs = ? WHERE organization_id = ? AND id = ?`,
		d.Prompt, string(b), j.HouseID, j.ID)
	return err
}

// JobDirection returns what was recorded for the job's provider; ok is
// false when nothing was recorded yet.
func (db *DB) JobDirection(ctx context.Context, house, id string) (d job.Direction, ok bool, err error) {
	var prompt, refs sql.NullString
	if err := db.read().QueryRow(ctx, `SELECT provider_prompt, provider_refs FROM jobs WHERE organization_id = ? AND id = ?`,
		house, id).Scan(&prompt, &refs); err != nil {
		return d, false, notFound(err)
	}
	if !refs.Valid {
		return d, false, nil
	}
	d.Prompt = prompt.String
	if err := json.Unmarshal([]byte(refs.String), &d.Refs); err != nil {
		return d, false, fmt.Errorf("job %s provider refs: %w", id, err)
	}
	return d, true, nil
}
