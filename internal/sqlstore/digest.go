package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"studio/internal/digest"
	"studio/internal/ts"
)

// The analyst digest's rows (00085): like the operators' reads, its facts
// are aggregates across houses, for platform admins only.

// AnalystWindow counts what was stored in (from, to], across houses: a
// row written in the instant a run starts is in its window.
func (db *DB) AnalystWindow(ctx context.Context, from, to time.Time) (digest.Window, error) {
	var w digest.Window
	a, b := from.UnixMilli(), to.UnixMilli()
	err := db.read().QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM jobs WHERE created_at > ? AND created_at <= ?),
		(SELECT COUNT(*) FROM jobs WHERE created_at > ? AND created_at <= ? AND status = 'failed'),
		(SELECT COUNT(*) FROM verdicts WHERE created_at > ? AND created_at <= ? AND score IS NOT NULL),
		(SELECT COUNT(*) FROM verdicts WHERE created_at > ? AND created_at <= ? AND score IS NULL),
		(SELECT COALESCE(SUM(score), 0) FROM verdicts WHERE created_at > ? AND created_at <= ?),
		(SELECT COUNT(*) FROM users WHERE created_at > ? AND created_at <= ?),
		(SELECT COALESCE(SUM(tokens), 0) FROM ledger_holds WHERE state = 'posted' AND resolved_at > ? AND resolved_at <= ?),
		(SELECT COUNT(*) FROM email_log WHERE created_at > ? AND created_at <= ? AND status IN ('failed', 'bounced', 'complained'))`,
		a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b).Scan(&w.Develops, &w.FailedDevelops, &w.ReadableVerdicts,
		&w.UnreadableVerdicts, &w.ScoreSum, &w.SignUps, &w.SettledTokens, &w.EmailRefusals)
	return w, err
}

// FailedDevelops lists the error text and house of the develops created in
// (from, to] that failed, newest first.
func (db *DB) FailedDevelops(ctx context.Context, from, to time.Time, limit int) ([]digest.Failed, error) {
	rows, err := db.read().Query(ctx, `SELECT COALESCE(error, ''), organization_id FROM jobs
		WHERE created_at > ? AND created_at <= ? AND status = 'failed' ORDER BY created_at DESC, id DESC LIMIT ?`,
		from.UnixMilli(), to.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []digest.Failed
	for rows.Next() {
		var f digest.Failed
		if err := rows.Scan(&f.Error, &f.House); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// AnalystCadence returns the stored cadence, or the default (168 hours,
// off) while none is stored.
func (db *DB) AnalystCadence(ctx context.Context) (digest.Cadence, error) {
	c := digest.Cadence{Hours: digest.DefaultHours}
	var enabled int
	var at int64
	err := db.read().QueryRow(ctx, `SELECT hours, enabled, updated_at FROM analyst_cadence WHERE id = 1`).Scan(&c.Hours, &enabled, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return digest.Cadence{}, err
	}
	c.Enabled = enabled == 1
	u := ts.Milli(at)
	c.UpdatedAt = &u
	return c, nil
}

// SetAnalystCadence stores the hours and, when given, enabled (absent
// keeps the stored value, off at first), and returns the cadence stored.
func (db *DB) SetAnalystCadence(ctx context.Context, hours int, enabled *bool, by string, at time.Time) (digest.Cadence, error) {
	on := 0
	if enabled != nil && *enabled {
		on = 1
	}
	q := `INSERT INTO analyst_cadence (id, hours, enabled, updated_by_user_id, updated_at) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET hours = excluded.hours, updated_by_user_id = excluded.updated_by_user_id, updated_at = excluded.updated_at`
	if enabled != nil {
		q += `, enabled = excluded.enabled`
	}
	if _, err := db.writer().Exec(ctx, q, hours, on, nullStr(by), at.UnixMilli()); err != nil {
		return digest.Cadence{}, err
	}
	return db.AnalystCadence(ctx)
}

// ClaimAutoDigest claims the automatic run due at the instant: it wins
// when the cadence is enabled and no run was claimed within its hours, so
// one instance of many computes each due digest.
func (db *DB) ClaimAutoDigest(ctx context.Context, at time.Time) (bool, error) {
	ms := at.UnixMilli()
	res, err := db.writer().Exec(ctx, `UPDATE analyst_cadence SET auto_claimed_at = ?
		WHERE id = 1 AND enabled = 1 AND (auto_claimed_at IS NULL OR auto_claimed_at + hours * 3600000 <= ?)`, ms, ms)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// digestBody is what analyst_digests.body holds.
type digestBody struct {
	Headlines []string          `json:"headlines"`
	Movements []digest.Movement `json:"movements"`
	Actions   []digest.Action   `json:"actions"`
	Caveats   []digest.Caveat   `json:"caveats"`
	Readable  int               `json:"readableVerdicts"`
	Floor     int               `json:"verdictFloor"`
}

// InsertDigest stores a computed digest.
func (db *DB) InsertDigest(ctx context.Context, d digest.Stored) error {
	body, err := json.Marshal(digestBody{Headlines: d.Headlines, Movements: d.Movements, Actions: d.Actions, Caveats: d.Caveats,
		Readable: d.ReadableVerdicts, Floor: d.VerdictFloor})
	if err != nil {
		return err
	}
	thin := 0
	if d.Thin {
		thin = 1
	}
	var model sql.NullString
	if d.Model != nil {
		model = sql.NullString{String: *d.Model, Valid: true}
	}
	_, err = db.writer().Exec(ctx, `INSERT INTO analyst_digests (id, window_hours, window_start, window_end, thin, headlines_by,
		body, model, prompt_tokens, completion_tokens, cost_usd, run_by_user_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.WindowHours, d.WindowStart.UnixMilli(), d.WindowEnd.UnixMilli(), thin, d.HeadlinesBy, string(body), model,
		d.PromptTokens, d.CompletionTokens, d.CostUSD, nullStr(d.RunBy), d.CreatedAt.UnixMilli())
	return err
}

