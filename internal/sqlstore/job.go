package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/ts"
	"studio/internal/webhook"
)

// nextSeq takes the house's next event sequence number. The counter row is
// updated inside the caller's transaction, so sequences commit in order:
// a reader that sees seq N committed has also seen every seq below it.
func nextSeq(ctx context.Context, tx *Tx, house string) (int64, error) {
	var seq int64
	err := tx.QueryRow(ctx, `UPDATE organizations SET event_seq = event_seq + 1 WHERE id = ? RETURNING event_seq`, house).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("next event seq: %w", notFound(err))
	}
	tx.locked = house // the update holds the row lock lockHouse takes
	tx.tookSeq(house, seq)
	return seq, nil
}

const jobCols = `id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
	idempotency_key, fingerprint, cost, result_asset_id, error, error_code, event_seq, created_at, started_at, finished_at`

func scanJob(base string, row interface{ Scan(...any) error }) (job.Job, error) {
	var j job.Job
	var params, inputs string
	var user, brand, retry, key, result, errText, errCode sql.NullString
	var created int64
	var started, finished sql.NullInt64
	err := row.Scan(&j.ID, &j.HouseID, &user, &j.Tool, &j.Tier, &j.Status, &params, &inputs, &brand, &retry,
		&key, &j.Fingerprint, &j.Cost, &result, &errText, &errCode, &j.EventSeq, &created, &started, &finished)
	if err != nil {
		return job.Job{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(params), &j.Params); err != nil {
		return job.Job{}, fmt.Errorf("job %s params: %w", j.ID, err)
	}
	if err := json.Unmarshal([]byte(inputs), &j.Inputs); err != nil {
		return job.Job{}, fmt.Errorf("job %s inputs: %w", j.ID, err)
	}
	j.UserID = user.String // "" once the user erased their account
	j.BrandID, j.RetryOfJobID, j.IdempotencyKey, j.ResultAssetID = brand.String, retry.String, key.String, result.String
	j.ResultURL = job.ResultURL(base, j.ResultAssetID)
	if errText.Valid {
		j.Error = &errText.String
	}
	if errCode.Valid {
		j.ErrorCode = &errCode.String
	}
	j.CreatedAt = ts.Milli(created)
	j.StartedAt, j.FinishedAt = tsPtr(started), tsPtr(finished)
	if j.Status == job.Done {
		j.Settled = j.Cost
	}
	return j, nil
}

func insertJob(ctx context.Context, tx *Tx, j job.Job, holdID string) error {
	params, err := json.Marshal(j.Params)
	if err != nil {
		return err
	}
	inputs, err := json.Marshal(j.Inputs)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs, brand_id,
		retry_of_job_id, idempotency_key, fingerprint, cost, hold_id, event_seq, created_at)
		VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.HouseID, nullStr(j.UserID), j.Tool, j.Tier, string(params), string(inputs), nullStr(j.BrandID),
		nullStr(j.RetryOfJobID), nullStr(j.IdempotencyKey), j.Fingerprint, j.Cost, nullStr(holdID), j.EventSeq, j.CreatedAt.UnixMilli())
	return err
}

// Job returns one job of the house.
func (db *DB) Job(ctx context.Context, house, id string) (job.Job, error) {
	return scanJob(db.publicURL, db.read().QueryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND id = ?`, house, id))
}

func jobTx(ctx context.Context, tx *Tx, house, id string) (job.Job, error) {
	return scanJob(tx.db.publicURL, tx.QueryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND id = ?`, house, id))
}

// JobByKey returns the job a user submitted in the house with an
// idempotency key.
func (db *DB) JobByKey(ctx context.Context, house, user, key string) (job.Job, error) {
	return jobByKeyTx(ctx, db.read(), house, user, key)
}

// JobByResult returns the done job of the house whose result is the asset
// (the index jobs_house_result).
func (db *DB) JobByResult(ctx context.Context, house, assetID string) (job.Job, error) {
	return scanJob(db.publicURL, db.read().QueryRow(ctx, `SELECT `+jobCols+` FROM jobs
		WHERE organization_id = ? AND result_asset_id = ? AND result_asset_id IS NOT NULL`, house, assetID))
}

