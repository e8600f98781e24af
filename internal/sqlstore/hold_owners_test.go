package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/job"
	"studio/internal/ledger"
)

// TestVoidStrandedHolds: the one sweep resolves, on each engine, every
// pending hold no owner can resolve any more, and leaves the others: a
// call's hold whose holder lives and whose deadline is ahead stays; one
// whose holder's lease lapsed, or whose deadline passed, or from before
// holds had owners and older than CallHold, is voided; a job's hold is
// posted when its job was delivered and voided when it failed; a hold
// naming no job is voided unless a pipeline frame waits to queue it. The
// ledger's invariants hold after, and a second sweep finds nothing.
func TestVoidStrandedHolds(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db)
		now := clock.Now()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.writer().Exec(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		hold := func(holder string, until time.Time) ledger.Hold {
			t.Helper()
			db.SetHolder(holder)
			h := ledger.NewHold("", 1)
			h.Workflow, h.Until = "describe-item", until
			if err := db.TakeHold(ctx, house, h); err != nil {
				t.Fatal(err)
			}
			return h
		}
		if err := db.RenewHolder(ctx, "p-alive", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := db.RenewHolder(ctx, "p-dead", now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		live := hold("p-alive", now.Add(3*time.Minute))
		dead := hold("p-dead", now.Add(3*time.Minute))
		late := hold("p-alive", now.Add(-time.Second))
		def := hold("p-alive", time.Time{}) // no deadline named: CallHold
		db.SetHolder("")
		// From before holds had owners: no holder, no deadline.
		old, fresh := ledger.NewHold("", 1), ledger.NewHold("", 1)
		for _, h := range []ledger.Hold{old, fresh} {
			if err := db.TakeHold(ctx, house, h); err != nil {
				t.Fatal(err)
			}
		}
		exec(`UPDATE ledger_holds SET holder = NULL, expires_at = NULL, created_at = ? WHERE id = ?`, now.Add(-11*time.Minute).UnixMilli(), old.ID)
		exec(`UPDATE ledger_holds SET holder = NULL, expires_at = NULL WHERE id = ?`, fresh.ID)
		// Jobs whose hold was left pending (as no code path does: the net).
		delivered, failed, running := newJob(db, house, user, "", 2), newJob(db, house, user, "", 2), newJob(db, house, user, "", 2)
		for _, j := range []job.Job{delivered, failed, running} {
			if _, _, err := db.SubmitJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		exec(`UPDATE jobs SET status = 'done' WHERE id = ?`, delivered.ID)
		exec(`UPDATE jobs SET status = 'failed' WHERE id = ?`, failed.ID)
		exec(`UPDATE jobs SET status = 'running' WHERE id = ?`, running.ID)
		// A pipeline's later frames: held, their jobs not yet queued.
		waiting, orphan := ledger.NewHold(uuid.NewString(), 3), ledger.NewHold(uuid.NewString(), 3)
		if err := db.TakeHolds(ctx, house, []ledger.Hold{waiting, orphan}); err != nil {
			t.Fatal(err)
		}
		run := uuid.NewString()
		exec(`INSERT INTO pipeline_runs (id, organization_id, name, steps, asset_ids, fingerprint, cost, created_at)
			VALUES (?, ?, 'p', '[]', '[]', 'f', 6, ?)`, run, house, now.UnixMilli())
		exec(`INSERT INTO pipeline_frames (organization_id, run_id, asset_index, step, source_asset_id, job_id, hold_id, tokens, state)
			VALUES (?, ?, 0, 1, 'a', ?, ?, 3, 'waiting')`, house, run, waiting.JobID, waiting.ID)
		exec(`INSERT INTO pipeline_frames (organization_id, run_id, asset_index, step, source_asset_id, job_id, hold_id, tokens, state)
			VALUES (?, ?, 1, 1, 'b', ?, ?, 3, 'dropped')`, house, run, orphan.JobID, orphan.ID)

		n, err := db.VoidStrandedHolds(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		state := func(id string) string {
			var s string
			if err := db.read().QueryRow(ctx, `SELECT state FROM ledger_holds WHERE id = ?`, id).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		jobHold := func(j job.Job) string {
			var s string
			if err := db.read().QueryRow(ctx, `SELECT state FROM ledger_holds WHERE job_id = ?`, j.ID).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		for name, c := range map[string]struct{ got, want string }{
			"a live holder's call":       {state(live.ID), "pending"},
			"a dead holder's call":       {state(dead.ID), "voided"},
			"a call past its deadline":   {state(late.ID), "voided"},
			"a call within CallHold":     {state(def.ID), "pending"},
			"an old hold with no owner":  {state(old.ID), "voided"},
			"a fresh hold with no owner": {state(fresh.ID), "pending"},
			"a delivered job's hold":     {jobHold(delivered), "posted"},
			"a failed job's hold":        {jobHold(failed), "voided"},
			"a running job's hold":       {jobHold(running), "pending"},
			"a waiting pipeline frame's": {state(waiting.ID), "pending"},
			"a hold of no job, no frame": {state(orphan.ID), "voided"},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s; want %s", name, c.got, c.want)
			}
		}
		if n != 6 {
			t.Errorf("resolved %d; want 6", n)
		}
		checkLedger(t, db, house)
		if n, err := db.VoidStrandedHolds(ctx, now); n != 0 || err != nil {
			t.Errorf("a second sweep resolved %d (%v)", n, err)
		}
		// CallHold later the call that named no deadline is stranded too.
		if n, err := db.VoidStrandedHolds(ctx, now.Add(ledger.CallHold+time.Second)); err != nil || state(def.ID) != "voided" {
			t.Errorf("past CallHold: %d %v, %s", n, err, state(def.ID))
		}
		checkLedger(t, db, house)
	})
}
