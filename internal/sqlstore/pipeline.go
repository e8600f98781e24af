package sqlstore

// Pipelines (migrations/00088_pipelines.sql). The chain is driven from
// stored state: the transaction that settles a pipeline step's develop
// (Finish, Fail, Rescue, CancelQueued) also advances its asset, through
// advancePipelineTx. A landed step queues the next step's develop on the
// hold the run took for it; a failed or cancelled one releases the holds of
// the asset's later steps. The job's conditional transition makes that
// happen exactly once, whichever worker, instance or restart settles it.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/pipeline"
	"studio/internal/ts"
)

// OnChained sets what is told, after commit, of each develop a pipeline
// queued because the step before it landed (the socket, the workers).
func (db *DB) OnChained(fn func(context.Context, job.Job)) { db.chained = fn }

// announceChained tells the listener of develops queued in a committed
// transaction.
func (db *DB) announceChained(ctx context.Context, jobs []job.Job) {
	if db.chained == nil {
		return
	}
	for _, j := range jobs {
		db.chained(context.WithoutCancel(ctx), j)
	}
}

const presetCols = `id, organization_id, name, steps, created_by_user_id, created_at, updated_at`

func scanPreset(row interface{ Scan(...any) error }) (pipeline.Preset, error) {
	var p pipeline.Preset
	var steps string
	var by sql.NullString
	var created, updated int64
	if err := row.Scan(&p.ID, &p.HouseID, &p.Name, &steps, &by, &created, &updated); err != nil {
		return pipeline.Preset{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(steps), &p.Steps); err != nil {
		return pipeline.Preset{}, fmt.Errorf("preset %s steps: %w", p.ID, err)
	}
	if by.Valid {
		p.CreatedByUserID = &by.String
	}
	p.CreatedAt, p.UpdatedAt = ts.Milli(created), ts.Milli(updated)
	return p, nil
}

// PipelinePresets lists the house's presets, newest first.
func (db *DB) PipelinePresets(ctx context.Context, house string) ([]pipeline.Preset, error) {
	rows, err := db.read().Query(ctx, `SELECT `+presetCols+` FROM pipeline_presets WHERE organization_id = ?
		ORDER BY created_at DESC, id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []pipeline.Preset{}
	for rows.Next() {
		p, err := scanPreset(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PipelinePreset returns one preset of the house.
func (db *DB) PipelinePreset(ctx context.Context, house, id string) (pipeline.Preset, error) {
	return scanPreset(db.read().QueryRow(ctx, `SELECT `+presetCols+` FROM pipeline_presets WHERE organization_id = ? AND id = ?`, house, id))
}

// InsertPipelinePreset writes a preset; NAME_TAKEN when the house has one
// of that name.
func (db *DB) InsertPipelinePreset(ctx context.Context, p pipeline.Preset) error {
	steps, err := json.Marshal(p.Steps)
	if err != nil {
		return err
	}
	var by sql.NullString
	if p.CreatedByUserID != nil {
		by = nullStr(*p.CreatedByUserID)
	}
	_, err = db.writer().Exec(ctx, `INSERT INTO pipeline_presets (id, organization_id, name, steps, created_by_user_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, p.ID, p.HouseID, p.Name, string(steps), by, p.CreatedAt.UnixMilli(), p.UpdatedAt.UnixMilli())
	if errors.Is(err, errUnique) {
		return pipeline.ErrNameTaken
	}
	return err
}

// ReplacePipelinePreset replaces a preset's name and steps whole.
func (db *DB) ReplacePipelinePreset(ctx context.Context, p pipeline.Preset) (pipeline.Preset, error) {
	steps, err := json.Marshal(p.Steps)
	if err != nil {
		return pipeline.Preset{}, err
	}
	var out pipeline.Preset
	err = db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE pipeline_presets SET name = ?, steps = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
			p.Name, string(steps), p.UpdatedAt.UnixMilli(), p.HouseID, p.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return errs.NotFound
		}
		out, err = scanPreset(tx.QueryRow(ctx, `SELECT `+presetCols+` FROM pipeline_presets WHERE organization_id = ? AND id = ?`, p.HouseID, p.ID))
		return err
	})
	if errors.Is(err, errUnique) {
		return pipeline.Preset{}, pipeline.ErrNameTaken
	}
	return out, err
}

