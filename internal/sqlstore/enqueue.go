package sqlstore

// The enqueue (ARCHITECTURE "The flow of a develop", step 2): one
// transaction writes the holds, the jobs queued on them and each job's
// first event, all or none. Every route that spends on develops comes
// through here: submit and MCP start_develop (SubmitJob), duplicate and
// redraw (SubmitJob), takes (SubmitTake), a look's develop-lock and
// variations (SubmitLookJobs), a lookbook's base frames (SubmitLookbook),
// a pipeline's run (StartPipeline) and each step a landed one queues next
// (advancePipelineTx, through enqueueTx).
// Nothing else inserts jobs or takes holds for them, so a hold is filed
// under its job's tool (the account view's spend per workflow) in one place.

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"studio/internal/job"
	"studio/internal/ledger"
)

// spend is what one enqueue holds and queues.
type spend struct {
	// Queue lists the jobs queued now, each with its first event, on the
	// hold taken for it: in Hold, or earlier (Held).
	Queue []job.Job
	// Hold lists the jobs to hold tokens for, one hold each (holdFor),
	// taken together: the first shortfall answers INSUFFICIENT_TOKENS with
	// nothing written. A pipeline holds its later steps' develops before
	// they exist: of those only ID, UserID, Tool, Cost and CreatedAt count.
	Hold []job.Job
	// Held maps a queued job to the hold an earlier enqueue took for it
	// (a pipeline's next step).
	Held map[string]string
}

// holdFor is the hold that pays for j: its cost, its user, and its tool as
// the workflow the account view files the spend under.
func holdFor(j job.Job) ledger.Hold {
	h := ledger.NewHold(j.ID, j.Cost)
	h.UserID, h.Workflow, h.CreatedAt = j.UserID, j.Tool, j.CreatedAt
	return h
}

// enqueued is what an enqueue wrote: the queued jobs with their event
// seqs, and the hold taken for each held job, by job id.
type enqueued struct {
	Jobs  []job.Job
	Holds map[string]string
}

// enqueueTx writes s inside tx. Every queued job must have a hold.
func (db *DB) enqueueTx(ctx context.Context, tx *Tx, house string, s spend) (enqueued, error) {
	queued := make([]job.Job, len(s.Queue))
	// The event seqs first: the first one's update takes the house's lock,
	// which the holds then need no statement for.
	for i, j := range s.Queue {
		seq, err := nextSeq(ctx, tx, house)
		if err != nil {
			return enqueued{}, err
		}
		j.EventSeq = seq
		queued[i] = j
	}
	holds := make([]ledger.Hold, len(s.Hold))
	taken := make(map[string]string, len(s.Hold))
	for i, j := range s.Hold {
		holds[i] = holdFor(j)
		taken[j.ID] = holds[i].ID
	}
	if err := db.takeHoldsTx(ctx, tx, house, holds); err != nil {
		return enqueued{}, err
	}
	for _, j := range queued {
		hold := cmp.Or(taken[j.ID], s.Held[j.ID])
		if hold == "" {
			return enqueued{}, fmt.Errorf("enqueue: job %s of house %s has no hold", j.ID, house)
		}
		if err := insertJob(ctx, tx, j, hold); err != nil {
			return enqueued{}, err
		}
	}
	return enqueued{Jobs: queued, Holds: taken}, nil
}

// enqueue is one request's enqueue, in a transaction of its own.
type enqueue struct {
	house string
	spend
	// replay, set when the request carries an idempotency key, reads what
	// an earlier request stored under the key into the caller's answer and
	// reports whether there was one; then nothing is written. It runs
	// first in the transaction and, when the transaction trips a unique
	// index (a concurrent retry won the key), again in a fresh one.
	replay func(tx *Tx) (found bool, err error)
	// check runs after replay finds nothing and before the holds: what the
	// jobs depend on (a look still in the state the request expects), or a
	// row that claims the key (a take's).
	check func(tx *Tx) error
	// record writes, after the jobs, the rows that name them (a look's
	// links, a take's directions, a run and its frames) and reads the answer.
	record func(tx *Tx, done enqueued) error
}

// enqueue writes e in one transaction and returns the jobs it queued with
// their event seqs, or replayed true when e.replay found the key used.
func (db *DB) enqueue(ctx context.Context, e enqueue) (queued []job.Job, replayed bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		if e.replay != nil {
			found, err := e.replay(tx)
			if found || err != nil {
				replayed = found
				return err
			}
		}
		if e.check != nil {
			if err := e.check(tx); err != nil {
				return err
			}
		}
		done, err := db.enqueueTx(ctx, tx, e.house, e.spend)
		if err != nil {
			return err
		}
		queued = done.Jobs
		if e.record != nil {
			return e.record(tx, done)
		}
		return nil
	})
	if errors.Is(err, errUnique) && e.replay != nil {
		found := false
		rerr := db.write(ctx, func(tx *Tx) error {
			var err error
			found, err = e.replay(tx)
			return err
		})
		if rerr == nil && found {
			return nil, true, nil
		}
		return nil, false, errors.Join(err, rerr)
	}
	if err != nil {
		return nil, false, err
	}
	if replayed {
		return nil, true, nil
	}
	return queued, false, nil
}
