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
// need (the whole lookbook), spendable and held, and nothing written. A
// lookbook submitted before is replayed (lookBatch).
func (db *DB) SubmitLookbook(ctx context.Context, house string, looks []look.Look, jobs []look.LookJob) ([]job.Job, bool, error) {
	if len(jobs) == 0 || len(jobs) != len(looks) {
		return nil, false, errors.New("sqlstore: a lookbook is one job per look")
	}
	b := &lookBatch{house: house, jobs: jobs}
	js := b.queue()
	return b.result(db.enqueue(ctx, enqueue{house: house, spend: spend{Queue: js, Hold: js},
		replay: b.replay(ctx),
		record: func(tx *Tx, done enqueued) error {
			for i, j := range done.Jobs {
				if err := insertLookTx(ctx, tx, looks[i]); err != nil {
					return err
				}
				if err := b.linkTx(ctx, tx, looks[i].ID, i, j); err != nil {
					return err
				}
			}
			return nil
		}}))
}