// JobsSince returns the house's jobs whose latest change is after seq,
// ascending by event seq: the replay a socket client makes after a reconnect.
func (db *DB) JobsSince(ctx context.Context, house string, since int64, limit int) ([]job.Job, error) {
	return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND event_seq > ?
		ORDER BY event_seq LIMIT ?`, house, since, limit)
}

// JobsCreatedSince returns the house's jobs created at or after the instant,
// oldest first: the material runs are derived from.
func (db *DB) JobsCreatedSince(ctx context.Context, house string, after time.Time) ([]job.Job, error) {
	return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND created_at >= ?
		ORDER BY created_at, id`, house, after.UnixMilli())
}

// RecentJobs returns the house's newest jobs, newest first.
func (db *DB) RecentJobs(ctx context.Context, house string, status job.Status, limit int) ([]job.Job, error) {
	if status != "" {
		return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND status = ?
			ORDER BY created_at DESC, id DESC LIMIT ?`, house, status, limit)
	}
	return db.jobs(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, house, limit)
}

func (db *DB) jobs(ctx context.Context, query string, args ...any) ([]job.Job, error) {
	rows, err := db.read().Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []job.Job{}
	for rows.Next() {
		j, err := scanJob(db.publicURL, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// Claim takes the oldest queued job for worker with a lease until the
// given instant, marks it running and records the event. ok is false when
// the queue is empty. On PostgreSQL it is one statement, in a transaction
// that sends its event: concurrent claimers skip each other's locked rows.
// On SQLite the single writer serialises them: the oldest queued job on
// the jobs_queued index, the house's event seq, then the job, returned by
// its update.
func (db *DB) Claim(ctx context.Context, worker string, leaseUntil time.Time) (j job.Job, ok bool, err error) {
	now := db.nowMs()
	if db.engine == Postgres {
		// In a transaction: the claim's event leaves with its commit.
		err = db.write(ctx, func(tx *Tx) error {
			j, err = scanJob(db.publicURL, tx.QueryRow(ctx, qClaimPostgres, worker, leaseUntil.UnixMilli(), now))
			if errors.Is(err, errs.NotFound) {
				return nil
			}
			if err == nil {
				ok = true
				tx.tookSeq(j.HouseID, j.EventSeq)
			}
			return err
		})
		return j, ok && err == nil, err
	}
	err = db.write(ctx, func(tx *Tx) error {
		var id, house string
		if err := tx.QueryRow(ctx, `SELECT id, organization_id FROM jobs INDEXED BY jobs_queued WHERE status = 'queued'
			ORDER BY created_at, id LIMIT 1`).Scan(&id, &house); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		seq, err := nextSeq(ctx, tx, house)
		if err != nil {
			return err
		}
		j, err = scanJob(db.publicURL, tx.QueryRow(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1,
			lease_owner = ?, lease_until = ?, started_at = COALESCE(started_at, ?), event_seq = ?
			WHERE organization_id = ? AND id = ? AND status = 'queued' RETURNING `+jobCols,
			worker, leaseUntil.UnixMilli(), now, seq, house, id))
		ok = err == nil
		return err
	})
	return j, ok, err
}

// qClaimPostgres takes the oldest queued job no other claimer holds,
// bumps its house's event seq and marks it running, in one statement.
var qClaimPostgres = `WITH c AS (
		SELECT id, organization_id FROM jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
	), s AS (
		UPDATE organizations o SET event_seq = o.event_seq + 1 FROM c WHERE o.id = c.organization_id
		RETURNING o.event_seq, c.id, c.organization_id
	)
	UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, lease_owner = ?, lease_until = ?,
		started_at = COALESCE(j.started_at, ?), event_seq = s.event_seq
	FROM s WHERE j.organization_id = s.organization_id AND j.id = s.id
	RETURNING ` + qualified("j", jobCols)

