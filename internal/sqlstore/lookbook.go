package sqlstore

import (
	"context"
	"errors"

	"studio/internal/job"
	"studio/internal/look"
)

// SubmitLookbook writes the looks of a lookbook and the base-frame job of
// each (jobs[i] is looks[i]'s) with its hold, first event and look link,
// through the one enqueue (enqueue.go): all of them or none. The holds are
// taken together, so the first shortfall answers INSUFFICIENT_TOKENS with
// need (the whole lookbook), spendable and held, and nothing written. When
// the first job's idempotency key was used already it writes nothing and
// returns the jobs stored under the jobs' keys, replayed; a concurrent
// retry that loses the race on the (house, user, key) index reads the
// winner's jobs the same way.
func (db *DB) SubmitLookbook(ctx context.Context, house string, looks []look.Look, jobs []look.LookJob) ([]job.Job, bool, error) {
	if len(jobs) == 0 || len(jobs) != len(looks) {
		return nil, false, errors.New("sqlstore: a lookbook is one job per look")
	}
	user := jobs[0].Job.UserID
	keys := make([]string, len(jobs))
	js := make([]job.Job, len(jobs))
	for i, lj := range jobs {
		keys[i], js[i] = lj.Job.IdempotencyKey, lj.Job
	}
	var prior []job.Job
	queued, replayed, err := db.enqueue(ctx, enqueue{house: house, spend: spend{Queue: js, Hold: js},
		replay: func(tx *Tx) (bool, error) {
			first, err := jobsByKeysTx(ctx, tx, house, user, keys[:1])
			if err != nil || len(first) == 0 {
				return false, err
			}
			prior, err = jobsByKeysTx(ctx, tx, house, user, keys)
			return err == nil, err
		},
		record: func(tx *Tx, done enqueued) error {
			for i, j := range done.Jobs {
				if err := insertLookTx(ctx, tx, looks[i]); err != nil {
					return err
				}
				lj := jobs[i]
				if _, err := tx.Exec(ctx, `INSERT INTO look_jobs (organization_id, look_id, job_id, stage, variation_key, base_asset_id, created_at)
					VALUES (?, ?, ?, ?, ?, ?, ?)`, house, looks[i].ID, j.ID, lj.Stage, lj.Key, nullStr(lj.BaseAssetID), j.CreatedAt.UnixMilli()); err != nil {
					return err
				}
			}
			return nil
		}})
	if replayed {
		return prior, true, err
	}
	return queued, false, err
}
