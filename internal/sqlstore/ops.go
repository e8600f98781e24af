package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"studio/internal/job"
	"studio/internal/ops"
	"studio/internal/ts"
)

// The operators' reads (SPEC §4.17) are the only queries that do not name
// a house: they read across houses on purpose, for platform admins only.

// costTool names what a posted hold paid for: the workflow the hold
// records (issue 14), else its develop's tool, else the classifier.
const costTool = `CASE WHEN h.workflow <> '' THEN h.workflow ELSE COALESCE(j.tool, 'classify') END`

// CostsByTool sums the holds posted since the instant, by tool, with the
// costs providers stated (statedCosts); a tool no hold paid for (the
// judge) is listed when a provider stated a cost for it. Most tokens
// first, then most dollars, then by name.
func (db *DB) CostsByTool(ctx context.Context, since time.Time) ([]ops.ToolCost, error) {
	out, err := db.heldByTool(ctx, since)
	if err != nil {
		return nil, err
	}
	stated, err := db.statedByTool(ctx, since)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].CostUSD, stated[out[i].Tool] = stated[out[i].Tool], 0
	}
	for tool, usd := range stated {
		if usd > 0 {
			out = append(out, ops.ToolCost{Tool: tool, CostUSD: usd})
		}
	}
	slices.SortFunc(out, func(a, b ops.ToolCost) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(a.Tool, b.Tool))
	})
	return out, nil
}