const digestCols = `id, window_hours, window_start, window_end, thin, headlines_by, body, model, cost_usd, created_at`

func scanDigest(row interface{ Scan(...any) error }) (digest.Digest, error) {
	var d digest.Digest
	var start, end, created int64
	var thin int
	var body string
	var model sql.NullString
	if err := row.Scan(&d.ID, &d.WindowHours, &start, &end, &thin, &d.HeadlinesBy, &body, &model, &d.CostUSD, &created); err != nil {
		return digest.Digest{}, err
	}
	var b digestBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return digest.Digest{}, err
	}
	d.WindowStart, d.WindowEnd, d.CreatedAt = ts.Milli(start), ts.Milli(end), ts.Milli(created)
	d.Thin = thin == 1
	if model.Valid {
		d.Model = &model.String
	}
	d.Headlines, d.Movements, d.Actions, d.Caveats = b.Headlines, b.Movements, b.Actions, b.Caveats
	d.ReadableVerdicts, d.VerdictFloor = b.Readable, b.Floor
	if d.Headlines == nil {
		d.Headlines = []string{}
	}
	if d.Movements == nil {
		d.Movements = []digest.Movement{}
	}
	if d.Actions == nil {
		d.Actions = []digest.Action{}
	}
	if d.Caveats == nil {
		d.Caveats = []digest.Caveat{}
	}
	return d, nil
}

// LatestDigest returns the newest digest, if any.
func (db *DB) LatestDigest(ctx context.Context) (digest.Digest, bool, error) {
	d, err := scanDigest(db.read().QueryRow(ctx, `SELECT `+digestCols+` FROM analyst_digests ORDER BY created_at DESC, id DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return digest.Digest{}, false, nil
	}
	return d, err == nil, err
}

// PreviousDigests lists the headlines of up to limit digests older than
// the one named, newest first.
func (db *DB) PreviousDigests(ctx context.Context, beforeID string, limit int) ([]digest.Previous, error) {
	rows, err := db.read().Query(ctx, `SELECT `+digestCols+` FROM analyst_digests d
		WHERE d.id <> ? AND d.created_at <= (SELECT created_at FROM analyst_digests WHERE id = ?)
		ORDER BY d.created_at DESC, d.id DESC LIMIT ?`, beforeID, beforeID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []digest.Previous{}
	for rows.Next() {
		d, err := scanDigest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, digest.Previous{ID: d.ID, CreatedAt: d.CreatedAt, WindowHours: d.WindowHours, Thin: d.Thin,
			HeadlinesBy: d.HeadlinesBy, Headlines: d.Headlines})
	}
	return out, rows.Err()
}

// LogDigestRead writes one row of the operators' audit of digest reads.
func (db *DB) LogDigestRead(ctx context.Context, r digest.Read) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO analyst_reads (id, user_id, digest_id, history, created_at) VALUES (?, ?, ?, ?, ?)`,
		r.ID, r.UserID, nullStr(r.DigestID), r.History, r.At.UnixMilli())
	return err
}
