package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"studio/internal/analyst"
	"studio/internal/ops"
	"studio/internal/ts"
)

// The analyst's reads (package analyst) aggregate across houses and
// answer counts; none of them returns a user, an address or a house.

// count runs a query answering one integer.
func (db *DB) count(ctx context.Context, query string, args ...any) (int64, error) {
	var n sql.NullInt64
	err := db.read().QueryRow(ctx, query, args...).Scan(&n)
	return n.Int64, err
}

// keyCounts runs a query answering (key, count) rows.
func (db *DB) keyCounts(ctx context.Context, query string, args ...any) ([]analyst.Count, error) {
	rows, err := db.read().Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []analyst.Count{}
	for rows.Next() {
		var c analyst.Count
		if err := rows.Scan(&c.Key, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// AnalystChat counts the assistant's turns since the instant, and the
// turns of each conversation.
func (db *DB) AnalystChat(ctx context.Context, since time.Time) (analyst.Chat, []int64, error) {
	var c analyst.Chat
	var applying, empty sql.NullInt64
	err := db.read().QueryRow(ctx, `SELECT COUNT(*), COUNT(DISTINCT organization_id),
			SUM(CASE WHEN applied NOT IN ('[]', 'null', '') THEN 1 ELSE 0 END), SUM(CASE WHEN reply = '' THEN 1 ELSE 0 END)
		FROM chat_turns WHERE created_at >= ?`, since.UnixMilli()).Scan(&c.Turns, &c.Houses, &applying, &empty)
	if err != nil {
		return analyst.Chat{}, nil, err
	}
	c.TurnsApplying, c.EmptyReplies = applying.Int64, empty.Int64
	rows, err := db.read().Query(ctx, `SELECT COUNT(*) FROM chat_turns WHERE created_at >= ?
		GROUP BY organization_id, session_id`, since.UnixMilli())
	if err != nil {
		return analyst.Chat{}, nil, err
	}
	defer rows.Close()
	lengths := []int64{}
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return analyst.Chat{}, nil, err
		}
		lengths = append(lengths, n)
	}
	c.Sessions = int64(len(lengths))
	return c, lengths, rows.Err()
}

// AnalystLetters counts the letters written since the instant by template
// and status.
func (db *DB) AnalystLetters(ctx context.Context, since time.Time) ([]analyst.TemplateStatus, error) {
	rows, err := db.read().Query(ctx, `SELECT template, status, COUNT(*) FROM email_log WHERE created_at >= ?
		GROUP BY template, status ORDER BY template, status`, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []analyst.TemplateStatus{}
	for rows.Next() {
		var r analyst.TemplateStatus
		if err := rows.Scan(&r.Template, &r.Status, &r.Count); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AnalystFailed lists the develops that failed since the instant, newest
// first, and counts every develop created since.
func (db *DB) AnalystFailed(ctx context.Context, since time.Time, limit int) ([]analyst.FailedJob, int64, error) {
	all, err := db.count(ctx, `SELECT COUNT(*) FROM jobs WHERE created_at >= ?`, since.UnixMilli())
	if err != nil {
		return nil, 0, err
	}
	rows, err := db.read().Query(ctx, `SELECT organization_id, tool, COALESCE(error, ''), created_at FROM jobs
		WHERE created_at >= ? AND status = 'failed' ORDER BY created_at DESC, id DESC LIMIT ?`, since.UnixMilli(), limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []analyst.FailedJob{}
	for rows.Next() {
		var j analyst.FailedJob
		var at int64
		if err := rows.Scan(&j.House, &j.Tool, &j.Error, &at); err != nil {
			return nil, 0, err
		}
		j.CreatedAt = time.UnixMilli(at)
		out = append(out, j)
	}
	return out, all, rows.Err()
}

// AnalystFunnel counts the users who signed up since the instant and how
// many of their own houses reached each step.
func (db *DB) AnalystFunnel(ctx context.Context, since time.Time) (analyst.FunnelCounts, error) {
	var c analyst.FunnelCounts
	var up, dev, look, paid sql.NullInt64
	err := db.read().QueryRow(ctx, `SELECT COUNT(*),
			SUM(CASE WHEN EXISTS (SELECT 1 FROM assets a WHERE a.organization_id = o.id AND a.tool IS NULL) THEN 1 ELSE 0 END),
			SUM(CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.organization_id = o.id) THEN 1 ELSE 0 END),
			SUM(CASE WHEN EXISTS (SELECT 1 FROM looks l WHERE l.organization_id = o.id) THEN 1 ELSE 0 END),
			SUM(CASE WHEN EXISTS (SELECT 1 FROM plans p WHERE p.organization_id = o.id AND p.tier <> 'trial')
				OR EXISTS (SELECT 1 FROM ledger_credits lc WHERE lc.organization_id = o.id AND lc.kind = 'topup') THEN 1 ELSE 0 END)
		FROM users u JOIN organizations o ON o.founder_user_id = u.id AND o.personal = 1
		WHERE u.created_at >= ?`, since.UnixMilli()).Scan(&c.SignUps, &up, &dev, &look, &paid)
	c.Uploaded, c.Developed, c.Looked, c.Paid = up.Int64, dev.Int64, look.Int64, paid.Int64
	return c, err
}

// AnalystUsage counts what the houses used since the instant.
func (db *DB) AnalystUsage(ctx context.Context, since time.Time) (analyst.Usage, error) {
	ms := since.UnixMilli()
	u := analyst.Usage{ByTool: []analyst.ToolUsage{}, Lanes: []analyst.LaneUsage{}}
	var err error
	if u.ActiveHouses, err = db.count(ctx, `SELECT COUNT(DISTINCT organization_id) FROM jobs WHERE created_at >= ?`, ms); err != nil {
		return u, err
	}
	if u.Uploads, err = db.count(ctx, `SELECT COUNT(*) FROM assets WHERE created_at >= ? AND tool IS NULL`, ms); err != nil {
		return u, err
	}
	if u.Looks, err = db.count(ctx, `SELECT COUNT(*) FROM looks WHERE created_at >= ?`, ms); err != nil {
		return u, err
	}
	if u.Shares, err = db.count(ctx, `SELECT COUNT(*) FROM shares WHERE created_at >= ?`, ms); err != nil {
		return u, err
	}
	rows, err := db.read().Query(ctx, `SELECT tool, COUNT(*),
			SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END),
			SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END), COUNT(DISTINCT organization_id),
			CAST(SUM(CASE WHEN status = 'done' THEN cost ELSE 0 END) AS BIGINT)
		FROM jobs WHERE created_at >= ? GROUP BY tool ORDER BY COUNT(*) DESC, tool`, ms)
	if err != nil {
		return u, err
	}
	defer rows.Close()
	for rows.Next() {
		var t analyst.ToolUsage
		if err := rows.Scan(&t.Tool, &t.Develops, &t.Done, &t.Failed, &t.Cancelled, &t.Houses, &t.Tokens); err != nil {
			return u, err
		}
		u.Develops += t.Develops
		u.ByTool = append(u.ByTool, t)
	}
	if err := rows.Err(); err != nil {
		return u, err
	}
	if u.ByTier, err = db.keyCounts(ctx, `SELECT tier, COUNT(*) FROM jobs WHERE created_at >= ? GROUP BY tier ORDER BY tier`, ms); err != nil {
		return u, err
	}
	lanes, err := db.read().Query(ctx, `SELECT lane, COUNT(*), SUM(CASE WHEN ok = 0 THEN 1 ELSE 0 END) FROM ai_calls
		WHERE created_at >= ? GROUP BY lane ORDER BY COUNT(*) DESC, lane`, ms)
	if err != nil {
		return u, err
	}
	defer lanes.Close()
	for lanes.Next() {
		var l analyst.LaneUsage
		if err := lanes.Scan(&l.Lane, &l.Calls, &l.Failed); err != nil {
			return u, err
		}
		u.Lanes = append(u.Lanes, l)
	}
	return u, lanes.Err()
}

// AnalystApplicants lists the applicants who asked since the instant (of
// one status when status is set), newest first, and counts them by status.
func (db *DB) AnalystApplicants(ctx context.Context, since time.Time, status string, limit int) ([]analyst.Applicant, []analyst.Count, error) {
	by, err := db.keyCounts(ctx, `SELECT status, COUNT(*) FROM invite_requests WHERE created_at >= ? GROUP BY status`, since.UnixMilli())
	if err != nil {
		return nil, nil, err
	}
	q := `SELECT id, status, COALESCE(website, ''), details, created_at, decided_at FROM invite_requests WHERE created_at >= ?`
	args := []any{since.UnixMilli()}
	if status != "" {
		q += ` AND status = ?`
		args = append(args, status)
	}
	rows, err := db.read().Query(ctx, q+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	out := []analyst.Applicant{}
	for rows.Next() {
		var a analyst.Applicant
		var website string
		var created int64
		var decided sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Status, &website, &a.Details, &created, &decided); err != nil {
			return nil, nil, err
		}
		a.HasWebsite = website != ""
		a.CreatedAt, a.DecidedAt = ts.Milli(created), tsPtr(decided)
		out = append(out, a)
	}
	return out, by, rows.Err()
}

// AnalystLearnings counts the memories, standing notes and answers to the
// judge written since the instant.
func (db *DB) AnalystLearnings(ctx context.Context, since time.Time, limit int) (analyst.Learnings, error) {
	ms := since.UnixMilli()
	var l analyst.Learnings
	var err error
	if l.Memories, err = db.count(ctx, `SELECT COUNT(*) FROM memories WHERE created_at >= ?`, ms); err != nil {
		return l, err
	}
	if l.Corrections, err = db.count(ctx, `SELECT COUNT(*) FROM memories WHERE created_at >= ? AND supersedes_id IS NOT NULL`, ms); err != nil {
		return l, err
	}
	if l.MemoryByStatus, err = db.keyCounts(ctx, `SELECT status, COUNT(*) FROM memories WHERE created_at >= ? GROUP BY status ORDER BY COUNT(*) DESC, status`, ms); err != nil {
		return l, err
	}
	if l.MemoryByScope, err = db.keyCounts(ctx, `SELECT scope, COUNT(*) FROM memories WHERE created_at >= ? GROUP BY scope ORDER BY COUNT(*) DESC, scope`, ms); err != nil {
		return l, err
	}
	if l.MemoryByKind, err = db.keyCounts(ctx, `SELECT kind, COUNT(*) FROM memories WHERE created_at >= ? GROUP BY kind ORDER BY COUNT(*) DESC, kind LIMIT ?`, ms, limit); err != nil {
		return l, err
	}
	if l.NotesSet, err = db.count(ctx, `SELECT COUNT(*) FROM standing_notes WHERE created_at >= ?`, ms); err != nil {
		return l, err
	}
	var agreed, disagreed sql.NullInt64
	if err = db.read().QueryRow(ctx, `SELECT COUNT(*), SUM(CASE WHEN agrees_with_judge = 1 THEN 1 ELSE 0 END),
			SUM(CASE WHEN agrees_with_judge = 0 THEN 1 ELSE 0 END) FROM frame_feedback WHERE updated_at >= ?`, ms).
		Scan(&l.Answers, &agreed, &disagreed); err != nil {
		return l, err
	}
	l.Agreed, l.Disagreed = agreed.Int64, disagreed.Int64
	l.Ratings, err = db.keyCounts(ctx, `SELECT CAST(rating AS TEXT), COUNT(*) FROM frame_feedback WHERE updated_at >= ? AND rating IS NOT NULL
		GROUP BY rating ORDER BY rating`, ms)
	return l, err
}

// AnalystRejections counts the verdicts written since the instant and
// returns each one's findings.
func (db *DB) AnalystRejections(ctx context.Context, since time.Time) (analyst.Rejections, []string, error) {
	ms := since.UnixMilli()
	var r analyst.Rejections
	var flagged, unreadable, futile sql.NullInt64
	if err := db.read().QueryRow(ctx, `SELECT COUNT(*), SUM(flagged), SUM(unreadable), SUM(retry_futile) FROM verdicts WHERE created_at >= ?`, ms).
		Scan(&r.Verdicts, &flagged, &unreadable, &futile); err != nil {
		return r, nil, err
	}
	r.Flagged, r.Unreadable, r.RetryFutile = flagged.Int64, unreadable.Int64, futile.Int64
	var err error
	if r.Disagreed, err = db.count(ctx, `SELECT COUNT(*) FROM verdicts v JOIN frame_feedback f
		ON f.organization_id = v.organization_id AND f.job_id = v.job_id
		WHERE v.created_at >= ? AND f.agrees_with_judge = 0`, ms); err != nil {
		return r, nil, err
	}
	rows, err := db.read().Query(ctx, `SELECT findings FROM verdicts WHERE created_at >= ? AND findings <> '[]' LIMIT 20000`, ms)
	if err != nil {
		return r, nil, err
	}
	defer rows.Close()
	findings := []string{}
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return r, nil, err
		}
		findings = append(findings, f)
	}
	return r, findings, rows.Err()
}

// storySeries are the day series of the long story: a counter of the day
// and the query counting it by UTC day (the house filter appended).
var storySeries = []struct {
	set   func(*analyst.DayCounts, int64)
	query string
}{
	{func(d *analyst.DayCounts, n int64) { d.Joined = n }, `SELECT created_at / 86400000, COUNT(*) FROM seats WHERE created_at >= ?`},
	{func(d *analyst.DayCounts, n int64) { d.Uploads = n }, `SELECT created_at / 86400000, COUNT(*) FROM assets WHERE created_at >= ? AND tool IS NULL`},
	{func(d *analyst.DayCounts, n int64) { d.Develops = n }, `SELECT created_at / 86400000, COUNT(*) FROM jobs WHERE created_at >= ?`},
	{func(d *analyst.DayCounts, n int64) { d.Failed = n }, `SELECT created_at / 86400000, COUNT(*) FROM jobs WHERE created_at >= ? AND status = 'failed'`},
	{func(d *analyst.DayCounts, n int64) { d.Looks = n }, `SELECT created_at / 86400000, COUNT(*) FROM looks WHERE created_at >= ?`},
	{func(d *analyst.DayCounts, n int64) { d.Verdicts = n }, `SELECT created_at / 86400000, COUNT(*) FROM verdicts WHERE created_at >= ?`},
	{func(d *analyst.DayCounts, n int64) { d.Shares = n }, `SELECT created_at / 86400000, COUNT(*) FROM shares WHERE created_at >= ?`},
}

// AnalystStory counts what happened since the instant by UTC day, for
// every house together or for one.
func (db *DB) AnalystStory(ctx context.Context, since time.Time, house string) ([]analyst.DayCounts, error) {
	days := map[int64]*analyst.DayCounts{}
	for _, s := range storySeries {
		q, args := s.query, []any{since.UnixMilli()}
		if house != "" {
			q += ` AND organization_id = ?`
			args = append(args, house)
		}
		rows, err := db.read().Query(ctx, q+` GROUP BY created_at / 86400000`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var day, n int64
			if err := rows.Scan(&day, &n); err != nil {
				rows.Close()
				return nil, err
			}
			d := days[day]
			if d == nil {
				d = &analyst.DayCounts{Day: ops.DayOf(time.UnixMilli(day * msPerDay))}
				days[day] = d
			}
			s.set(d, n)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	out := make([]analyst.DayCounts, 0, len(days))
	for _, d := range days {
		out = append(out, *d)
	}
	return out, nil
}

// ApplicantForAction reads what an analyst action needs of an applicant.
func (db *DB) ApplicantForAction(ctx context.Context, id string) (analyst.ApplicantRow, error) {
	var a analyst.ApplicantRow
	err := db.read().QueryRow(ctx, `SELECT id, email, COALESCE(website, ''), details, status FROM invite_requests WHERE id = ?`, id).
		Scan(&a.ID, &a.Email, &a.Website, &a.Details, &a.Status)
	return a, notFound(err)
}

// DecideApplicant moves an applicant from one status to another with the
// reason (a move back to pending clears the decision); false when it was
// not in the from status.
func (db *DB) DecideApplicant(ctx context.Context, id, from, to, reason string, at time.Time) (bool, error) {
	var decided sql.NullInt64
	if to != "pending" {
		decided = sql.NullInt64{Int64: at.UnixMilli(), Valid: true}
	}
	res, err := db.writer().Exec(ctx, `UPDATE invite_requests SET status = ?, decided_at = ?, decision_reason = ?
		WHERE id = ? AND status = ?`, to, decided, nullStr(reason), id, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