// qualified prefixes each of a list of columns with a table's alias.
func qualified(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// Heartbeat extends a running job's lease; it reports false when the
// worker no longer holds the job (rescued, cancelled or finished).
func (db *DB) Heartbeat(ctx context.Context, house, id, worker string, leaseUntil time.Time) (bool, error) {
	res, err := db.writer().Exec(ctx, `UPDATE jobs SET lease_until = ?
		WHERE organization_id = ? AND id = ? AND status = 'running' AND lease_owner = ?`, leaseUntil.UnixMilli(), house, id, worker)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SubmitJob writes the hold, the job row and its first event in one
// transaction (enqueue). A job the user already submitted in the same house
// under the same idempotency key is returned instead, with nothing written;
// the same key in another house is another job. Concurrent retries
// collapse: on PostgreSQL the loser waits on the house row the ledger
// locks, then trips the (house, user, key) unique index, rolls back its
// hold and reads the winner's job.
func (db *DB) SubmitJob(ctx context.Context, j job.Job) (job.Job, bool, error) {
	var prior job.Job
	e := enqueue{house: j.HouseID, spend: spend{Queue: []job.Job{j}, Hold: []job.Job{j}}}
	if j.IdempotencyKey != "" {
		e.replay = func(tx *Tx) (bool, error) {
			var err error
			prior, err = jobByKeyTx(ctx, tx, j.HouseID, j.UserID, j.IdempotencyKey)
			if errors.Is(err, errs.NotFound) {
				return false, nil
			}
			return err == nil, err
		}
	}
	queued, replayed, err := db.enqueue(ctx, e)
	switch {
	case err != nil:
		return job.Job{}, false, err
	case replayed:
		return prior, true, nil
	}
	return queued[0], false, nil
}

// qJobByKey reads the job a user submitted in a house under an idempotency
// key (house, user, key): the unique index jobs_idempotency.
const qJobByKey = `SELECT ` + jobCols + ` FROM jobs WHERE organization_id = ? AND user_id = ? AND idempotency_key = ?`

func jobByKeyTx(ctx context.Context, tx *Tx, house, user, key string) (job.Job, error) {
	return scanJob(tx.db.publicURL, tx.QueryRow(ctx, qJobByKey, house, user, key))
}

// transition moves a job of the house to a new status with its next event,
// provided it is still in the expected status (and held by worker, when
// given); it reports false when the job had moved on.
func transition(ctx context.Context, tx *Tx, house, id string, from job.Status, worker string, set string, args ...any) (job.Job, bool, error) {
	seq, err := nextSeq(ctx, tx, house)
	if err != nil {
		return job.Job{}, false, err
	}
	q := `UPDATE jobs SET ` + set + `, event_seq = ? WHERE organization_id = ? AND id = ? AND status = ?`
	args = append(args, seq, house, id, from)
	if worker != "" {
		q += ` AND lease_owner = ?`
		args = append(args, worker)
	}
	res, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return job.Job{}, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return job.Job{}, false, err
	}
	j, err := jobTx(ctx, tx, house, id)
	return j, err == nil, err
}

// CancelQueued cancels those of the jobs still queued and voids their
// holds, in one transaction, and returns the jobs it cancelled.
func (db *DB) CancelQueued(ctx context.Context, house string, ids []string) ([]job.Job, error) {
	var out []job.Job
	err := db.write(ctx, func(tx *Tx) error {
		out = out[:0]
		now := db.nowMs()
		// A cancelled step of a pipeline releases the asset's later steps.
		for _, id := range ids {
			j, ok, err := transition(ctx, tx, house, id, job.Queued, "", `status = 'cancelled', finished_at = ?`, now)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := db.resolveJobHold(ctx, tx, house, id, ledger.Voided); err != nil {
				return err
			}
			if _, err := db.advancePipelineTx(ctx, tx, j); err != nil {
				return err
			}
			out = append(out, j)
		}
		return nil
	})
	return out, err
}

// resolveJobHold posts or voids the hold of a job. A job without a hold
// (none is taken for free work) has nothing to resolve.
func (db *DB) resolveJobHold(ctx context.Context, tx *Tx, house, jobID string, to ledger.HoldState) error {
	h, err := db.jobHoldTx(ctx, tx, house, jobID)
	if errors.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if to == ledger.Posted {
		return db.postHoldTx(ctx, tx, house, h.ID)
	}
	return db.voidHoldTx(ctx, tx, house, h.ID)
}

// InputKeys returns the blob key of each input asset of the house, in
// order. Deleted assets count: their bytes remain.
func (db *DB) InputKeys(ctx context.Context, house string, inputs []job.Input) ([]string, error) {
	keys := make([]string, len(inputs))
	for i, in := range inputs {
		if err := db.read().QueryRow(ctx, `SELECT blob_key FROM assets WHERE organization_id = ? AND id = ?`,
			house, in.AssetID).Scan(&keys[i]); err != nil {
			return nil, fmt.Errorf("input %s %s: %w", in.Role, in.AssetID, notFound(err))
		}
	}
	return keys, nil
}

// Finish stores the developed frame as an asset of the house (named as
// the frame says, tool set, root folder), posts the job's hold, marks the
// job done, takes its event and queues develop.done for the house's
// webhook endpoints, in one transaction. job.ErrLeaseLost when
// the worker no longer holds it.
func (db *DB) Finish(ctx context.Context, j job.Job, worker string, f job.Frame) (job.Job, error) {
	var out job.Job
	var chained []job.Job
	err := db.write(ctx, func(tx *Tx) error {
		tool := j.Tool
		a := asset.Asset{ID: f.AssetID, Name: f.Name, Mime: f.Mime,
			Width: f.Width, Height: f.Height, Tool: &tool, CreatedAt: ts.Of(db.now())}
		if err := db.insertAssetTx(ctx, tx, j.HouseID, j.UserID, a, asset.File{BlobKey: f.BlobKey, Size: f.Size, ETag: f.SHA256}); err != nil {
			return err
		}
		done, ok, err := transition(ctx, tx, j.HouseID, j.ID, job.Running, worker,
			`status = 'done', result_asset_id = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL`, f.AssetID, db.nowMs())
		if err != nil {
			return err
		}
		if !ok {
			return job.ErrLeaseLost
		}
		if err := db.resolveJobHold(ctx, tx, j.HouseID, j.ID, ledger.Posted); err != nil {
			return err
		}
		if chained, err = db.advancePipelineTx(ctx, tx, done); err != nil {
			return err
		}
		if judge.Judges(f.Mime) {
			if err := enqueueJudging(ctx, tx, j.HouseID, j.ID, db.nowMs()); err != nil {
				return err
			}
		}
		out = done
		return db.enqueueWebhooksTx(ctx, tx, j.HouseID, webhook.DevelopDone, done)
	})
	if err == nil {
		db.announceChained(ctx, chained)
	}
	return out, err
}

// Fail marks a running job failed with its code and sentence and voids
// its hold, in one transaction.
func (db *DB) Fail(ctx context.Context, j job.Job, worker string, f job.Failure) (job.Job, error) {
	var out job.Job
	err := db.write(ctx, func(tx *Tx) error {
		done, ok, err := transition(ctx, tx, j.HouseID, j.ID, job.Running, worker,
			`status = 'failed', error = ?, error_code = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL`,
			f.Reason, nullStr(f.Code), db.nowMs())
		if err != nil {
			return err
		}
		if !ok {
			return job.ErrLeaseLost
		}
		out = done
		if err := db.resolveJobHold(ctx, tx, j.HouseID, j.ID, ledger.Voided); err != nil {
			return err
		}
		_, err = db.advancePipelineTx(ctx, tx, done)
		return err
	})
	return out, err
}

// Release hands a running job back to the queue (a worker shutting down):
// the try does not count, and its render deadline starts again at its
// next claim (the render was stopped and its provider told to cancel).
func (db *DB) Release(ctx context.Context, j job.Job, worker string) (job.Job, error) {
	var out job.Job
	err := db.write(ctx, func(tx *Tx) error {
		done, ok, err := transition(ctx, tx, j.HouseID, j.ID, job.Running, worker,
			`status = 'queued', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1, started_at = NULL`)
		if err != nil {
			return err
		}
		if !ok {
			return job.ErrLeaseLost
		}
		out = done
		return nil
	})
	return out, err
}

// Rescue settles running jobs whose lease ended before now (their worker
// died): one past its render deadline (counted from its first claim, by
// deadline) fails with PROVIDER_TIMEOUT, one that already had maxAttempts
// tries fails too, and any other returns to the queue. A failed one's
// hold is voided: a restart never resubmits a develop past its deadline.
func (db *DB) Rescue(ctx context.Context, now time.Time, maxAttempts int, deadline job.Deadlines) ([]job.Job, error) {
	type lapsed struct {
		id, house, tool string
		attempts        int
		started         sql.NullInt64
	}
	var out []job.Job
	err := db.write(ctx, func(tx *Tx) error {
		out = out[:0]
		rows, err := tx.Query(ctx, `SELECT id, organization_id, tool, attempts, started_at FROM jobs
			WHERE status = 'running' AND lease_until < ? ORDER BY lease_until LIMIT 100`, now.UnixMilli())
		if err != nil {
			return err
		}
		var found []lapsed
		for rows.Next() {
			var l lapsed
			if err := rows.Scan(&l.id, &l.house, &l.tool, &l.attempts, &l.started); err != nil {
				rows.Close()
				return err
			}
			found = append(found, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, l := range found {
			var f job.Failure
			var limit time.Duration
			if deadline != nil {
				limit = deadline(l.tool)
			}
			switch {
			case l.started.Valid && limit > 0 && !now.Before(time.UnixMilli(l.started.Int64).Add(limit)):
				f = job.TimedOut(limit)
			case l.attempts >= maxAttempts:
				f = job.Failure{Reason: "The develop stopped responding " + strconv.Itoa(l.attempts) + " times. Nothing was charged."}
			default:
				j, ok, err := transition(ctx, tx, l.house, l.id, job.Running, "",
					`status = 'queued', lease_owner = NULL, lease_until = NULL`)
				if err != nil {
					return err
				}
				if ok {
					out = append(out, j)
				}
				continue
			}
			j, ok, err := transition(ctx, tx, l.house, l.id, job.Running, "",
				`status = 'failed', error = ?, error_code = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL`,
				f.Reason, nullStr(f.Code), now.UnixMilli())
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := db.resolveJobHold(ctx, tx, l.house, l.id, ledger.Voided); err != nil {
				return err
			}
			if _, err := db.advancePipelineTx(ctx, tx, j); err != nil {
				return err
			}
			out = append(out, j)
		}
		return nil
	})
	return out, err
}

// JobBySeq returns the job whose latest change took the house's event seq.
func (db *DB) JobBySeq(ctx context.Context, house string, seq int64) (job.Job, error) {
	return scanJob(db.publicURL, db.read().QueryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE organization_id = ? AND event_seq = ?`, house, seq))
}

// PurgeInputs removes the rows of assets a refused submit uploaded and
// returns their blob keys, for the caller to delete. An asset a job of the
// house already names is kept: a concurrent submit of the same bytes may
// have reused it (a retry under the same idempotency key does), and jobs
// are written under the house's lock, which this takes too. Only jobs
// written since the asset (less a minute for clocks of other instances)
// are read, on the house's created index.
func (db *DB) PurgeInputs(ctx context.Context, house string, ids []string) ([]string, error) {
	var keys []string
	err := db.write(ctx, func(tx *Tx) error {
		keys = keys[:0]
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		for _, id := range ids {
			var key string
			var created int64
			err := tx.QueryRow(ctx, `SELECT blob_key, created_at FROM assets WHERE organization_id = ? AND id = ?`, house, id).Scan(&key, &created)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			var used int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE organization_id = ? AND created_at >= ? AND inputs LIKE ?`,
				house, created-60_000, `%"`+id+`"%`).Scan(&used); err != nil {
				return err
			}
			if used > 0 {
				continue
			}
			if _, err := tx.Exec(ctx, `DELETE FROM asset_tags WHERE organization_id = ? AND asset_id = ?`, house, id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM assets WHERE organization_id = ? AND id = ?`, house, id); err != nil {
				return err
			}
			keys = append(keys, key)
		}
		return nil
	})
	return keys, err
}