// DeletePipelinePreset removes a preset of the house.
func (db *DB) DeletePipelinePreset(ctx context.Context, house, id string) error {
	res, err := db.writer().Exec(ctx, `DELETE FROM pipeline_presets WHERE organization_id = ? AND id = ?`, house, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return err
		}
		return errs.NotFound
	}
	return nil
}

const runCols = `id, organization_id, user_id, preset_id, name, steps, asset_ids, idempotency_key, fingerprint, cost, cancelled_at, created_at`

func scanRun(row interface{ Scan(...any) error }) (pipeline.Record, error) {
	var r pipeline.Record
	var user, preset, key sql.NullString
	var steps, assets string
	var cancelled sql.NullInt64
	var created int64
	if err := row.Scan(&r.ID, &r.HouseID, &user, &preset, &r.Name, &steps, &assets, &key, &r.Fingerprint, &r.Cost, &cancelled, &created); err != nil {
		return pipeline.Record{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(steps), &r.Steps); err != nil {
		return pipeline.Record{}, fmt.Errorf("pipeline run %s steps: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(assets), &r.AssetIDs); err != nil {
		return pipeline.Record{}, fmt.Errorf("pipeline run %s assets: %w", r.ID, err)
	}
	r.UserID, r.PresetID, r.IdempotencyKey = user.String, preset.String, key.String
	r.CancelledAt, r.CreatedAt = tsPtr(cancelled), ts.Milli(created)
	return r, nil
}

// runTx reads a run of the house with its frames, each with its hold's
// state and its develop's status and result.
func (db *DB) runTx(ctx context.Context, tx *Tx, house, id string) (pipeline.Record, error) {
	r, err := scanRun(tx.QueryRow(ctx, `SELECT `+runCols+` FROM pipeline_runs WHERE organization_id = ? AND id = ?`, house, id))
	if err != nil {
		return pipeline.Record{}, err
	}
	rows, err := tx.Query(ctx, `SELECT f.asset_index, f.step, f.source_asset_id, f.job_id, f.hold_id, f.tokens, f.state,
			h.state, j.status, j.result_asset_id, j.error
		FROM pipeline_frames f
		JOIN ledger_holds h ON h.organization_id = f.organization_id AND h.id = f.hold_id
		LEFT JOIN jobs j ON j.organization_id = f.organization_id AND j.id = f.job_id
		WHERE f.organization_id = ? AND f.run_id = ? ORDER BY f.asset_index, f.step`, house, id)
	if err != nil {
		return pipeline.Record{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var f pipeline.Frame
		var status, result, errText sql.NullString
		if err := rows.Scan(&f.AssetIndex, &f.Step, &f.SourceAssetID, &f.JobID, &f.HoldID, &f.Tokens, &f.State,
			&f.HoldState, &status, &result, &errText); err != nil {
			return pipeline.Record{}, err
		}
		f.JobStatus, f.ResultAssetID = job.Status(status.String), result.String
		f.ResultURL = job.ResultURL(db.publicURL, f.ResultAssetID)
		if errText.Valid {
			f.Error = &errText.String
		}
		r.Frames = append(r.Frames, f)
	}
	return r, rows.Err()
}

// PipelineRun returns one run of the house with its frames.
func (db *DB) PipelineRun(ctx context.Context, house, id string) (pipeline.Record, error) {
	var r pipeline.Record
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		var err error
		r, err = db.runTx(ctx, tx, house, id)
		return err
	})
	return r, err
}

// PipelineRunByKey returns the run a user started in the house under an
// idempotency key.
func (db *DB) PipelineRunByKey(ctx context.Context, house, user, key string) (pipeline.Record, error) {
	var r pipeline.Record
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `SELECT id FROM pipeline_runs WHERE organization_id = ? AND user_id = ? AND idempotency_key = ?`,
			house, user, key).Scan(&id); err != nil {
			return notFound(err)
		}
		var err error
		r, err = db.runTx(ctx, tx, house, id)
		return err
	})
	return r, err
}

