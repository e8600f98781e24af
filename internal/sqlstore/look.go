package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/look"
	"studio/internal/ts"
)

// Looks (migrations/00006_looks.sql): the look rows, the jobs each look
// queued, the standing preset and the posture prefs of each house.

const lookCols = `id, organization_id, created_by_user_id, brand_id, batch_id, name, model_asset_id, items, background,
	aesthetic, status, look_base_asset_id, look_base_job_id, variation_keys, created_at, updated_at, look_base_parent_asset_id`

func scanLook(row interface{ Scan(...any) error }) (look.Look, error) {
	var l look.Look
	var user, brand, batch, baseAsset, baseJob, baseParent sql.NullString
	var items, bg, keys string
	var created, updated int64
	if err := row.Scan(&l.ID, &l.OrganizationID, &user, &brand, &batch, &l.Name, &l.ModelAssetID, &items, &bg,
		&l.Preset.Aesthetic, &l.Status, &baseAsset, &baseJob, &keys, &created, &updated, &baseParent); err != nil {
		return look.Look{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(items), &l.Items); err != nil {
		return look.Look{}, fmt.Errorf("look %s items: %w", l.ID, err)
	}
	if err := json.Unmarshal([]byte(bg), &l.Preset.Background); err != nil {
		return look.Look{}, fmt.Errorf("look %s background: %w", l.ID, err)
	}
	if err := json.Unmarshal([]byte(keys), &l.Variations); err != nil {
		return look.Look{}, fmt.Errorf("look %s variation keys: %w", l.ID, err)
	}
	if l.Variations == nil {
		l.Variations = []string{}
	}
	l.CreatedByUserID, l.BrandID, l.BatchID = strPtr(user), strPtr(brand), strPtr(batch)
	l.LookBaseAssetID, l.LookBaseJobID, l.LookBaseParentAssetID = strPtr(baseAsset), strPtr(baseJob), strPtr(baseParent)
	if l.Preset.Background.Kind == "asset" {
		id := l.Preset.Background.AssetID
		l.BackgroundAssetID = &id
	}
	l.CreatedAt, l.UpdatedAt = ts.Milli(created), ts.Milli(updated)
	return l, nil
}

// Pieces returns the house's live assets among ids, by id, with their
// name and kind.
func (db *DB) Pieces(ctx context.Context, house string, ids []string) (map[string]look.Piece, error) {
	out := map[string]look.Piece{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	found, err := queryAssets(ctx, db.read(), `a.organization_id = ? AND a.deleted_at IS NULL AND a.id IN `+in,
		append([]any{house}, args...)...)
	if err != nil {
		return nil, err
	}
	for _, a := range found {
		p := look.Piece{ID: a.ID, Name: a.Name}
		if a.Kind != nil {
			p.Kind = string(*a.Kind)
		}
		out[a.ID] = p
	}
	return out, nil
}

// BackgroundPieces lists the house's live assets filed as background,
// newest first.
func (db *DB) BackgroundPieces(ctx context.Context, house string) ([]look.Piece, error) {
	found, err := queryAssets(ctx, db.read(), `a.organization_id = ? AND a.deleted_at IS NULL AND EXISTS (
		SELECT 1 FROM asset_tags k WHERE k.organization_id = a.organization_id AND k.asset_id = a.id AND k.tag = 'kind:background')`, house)
	if err != nil {
		return nil, err
	}
	out := make([]look.Piece, len(found))
	for i, a := range found {
		out[i] = look.Piece{ID: a.ID, Name: a.Name, Kind: "background"}
	}
	return out, nil
}

// InsertLooks writes new looks, all of them or none.
func (db *DB) InsertLooks(ctx context.Context, looks []look.Look) error {
	return db.write(ctx, func(tx *Tx) error {
		for _, l := range looks {
			if err := insertLookTx(ctx, tx, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertLookTx writes a new look and its search entry.
func insertLookTx(ctx context.Context, tx *Tx, l look.Look) error {
	items, bg, keys, err := lookJSON(l)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO looks (`+lookCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.OrganizationID, nullPtr(l.CreatedByUserID), nullPtr(l.BrandID), nullPtr(l.BatchID), l.Name, l.ModelAssetID,
		items, bg, l.Preset.Aesthetic, l.Status, nullPtr(l.LookBaseAssetID), nullPtr(l.LookBaseJobID), keys,
		l.CreatedAt.UnixMilli(), l.UpdatedAt.UnixMilli(), nullPtr(l.LookBaseParentAssetID)); err != nil {
		return err
	}
	return indexLook(ctx, tx, l.OrganizationID, l)
}

func lookJSON(l look.Look) (items, bg, keys string, err error) {
	vs := l.Variations
	if vs == nil {
		vs = []string{}
	}
	var b [3][]byte
	for i, v := range []any{l.Items, l.Preset.Background, vs} {
		if b[i], err = json.Marshal(v); err != nil {
			return "", "", "", err
		}
	}
	return string(b[0]), string(b[1]), string(b[2]), nil
}

// Looks returns the house's newest looks.
func (db *DB) Looks(ctx context.Context, house string, limit int) ([]look.Look, error) {
	rows, err := db.read().Query(ctx, `SELECT `+lookCols+` FROM looks WHERE organization_id = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, house, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []look.Look{}
	for rows.Next() {
		l, err := scanLook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Look returns one look of the house.
func (db *DB) Look(ctx context.Context, house, id string) (look.Look, error) {
	return scanLook(db.read().QueryRow(ctx, `SELECT `+lookCols+` FROM looks WHERE organization_id = ? AND id = ?`, house, id))
}

// lockLookTx reads a look inside tx, locking its row on PostgreSQL so
// concurrent changes of one look take turns (SQLite's writer serialises them).
func (db *DB) lockLookTx(ctx context.Context, tx *Tx, house, id string) (look.Look, error) {
	q := `SELECT ` + lookCols + ` FROM looks WHERE organization_id = ? AND id = ?`
	if db.engine == Postgres {
		q += ` FOR UPDATE`
	}
	return scanLook(tx.QueryRow(ctx, q, house, id))
}

// lookStateTx reads whether a develop of the look is in flight and the
// frames its done jobs made.
func lookStateTx(ctx context.Context, tx *Tx, house, id string) (look.State, error) {
	st := look.State{Frames: map[string]string{}}
	rows, err := tx.Query(ctx, `SELECT j.id, j.status, j.result_asset_id FROM look_jobs lj
		JOIN jobs j ON j.organization_id = lj.organization_id AND j.id = lj.job_id
		WHERE lj.organization_id = ? AND lj.look_id = ? AND j.status IN ('queued', 'running', 'done')`, house, id)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var jobID string
		var status job.Status
		var result sql.NullString
		if err := rows.Scan(&jobID, &status, &result); err != nil {
			return st, err
		}
		if status == job.Done && result.Valid {
			st.Frames[result.String] = jobID
		} else if status != job.Done {
			st.InFlight = true
		}
	}
	return st, rows.Err()
}

// UpdateLook reads the look and its state, lets edit change the look and
// stores its status and look-base fields, in one transaction.
func (db *DB) UpdateLook(ctx context.Context, house, id string, edit func(*look.Look, look.State) error) (look.Look, error) {
	var out look.Look
	err := db.write(ctx, func(tx *Tx) error {
		l, err := db.lockLookTx(ctx, tx, house, id)
		if err != nil {
			return err
		}
		st, err := lookStateTx(ctx, tx, house, id)
		if err != nil {
			return err
		}
		if st.ModelCollage, err = modelCollageTx(ctx, tx, house, l.ModelAssetID); err != nil {
			return err
		}
		before := l
		if err := edit(&l, st); err != nil {
			return err
		}
		out = l
		if l.Status == before.Status && l.UpdatedAt == before.UpdatedAt && sameStr(l.LookBaseAssetID, before.LookBaseAssetID) &&
			sameStr(l.LookBaseParentAssetID, before.LookBaseParentAssetID) {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE looks SET status = ?, look_base_asset_id = ?, look_base_job_id = ?, look_base_parent_asset_id = ?,
			updated_at = ? WHERE organization_id = ? AND id = ?`, l.Status, nullPtr(l.LookBaseAssetID), nullPtr(l.LookBaseJobID),
			nullPtr(l.LookBaseParentAssetID), l.UpdatedAt.UnixMilli(), house, id)
		if err != nil {
			return err
		}
		return indexLook(ctx, tx, house, l)
	})
	return out, err
}

// modelCollageTx names the live collage of the house's own model whose
// dossier holds the asset a look casts as its model ("" when none does):
// the look base frame's parent (SPEC §3 Look). When several models hold
// the asset, the newest wins.
func modelCollageTx(ctx context.Context, tx *Tx, house, assetID string) (string, error) {
	var collage string
	err := tx.QueryRow(ctx, `SELECT c.asset_id FROM house_model_assets d
		JOIN house_model_assets c ON c.organization_id = d.organization_id AND c.model_id = d.model_id AND c.role = 'collage'
		JOIN assets a ON a.organization_id = c.organization_id AND a.id = c.asset_id AND a.deleted_at IS NULL
		WHERE d.organization_id = ? AND d.asset_id = ? ORDER BY d.model_id DESC LIMIT 1`, house, assetID).Scan(&collage)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return collage, err
}

func sameStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Frames returns the look's jobs joined to their state, oldest first.
func (db *DB) Frames(ctx context.Context, house, lookID string) ([]look.Frame, error) {
	rows, err := db.read().Query(ctx, `SELECT lj.job_id, lj.stage, lj.variation_key, lj.base_asset_id, j.status, j.result_asset_id, j.error
		FROM look_jobs lj JOIN jobs j ON j.organization_id = lj.organization_id AND j.id = lj.job_id
		WHERE lj.organization_id = ? AND lj.look_id = ? ORDER BY lj.created_at, lj.job_id`, house, lookID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []look.Frame
	for rows.Next() {
		var f look.Frame
		var base, result, errText sql.NullString
		if err := rows.Scan(&f.JobID, &f.Stage, &f.Key, &base, &f.Status, &result, &errText); err != nil {
			return nil, err
		}
		f.BaseAssetID, f.ResultAssetID = base.String, result.String
		if errText.Valid {
			f.Error = &errText.String
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// jobsByKeysTx returns the house's jobs a user submitted under the keys,
// in the keys' order; keys with no job are skipped.
func jobsByKeysTx(ctx context.Context, tx *Tx, house, user string, keys []string) ([]job.Job, error) {
	var out []job.Job
	for _, k := range keys {
		j, err := jobByKeyTx(ctx, tx, house, user, k)
		if errors.Is(err, errs.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// lookBatch is look jobs queued together through the one enqueue: all of
// them or none, replayed whole when the first job's idempotency key was
// used already (a concurrent retry that loses the race on the (house, user,
// key) index reads the winner's jobs the same way).
type lookBatch struct {
	house string
	jobs  []look.LookJob
	prior []job.Job // the jobs stored under the batch's keys, when replayed
}

// queue is the batch's jobs, to hold and queue.
func (b *lookBatch) queue() []job.Job {
	js := make([]job.Job, len(b.jobs))
	for i, lj := range b.jobs {
		js[i] = lj.Job
	}
	return js
}

// replay reports whether the batch was submitted before, reading what was
// stored under its keys into prior.
func (b *lookBatch) replay(ctx context.Context) func(tx *Tx) (bool, error) {
	return func(tx *Tx) (bool, error) {
		user := b.jobs[0].Job.UserID
		keys := make([]string, len(b.jobs))
		for i, lj := range b.jobs {
			keys[i] = lj.Job.IdempotencyKey
		}
		first, err := jobsByKeysTx(ctx, tx, b.house, user, keys[:1])
		if err != nil || len(first) == 0 {
			return false, err
		}
		b.prior, err = jobsByKeysTx(ctx, tx, b.house, user, keys)
		return err == nil, err
	}
}

// linkTx writes the look link of the batch's i-th job, queued as j.
func (b *lookBatch) linkTx(ctx context.Context, tx *Tx, lookID string, i int, j job.Job) error {
	lj := b.jobs[i]
	_, err := tx.Exec(ctx, `INSERT INTO look_jobs (organization_id, look_id, job_id, stage, variation_key, base_asset_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, b.house, lookID, j.ID, lj.Stage, lj.Key, nullStr(lj.BaseAssetID), j.CreatedAt.UnixMilli())
	return err
}

// result is what the batch's submit answers: the stored jobs when it was
// replayed, else the ones just queued.
func (b *lookBatch) result(queued []job.Job, replayed bool, err error) ([]job.Job, bool, error) {
	if replayed {
		return b.prior, true, err
	}
	return queued, false, err
}

// SubmitLookJobs checks the look and writes every job with its hold, its
// first event and its look link, in one transaction (enqueue): all of them
// or none. The holds are taken together, so the first shortfall answers
// INSUFFICIENT_TOKENS with nothing written. A batch submitted before is
// replayed (lookBatch).
func (db *DB) SubmitLookJobs(ctx context.Context, house, lookID string, check func(look.Look, look.State) error, jobs []look.LookJob) ([]job.Job, bool, error) {
	if len(jobs) == 0 {
		return nil, false, nil
	}
	b := &lookBatch{house: house, jobs: jobs}
	js := b.queue()
	return b.result(db.enqueue(ctx, enqueue{house: house, spend: spend{Queue: js, Hold: js},
		replay: b.replay(ctx),
		check: func(tx *Tx) error {
			l, err := db.lockLookTx(ctx, tx, house, lookID)
			if err != nil {
				return err
			}
			st, err := lookStateTx(ctx, tx, house, lookID)
			if err != nil {
				return err
			}
			return check(l, st)
		},
		record: func(tx *Tx, done enqueued) error {
			for i, j := range done.Jobs {
				if err := b.linkTx(ctx, tx, lookID, i, j); err != nil {
					return err
				}
			}
			return nil
		}}))
}

// StandingPreset returns the house's saved preset; ok is false when it
// never saved one.
func (db *DB) StandingPreset(ctx context.Context, house string) (look.StandingPreset, bool, error) {
	var body string
	err := db.read().QueryRow(ctx, `SELECT body FROM look_presets WHERE organization_id = ?`, house).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return look.StandingPreset{}, false, nil
	}
	if err != nil {
		return look.StandingPreset{}, false, err
	}
	var p look.StandingPreset
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		return look.StandingPreset{}, false, fmt.Errorf("preset of %s: %w", house, err)
	}
	return p, true, nil
}

// SaveStandingPreset stores the house's preset whole.
func (db *DB) SaveStandingPreset(ctx context.Context, house string, p look.StandingPreset) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = db.writer().Exec(ctx, `INSERT INTO look_presets (organization_id, body, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
		house, string(body), db.nowMs())
	return err
}

// PosturePrefs returns the house's posture prefs (empty lists when none).
func (db *DB) PosturePrefs(ctx context.Context, house string) (look.Prefs, error) {
	return posturePrefsTx(ctx, db.read(), house)
}

func posturePrefsTx(ctx context.Context, tx *Tx, house string) (look.Prefs, error) {
	var body string
	err := tx.QueryRow(ctx, `SELECT body FROM posture_prefs WHERE organization_id = ?`, house).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return look.Prefs{}.Normal(), nil
	}
	if err != nil {
		return look.Prefs{}, err
	}
	var p look.Prefs
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		return look.Prefs{}, fmt.Errorf("posture prefs of %s: %w", house, err)
	}
	return p.Normal(), nil
}

// UpdatePosturePrefs reads the house's prefs, lets edit change them and
// stores the result, in one transaction.
func (db *DB) UpdatePosturePrefs(ctx context.Context, house string, edit func(look.Prefs) (look.Prefs, error)) (look.Prefs, error) {
	var out look.Prefs
	err := db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		cur, err := posturePrefsTx(ctx, tx, house)
		if err != nil {
			return err
		}
		if out, err = edit(cur); err != nil {
			return err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO posture_prefs (organization_id, body, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (organization_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`,
			house, string(body), db.nowMs())
		return err
	})
	return out, err
}
