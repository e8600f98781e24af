package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"studio/internal/metrics"
)

// MetricsSnapshot reads the gauges /metrics reports from the database:
// the live develops by tool and state, the pending holds and the webhook
// outbox. Each statement reads only a partial index's rows (queued or
// running jobs, pending holds, pending deliveries), which is what is live,
// not the history, so a scrape stays cheap however many develops a house
// made.
func (db *DB) MetricsSnapshot(ctx context.Context) (metrics.Snapshot, error) {
	var s metrics.Snapshot
	rows, err := db.r.QueryContext(ctx, db.bind(`
		SELECT tool, 'queued', COUNT(*), MIN(created_at) FROM jobs WHERE status = 'queued' GROUP BY tool
		UNION ALL
		SELECT tool, 'running', COUNT(*), MIN(created_at) FROM jobs WHERE status = 'running' GROUP BY tool`))
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var c metrics.JobCount
		var oldest int64
		if err := rows.Scan(&c.Tool, &c.State, &c.Count, &oldest); err != nil {
			return s, err
		}
		c.Oldest = time.UnixMilli(oldest)
		s.Jobs = append(s.Jobs, c)
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	var oldestHold sql.NullInt64
	if err := db.r.QueryRowContext(ctx, `SELECT COUNT(*), MIN(created_at) FROM ledger_holds WHERE state = 'pending'`).
		Scan(&s.HoldsPending, &oldestHold); err != nil {
		return s, err
	}
	if oldestHold.Valid {
		s.OldestHold = time.UnixMilli(oldestHold.Int64)
	}
	err = db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&s.Outbox)
	return s, err
}
