package sqlstore

import (
	"context"
	"errors"
	"time"

	"studio/internal/ledger"
)

// Every hold has an owner that outlives a crash (migration 00113, issue
// 28). A job's hold is its job's: the job's claim lease returns a crashed
// worker's job to the queue, its deadline fails one that runs for ever, and
// every move of the job resolves its hold in the same transaction. A
// pipeline's hold for a frame not yet queued is its frame's (waiting). A
// hold of no job pays for a call one process makes (an AI lane, an upload's
// reading, a brand re-read): it records the process (holder, whose lease in
// hold_holders the process renews while it lives) and until when the call
// can finish (expires_at). VoidStrandedHolds is the one sweep over every
// kind: what no owner can resolve any more is resolved here.

// SetHolder names this process's holder: the holds of its calls record it.
// Call it once, before the store is used.
func (db *DB) SetHolder(id string) { db.holder = id }

// RenewHolder writes the holder's lease: its calls' holds are its own
// until then.
func (db *DB) RenewHolder(ctx context.Context, id string, until time.Time) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO hold_holders (id, started_at, lease_until) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`, id, db.nowMs(), until.UnixMilli())
	return err
}

// strandedHolds finds the pending holds no owner can resolve any more (its
// parameters: CallHold in ms, then now twice): a call's hold past its deadline (or,
// from before holds recorded one, older than CallHold), or whose holder's
// lease lapsed; a job's hold whose job has ended (it should have been
// resolved with it: this is the net under that rule); and a hold naming a
// job that does not exist, unless a pipeline frame still waits to queue it.
const strandedHolds = `SELECT h.organization_id, h.id, COALESCE(j.status, '') FROM ledger_holds h
	LEFT JOIN jobs j ON j.organization_id = h.organization_id AND j.id = h.job_id
	WHERE h.state = 'pending' AND (
		(h.job_id IS NULL AND (COALESCE(h.expires_at, h.created_at + ?) < ?
			OR (h.holder IS NOT NULL AND NOT EXISTS (SELECT 1 FROM hold_holders o WHERE o.id = h.holder AND o.lease_until >= ?))))
		OR (h.job_id IS NOT NULL AND j.status IN ('done', 'failed', 'cancelled'))
		OR (h.job_id IS NOT NULL AND j.id IS NULL AND NOT EXISTS (SELECT 1 FROM pipeline_frames f
			WHERE f.organization_id = h.organization_id AND f.job_id = h.job_id AND f.state = 'waiting')))
	ORDER BY h.created_at LIMIT 500`

// VoidStrandedHolds resolves every pending hold no owner can resolve any
// more (strandedHolds) and answers how many it resolved: voided, but
// posted for a job that was delivered (its frame was). Each hold moves in
// its own transaction under its house's lock, as any resolution does, so a
// call that answers at the same instant either posts first (the sweep
// then leaves it) or finds it voided (and its answer is dropped, not
// charged).
func (db *DB) VoidStrandedHolds(ctx context.Context, now time.Time) (int, error) {
	type stranded struct{ house, id, jobStatus string }
	n := 0
	for {
		ms := now.UnixMilli()
		rows, err := db.read().Query(ctx, strandedHolds, ledger.CallHold.Milliseconds(), ms, ms)
		if err != nil {
			return n, err
		}
		var found []stranded
		for rows.Next() {
			var s stranded
			if err := rows.Scan(&s.house, &s.id, &s.jobStatus); err != nil {
				rows.Close()
				return n, err
			}
			found = append(found, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, err
		}
		if len(found) == 0 {
			return n, nil
		}
		moved := 0
		for _, s := range found {
			to := ledger.Voided
			if s.jobStatus == "done" {
				to = ledger.Posted
			}
			err := db.write(ctx, func(tx *Tx) error { return db.resolveHoldTx(ctx, tx, s.house, s.id, to) })
			switch {
			case errors.Is(err, ledger.ErrHoldResolved):
			case err != nil:
				return n, err
			default:
				n++
				moved++
			}
		}
		if moved == 0 {
			return n, nil // every one was resolved meanwhile by its owner
		}
	}
}