// PipelineRuns lists the house's runs newest first, below the run before
// ("" for the newest), at most limit; NOT_FOUND when before is not a run
// of the house.
func (db *DB) PipelineRuns(ctx context.Context, house, before string, limit int) ([]pipeline.Record, error) {
	out := []pipeline.Record{}
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		q := `SELECT id FROM pipeline_runs WHERE organization_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`
		args := []any{house, limit}
		if before != "" {
			var at int64
			if err := tx.QueryRow(ctx, `SELECT created_at FROM pipeline_runs WHERE organization_id = ? AND id = ?`, house, before).Scan(&at); err != nil {
				return notFound(err)
			}
			q = `SELECT id FROM pipeline_runs WHERE organization_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
				ORDER BY created_at DESC, id DESC LIMIT ?`
			args = []any{house, at, at, before, limit}
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			r, err := db.runTx(ctx, tx, house, id)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// StartPipeline holds every frame of the run and writes the run, its
// frames and the first step's develops with their events, in one
// transaction (enqueue): all or nothing. A run the user already started
// under the key is returned instead, replayed; a concurrent retry that
// loses the race on the key's index reads the winner's run. The first
// develops get their event seqs in place.
func (db *DB) StartPipeline(ctx context.Context, rec pipeline.Record, first []job.Job) (pipeline.Record, bool, error) {
	steps, err := json.Marshal(rec.Steps)
	if err != nil {
		return pipeline.Record{}, false, err
	}
	assets, err := json.Marshal(rec.AssetIDs)
	if err != nil {
		return pipeline.Record{}, false, err
	}
	// Every frame's develop is held now, the later steps' before they exist.
	held := make([]job.Job, len(rec.Frames))
	for i, f := range rec.Frames {
		held[i] = job.Job{ID: f.JobID, HouseID: rec.HouseID, UserID: rec.UserID, Tool: rec.Steps[f.Step].Tool, Cost: f.Tokens, CreatedAt: rec.CreatedAt}
	}
	var out pipeline.Record
	e := enqueue{house: rec.HouseID, spend: spend{Queue: first, Hold: held},
		record: func(tx *Tx, done enqueued) error {
			if _, err := tx.Exec(ctx, `INSERT INTO pipeline_runs (id, organization_id, user_id, preset_id, name, steps, asset_ids,
				idempotency_key, fingerprint, cost, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				rec.ID, rec.HouseID, nullStr(rec.UserID), nullStr(rec.PresetID), rec.Name, string(steps), string(assets),
				nullStr(rec.IdempotencyKey), rec.Fingerprint, rec.Cost, rec.CreatedAt.UnixMilli()); err != nil {
				return err
			}
			for _, f := range rec.Frames {
				if _, err := tx.Exec(ctx, `INSERT INTO pipeline_frames (organization_id, run_id, asset_index, step, source_asset_id,
					job_id, hold_id, tokens, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					rec.HouseID, rec.ID, f.AssetIndex, f.Step, f.SourceAssetID, f.JobID, done.Holds[f.JobID], f.Tokens, f.State); err != nil {
					return err
				}
			}
			var err error
			out, err = db.runTx(ctx, tx, rec.HouseID, rec.ID)
			return err
		}}
	if rec.IdempotencyKey != "" {
		e.replay = func(tx *Tx) (bool, error) {
			var id string
			err := tx.QueryRow(ctx, `SELECT id FROM pipeline_runs WHERE organization_id = ? AND user_id = ? AND idempotency_key = ?`,
				rec.HouseID, rec.UserID, rec.IdempotencyKey).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			out, err = db.runTx(ctx, tx, rec.HouseID, id)
			return err == nil, err
		}
	}
	queued, replayed, err := db.enqueue(ctx, e)
	if err != nil {
		return pipeline.Record{}, false, err
	}
	copy(first, queued)
	return out, replayed, nil
}

// CancelPipeline stops a run in one transaction: it stamps cancelled_at
// (the first stamp is kept), releases the frames still waiting, and
// cancels the queued develops and releases their holds; rendering ones
// finish and cost, and nothing is queued after them.
func (db *DB) CancelPipeline(ctx context.Context, house, id string) (pipeline.Record, []job.Job, error) {
	var out pipeline.Record
	var cancelled []job.Job
	err := db.write(ctx, func(tx *Tx) error {
		cancelled = cancelled[:0]
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		rec, err := db.runTx(ctx, tx, house, id)
		if err != nil {
			return err
		}
		now := db.nowMs()
		if _, err := tx.Exec(ctx, `UPDATE pipeline_runs SET cancelled_at = COALESCE(cancelled_at, ?) WHERE organization_id = ? AND id = ?`,
			now, house, id); err != nil {
			return err
		}
		for _, f := range rec.Frames {
			switch {
			case f.State == pipeline.Waiting:
				if err := db.dropFrameTx(ctx, tx, house, id, f); err != nil {
					return err
				}
			case f.State == pipeline.Started && f.JobStatus == job.Queued:
				j, ok, err := transition(ctx, tx, house, f.JobID, job.Queued, "", `status = 'cancelled', finished_at = ?`, now)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				if err := db.resolveJobHold(ctx, tx, house, f.JobID, ledger.Voided); err != nil {
					return err
				}
				cancelled = append(cancelled, j)
			}
		}
		out, err = db.runTx(ctx, tx, house, id)
		return err
	})
	return out, cancelled, err
}

// dropFrameTx releases a waiting frame's hold and marks it dropped.
func (db *DB) dropFrameTx(ctx context.Context, tx *Tx, house, run string, f pipeline.Frame) error {
	res, err := tx.Exec(ctx, `UPDATE pipeline_frames SET state = 'dropped'
		WHERE organization_id = ? AND run_id = ? AND asset_index = ? AND step = ? AND state = 'waiting'`, house, run, f.AssetIndex, f.Step)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	return db.voidHoldTx(ctx, tx, house, f.HoldID)
}

// advancePipelineTx moves a pipeline on after one of its develops settled
// in tx (j is the develop as it now stands), as pipeline.After decides: it
// releases the frames dropped, and queues the frame started on the hold
// taken for it and returns that develop. A develop of no pipeline changes
// nothing.
func (db *DB) advancePipelineTx(ctx context.Context, tx *Tx, j job.Job) ([]job.Job, error) {
	var run string
	var index, step int
	err := tx.QueryRow(ctx, `SELECT run_id, asset_index, step FROM pipeline_frames WHERE organization_id = ? AND job_id = ?`,
		j.HouseID, j.ID).Scan(&run, &index, &step)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := db.runTx(ctx, tx, j.HouseID, run)
	if err != nil {
		return nil, err
	}
	adv, err := pipeline.After(rec, index, step, j.Status)
	if err != nil {
		return nil, err
	}
	for _, f := range adv.Drop {
		if err := db.dropFrameTx(ctx, tx, j.HouseID, run, f); err != nil {
			return nil, err
		}
	}
	if adv.Start == nil {
		return nil, nil
	}
	next := *adv.Start
	nj := pipeline.NextJob(rec, next, j.ResultAssetID, ts.Of(db.now()))
	done, err := db.enqueueTx(ctx, tx, j.HouseID, spend{Queue: []job.Job{nj}, Held: map[string]string{nj.ID: next.HoldID}})
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE pipeline_frames SET state = 'started'
		WHERE organization_id = ? AND run_id = ? AND asset_index = ? AND step = ? AND state = 'waiting'`, j.HouseID, run, index, next.Step); err != nil {
		return nil, err
	}
	return done.Jobs, nil
}