// heldByTool sums the holds posted since the instant, by tool.
func (db *DB) heldByTool(ctx context.Context, since time.Time) ([]ops.ToolCost, error) {
	rows, err := db.read().Query(ctx, `SELECT `+costTool+`, SUM(h.tokens), COUNT(*)
		FROM ledger_holds h LEFT JOIN jobs j ON j.organization_id = h.organization_id AND j.id = h.job_id
		WHERE h.state = 'posted' AND h.resolved_at >= ?
		GROUP BY `+costTool+` ORDER BY SUM(h.tokens) DESC, `+costTool, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.ToolCost{}
	for rows.Next() {
		var c ops.ToolCost
		if err := rows.Scan(&c.Tool, &c.Tokens, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const msPerDay = 24 * 60 * 60 * 1000

// CostsByDay sums the holds posted since the instant, by UTC day, with the
// costs providers stated that day; oldest first.
func (db *DB) CostsByDay(ctx context.Context, since time.Time) ([]ops.DayCost, error) {
	out, err := db.heldByDay(ctx, since)
	if err != nil {
		return nil, err
	}
	stated, err := db.statedByDay(ctx, since)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].CostUSD, stated[out[i].Day] = stated[out[i].Day], 0
	}
	for day, usd := range stated {
		if usd > 0 {
			out = append(out, ops.DayCost{Day: day, CostUSD: usd})
		}
	}
	slices.SortFunc(out, func(a, b ops.DayCost) int { return cmp.Compare(a.Day, b.Day) })
	return out, nil
}

// heldByDay sums the holds posted since the instant, by UTC day.
func (db *DB) heldByDay(ctx context.Context, since time.Time) ([]ops.DayCost, error) {
	rows, err := db.read().Query(ctx, `SELECT h.resolved_at / 86400000, SUM(h.tokens) FROM ledger_holds h
		WHERE h.state = 'posted' AND h.resolved_at >= ?
		GROUP BY h.resolved_at / 86400000 ORDER BY h.resolved_at / 86400000`, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.DayCost{}
	for rows.Next() {
		var day int64
		var c ops.DayCost
		if err := rows.Scan(&day, &c.Tokens); err != nil {
			return nil, err
		}
		c.Day = ops.DayOf(time.UnixMilli(day * msPerDay))
		out = append(out, c)
	}
	return out, rows.Err()
}

// JobsAcross lists the develops of every house created since the instant,
// newest first, of one status when status is set.
func (db *DB) JobsAcross(ctx context.Context, since time.Time, status job.Status, limit int) ([]job.Job, error) {
	if status != "" {
		return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE created_at >= ? AND status = ?
			ORDER BY created_at DESC, id DESC LIMIT ?`, since.UnixMilli(), status, limit)
	}
	return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE created_at >= ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, since.UnixMilli(), limit)
}

// JobAnyHouse returns a develop of whichever house it belongs to.
func (db *DB) JobAnyHouse(ctx context.Context, id string) (job.Job, error) {
	return scanJob(db.publicURL, db.read().QueryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = ?`, id))
}

// HouseNames maps house ids to their names.
func (db *DB) HouseNames(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		chunk := ids[:n]
		ids = ids[n:]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := db.read().Query(ctx, `SELECT id, name FROM organizations WHERE id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, name string
			if err := rows.Scan(&id, &name); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = name
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

const letterCols = `id, to_addr, template, subject, body_text, status, provider_id,
	CASE WHEN body_html IS NULL THEN 0 ELSE 1 END, created_at`

func scanLetter(row interface{ Scan(...any) error }, html *sql.NullString) (ops.Letter, error) {
	var l ops.Letter
	var provider sql.NullString
	var hasHTML int
	var created int64
	dest := []any{&l.ID, &l.To, &l.Template, &l.Subject, &l.Text, &l.Status, &provider, &hasHTML, &created}
	if html != nil {
		dest = append(dest, html)
	}
	if err := row.Scan(dest...); err != nil {
		return ops.Letter{}, notFound(err)
	}
	if provider.Valid {
		l.ProviderID = &provider.String
	}
	l.HasHTML, l.CreatedAt = hasHTML == 1, ts.Milli(created)
	return l, nil
}

func (db *DB) letters(ctx context.Context, query string, args ...any) ([]ops.Letter, error) {
	rows, err := db.read().Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Letter{}
	for rows.Next() {
		l, err := scanLetter(rows, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Letters lists the e-mail log, newest first, without the HTML parts.
func (db *DB) Letters(ctx context.Context, limit int) ([]ops.Letter, error) {
	return db.letters(ctx, `SELECT `+letterCols+` FROM email_log ORDER BY created_at DESC, id DESC LIMIT ?`, limit)
}

// RefusedLetters lists the letters since the instant whose delivery
// failed, bounced or was complained about, newest first.
func (db *DB) RefusedLetters(ctx context.Context, since time.Time, limit int) ([]ops.Letter, error) {
	return db.letters(ctx, `SELECT `+letterCols+` FROM email_log
		WHERE created_at >= ? AND status IN ('failed', 'bounced', 'complained')
		ORDER BY created_at DESC, id DESC LIMIT ?`, since.UnixMilli(), limit)
}

// TicketsAcross lists the open tickets of every house whose latest
// message came since the instant, latest first.
func (db *DB) TicketsAcross(ctx context.Context, since time.Time, limit int) ([]ops.Ticket, error) {
	rows, err := db.read().Query(ctx, `SELECT t.id, t.organization_id, o.name, t.subject, t.source, t.last_message_at, t.created_at,
		(SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.author <> 'note'),
		COALESCE((SELECT m.author FROM support_messages m WHERE m.ticket_id = t.id AND m.author <> 'note'
			ORDER BY m.created_at DESC, m.id DESC LIMIT 1), '')
		FROM support_tickets t LEFT JOIN organizations o ON o.id = t.organization_id
		WHERE t.status = 'open' AND t.last_message_at >= ?
		ORDER BY t.last_message_at DESC, t.id DESC LIMIT ?`, since.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Ticket{}
	for rows.Next() {
		var t ops.Ticket
		var house, name sql.NullString
		var last, created int64
		var author string
		if err := rows.Scan(&t.ID, &house, &name, &t.Subject, &t.Source, &last, &created, &t.Messages, &author); err != nil {
			return nil, err
		}
		if house.Valid {
			t.House = &ops.House{ID: house.String, Name: name.String}
		}
		t.AwaitingDesk = author == "customer"
		t.LastMessageAt, t.CreatedAt = ts.Of(time.UnixMilli(last)), ts.Of(time.UnixMilli(created))
		out = append(out, t)
	}
	return out, rows.Err()
}

// Letter returns one letter with its archived HTML part.
func (db *DB) Letter(ctx context.Context, id string) (ops.Letter, error) {
	var html sql.NullString
	l, err := scanLetter(db.read().QueryRow(ctx, `SELECT `+letterCols+`, body_html FROM email_log WHERE id = ?`, id), &html)
	if err != nil {
		return ops.Letter{}, err
	}
	l.HTML = &html.String
	if !html.Valid {
		l.HTML = nil
	}
	return l, nil
}

// FramesAcross lists the live assets of every house, newest first, filtered.
func (db *DB) FramesAcross(ctx context.Context, f ops.FrameFilter) ([]ops.Frame, error) {
	q := `SELECT a.id, a.organization_id, o.name, a.name, a.tool, a.mime, a.width, a.height, a.created_at
		FROM assets a JOIN organizations o ON o.id = a.organization_id WHERE a.deleted_at IS NULL`
	var args []any
	if f.House != "" {
		q += ` AND a.organization_id = ?`
		args = append(args, f.House)
	}
	if f.Tool != "" {
		q += ` AND a.tool = ?`
		args = append(args, f.Tool)
	}
	if f.AgeDays > 0 {
		q += ` AND a.created_at >= ?`
		args = append(args, db.now().Add(-time.Duration(f.AgeDays)*24*time.Hour).UnixMilli())
	}
	switch f.Origin {
	case "made":
		q += ` AND a.tool IS NOT NULL`
	case "brought":
		q += ` AND a.tool IS NULL`
	}
	q += ` ORDER BY a.created_at DESC, a.id DESC LIMIT ?`
	args = append(args, f.Limit)
	rows, err := db.read().Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Frame{}
	for rows.Next() {
		var fr ops.Frame
		var tool sql.NullString
		var created int64
		if err := rows.Scan(&fr.ID, &fr.House.ID, &fr.House.Name, &fr.Name, &tool, &fr.Mime, &fr.Width, &fr.Height, &created); err != nil {
			return nil, err
		}
		fr.Origin = "brought"
		if tool.Valid {
			fr.Tool, fr.Origin = &tool.String, "made"
		}
		fr.URL, fr.CreatedAt = ops.FrameURL(fr.ID), ts.Milli(created)
		out = append(out, fr)
	}
	return out, rows.Err()
}

// FrameFilters lists the houses with a live asset and the tools that made one.
func (db *DB) FrameFilters(ctx context.Context) (ops.FrameFilters, error) {
	out := ops.FrameFilters{Houses: []ops.House{}, Tools: []string{}, Origins: []string{"made", "brought"}}
	rows, err := db.read().Query(ctx, `SELECT o.id, o.name FROM organizations o
		WHERE EXISTS (SELECT 1 FROM assets a WHERE a.organization_id = o.id AND a.deleted_at IS NULL) ORDER BY o.name, o.id`)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		var h ops.House
		if err := rows.Scan(&h.ID, &h.Name); err != nil {
			rows.Close()
			return out, err
		}
		out.Houses = append(out.Houses, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	rows, err = db.read().Query(ctx, `SELECT DISTINCT tool FROM assets WHERE tool IS NOT NULL AND deleted_at IS NULL ORDER BY tool`)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return out, err
		}
		out.Tools = append(out.Tools, t)
	}
	return out, rows.Err()
}

// UserExists reports whether a user has this id.
func (db *DB) UserExists(ctx context.Context, id string) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE id = ?`, id).Scan(&n)
	return n > 0, err
}

// GrantAccess records a grant; one already held writes nothing (0).
func (db *DB) GrantAccess(ctx context.Context, g ops.Grant) (int, error) {
	res, err := db.writer().Exec(ctx, `INSERT INTO access_grants (user_id, kind, item, granted_by_user_id, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, kind, item) DO NOTHING`, g.UserID, g.Kind, g.Item, nullStr(g.GrantedBy), g.At)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// RevokeAccess removes a grant; none held removes nothing (0).
func (db *DB) RevokeAccess(ctx context.Context, g ops.Grant) (int, error) {
	res, err := db.writer().Exec(ctx, `DELETE FROM access_grants WHERE user_id = ? AND kind = ? AND item = ?`, g.UserID, g.Kind, g.Item)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// AccessOf lists the toolkits and tools granted to a user, sorted.
func (db *DB) AccessOf(ctx context.Context, user string) (toolkits, tools []string, err error) {
	rows, err := db.read().Query(ctx, `SELECT kind, item FROM access_grants WHERE user_id = ? ORDER BY kind, item`, user)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	toolkits, tools = []string{}, []string{}
	for rows.Next() {
		var kind, item string
		if err := rows.Scan(&kind, &item); err != nil {
			return nil, nil, err
		}
		if kind == "toolkit" {
			toolkits = append(toolkits, item)
		} else {
			tools = append(tools, item)
		}
	}
	return toolkits, tools, rows.Err()
}

// AlertsSince lists the operator alerts raised since the instant, newest
// first. A detail that is not a JSON object reads as {"text": detail};
// its null fields are left out.
func (db *DB) AlertsSince(ctx context.Context, since time.Time, limit int) ([]ops.Alert, error) {
	rows, err := db.read().Query(ctx, `SELECT id, kind, subject, detail, created_at FROM operator_alerts WHERE created_at >= ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, since.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ops.Alert{}
	for rows.Next() {
		var al ops.Alert
		var detail string
		var created int64
		if err := rows.Scan(&al.ID, &al.Kind, &al.Subject, &detail, &created); err != nil {
			return nil, err
		}
		if json.Unmarshal([]byte(detail), &al.Detail) != nil || al.Detail == nil {
			al.Detail = map[string]any{"text": detail}
		}
		for k, v := range al.Detail {
			if v == nil {
				delete(al.Detail, k) // a null says nothing (a bounce object only a bounce has)
			}
		}
		al.CreatedAt = ts.Of(time.UnixMilli(created))
		out = append(out, al)
	}
	return out, rows.Err()
}
