package sqlstore

// The brand profile, its DNA reads and the marks (package brand; tables in
// migrations/00050_brand.sql).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"studio/internal/asset"
	"studio/internal/brand"
	"studio/internal/errs"
)

const profileCols = `vision_en, vibe, palette, signature_keywords, inject_enabled, dna_runs`

func scanProfile(row interface{ Scan(...any) error }) (brand.Profile, error) {
	p := brand.Empty()
	var vibe, palette, keywords string
	var inject int
	err := row.Scan(&p.VisionEn, &vibe, &palette, &keywords, &inject, &p.DNARuns)
	if errors.Is(err, sql.ErrNoRows) {
		return brand.Empty(), nil
	}
	if err != nil {
		return p, err
	}
	p.InjectEnabled = inject != 0
	for _, f := range []struct {
		col string
		v   any
	}{{vibe, &p.Vibe}, {palette, &p.Palette}, {keywords, &p.SignatureKeywords}} {
		if err := json.Unmarshal([]byte(f.col), f.v); err != nil {
			return p, fmt.Errorf("brand profile: %w", err)
		}
	}
	return p, nil
}

// Profile returns the house's profile as stored; empty when it has none.
func (db *DB) Profile(ctx context.Context, house string) (brand.Profile, error) {
	return scanProfile(db.read().QueryRow(ctx, `SELECT `+profileCols+` FROM brand_profiles WHERE organization_id = ?`, house))
}

// profileArgs are the stored forms of the profile's four read fields.
func profileArgs(p brand.Profile) (vibe, palette, keywords string, err error) {
	var b [3][]byte
	for i, v := range []any{p.Vibe, p.Palette, p.SignatureKeywords} {
		if b[i], err = json.Marshal(v); err != nil {
			return "", "", "", err
		}
	}
	return string(b[0]), string(b[1]), string(b[2]), nil
}

// upsertProfile writes every field of the profile but dnaRuns.
func (db *DB) upsertProfile(ctx context.Context, tx *Tx, house string, p brand.Profile) error {
	vibe, palette, keywords, err := profileArgs(p)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO brand_profiles (organization_id, vision_en, vibe, palette, signature_keywords, inject_enabled, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET vision_en = excluded.vision_en, vibe = excluded.vibe,
			palette = excluded.palette, signature_keywords = excluded.signature_keywords,
			inject_enabled = excluded.inject_enabled, updated_at = excluded.updated_at`,
		house, p.VisionEn, vibe, palette, keywords, b2i(p.InjectEnabled), db.nowMs())
	return err
}

// EditProfile reads the profile, lets edit change it and writes it back in
// one transaction; the house's lock serializes edits and reads of a house.
func (db *DB) EditProfile(ctx context.Context, house string, edit func(*brand.Profile)) (brand.Profile, error) {
	var out brand.Profile
	err := db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		p, err := scanProfile(tx.QueryRow(ctx, `SELECT `+profileCols+` FROM brand_profiles WHERE organization_id = ?`, house))
		if err != nil {
			return err
		}
		runs := p.DNARuns
		edit(&p)
		p.DNARuns = runs
		out = p
		return db.upsertProfile(ctx, tx, house, p)
	})
	return out, err
}

// ClaimFirstRead claims the house's free first read for the read id. Under
// the house's lock (the house row on PostgreSQL; SQLite has one writer),
// so of two first reads one claims and the other sees the claim.
func (db *DB) ClaimFirstRead(ctx context.Context, house, id string, until time.Time) (bool, error) {
	claimed := false
	err := db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		var runs int64
		var claim sql.NullString
		var claimUntil sql.NullInt64
		err := tx.QueryRow(ctx, `SELECT dna_runs, dna_claim, dna_claim_until FROM brand_profiles WHERE organization_id = ?`,
			house).Scan(&runs, &claim, &claimUntil)
		now := db.nowMs()
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.Exec(ctx, `INSERT INTO brand_profiles (organization_id, dna_claim, dna_claim_until, updated_at)
				VALUES (?, ?, ?, ?)`, house, id, until.UnixMilli(), now)
			claimed = err == nil
			return err
		case err != nil:
			return err
		case runs > 0 || (claim.Valid && claimUntil.Int64 > now):
			return nil // read before, or a first read is in flight: this one is a re-read
		}
		_, err = tx.Exec(ctx, `UPDATE brand_profiles SET dna_claim = ?, dna_claim_until = ? WHERE organization_id = ?`,
			id, until.UnixMilli(), house)
		claimed = err == nil
		return err
	})
	return claimed, err
}

// ReleaseFirstRead gives back the claim the read holds, if it holds one.
func (db *DB) ReleaseFirstRead(ctx context.Context, house, id string) error {
	_, err := db.writer().Exec(ctx, `UPDATE brand_profiles SET dna_claim = NULL, dna_claim_until = NULL
		WHERE organization_id = ? AND dna_claim = ?`, house, id)
	return err
}

// SaveRead stores a successful DNA read in one transaction: the hold
// posted, the four read fields written, dnaRuns bumped, the claim given
// back and the read logged.
func (db *DB) SaveRead(ctx context.Context, house string, r brand.Read) (brand.Profile, error) {
	var out brand.Profile
	err := db.write(ctx, func(tx *Tx) error {
		if r.HoldID != "" {
			if err := db.postHoldTx(ctx, tx, house, r.HoldID); err != nil {
				return err
			}
		} else if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		vibe, palette, keywords, err := profileArgs(r.Profile)
		if err != nil {
			return err
		}
		now := db.nowMs()
		if _, err := tx.Exec(ctx, `INSERT INTO brand_profiles (organization_id, vision_en, vibe, palette, signature_keywords, dna_runs, updated_at)
			VALUES (?, ?, ?, ?, ?, 1, ?)
			ON CONFLICT (organization_id) DO UPDATE SET vision_en = excluded.vision_en, vibe = excluded.vibe,
				palette = excluded.palette, signature_keywords = excluded.signature_keywords,
				dna_runs = brand_profiles.dna_runs + 1, updated_at = excluded.updated_at`,
			house, r.Profile.VisionEn, vibe, palette, keywords, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE brand_profiles SET dna_claim = NULL, dna_claim_until = NULL
			WHERE organization_id = ? AND dna_claim = ?`, house, r.ID); err != nil {
			return err
		}
		u := r.Usage
		if _, err := tx.Exec(ctx, `INSERT INTO brand_dna_reads (id, organization_id, user_id, images, charged, hold_id, model,
			prompt_tokens, completion_tokens, cost_usd, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, house, nullStr(r.UserID), r.Images, r.Charged, nullStr(r.HoldID), nullStr(u.Model),
			u.PromptTokens, u.CompletionTokens, u.CostUSD, u.Latency.Milliseconds(), now); err != nil {
			return err
		}
		out, err = scanProfile(tx.QueryRow(ctx, `SELECT `+profileCols+` FROM brand_profiles WHERE organization_id = ?`, house))
		return err
	})
	return out, err
}

// markCols read a mark joined to its asset (a.name is the filename).
const markCols = `m.id, m.asset_id, m.collection_id, m.material, m.placement, m.note, m.sort_order, m.created_at, a.name`

const markFrom = ` FROM brand_marks m JOIN assets a ON a.organization_id = m.organization_id AND a.id = m.asset_id`

func scanMark(row interface{ Scan(...any) error }) (brand.Mark, error) {
	var m brand.Mark
	var collection, placement, note sql.NullString
	var created int64
	if err := row.Scan(&m.ID, &m.AssetID, &collection, &m.Material, &placement, &note, &m.SortOrder, &created, &m.Filename); err != nil {
		return brand.Mark{}, notFound(err)
	}
	m.CollectionID, m.Placement, m.Note = strPtr(collection), strPtr(placement), strPtr(note)
	m.CreatedAt.Time = msTime(created)
	return m, nil
}

// InsertMark registers a mark after checking its asset, its collection and
// that the asset is not yet registered at the level, in one transaction.
func (db *DB) InsertMark(ctx context.Context, house, user string, m brand.Mark) (brand.Mark, error) {
	var out brand.Mark
	err := db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, house); err != nil {
			return err
		}
		var marked sql.NullString
		err := tx.QueryRow(ctx, `SELECT t.tag FROM assets a LEFT JOIN asset_tags t
			ON t.organization_id = a.organization_id AND t.asset_id = a.id AND t.tag = ?
			WHERE a.organization_id = ? AND a.id = ? AND a.deleted_at IS NULL`, asset.KindTag(asset.Mark), house, m.AssetID).Scan(&marked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return brand.ErrAssetNotFound
		case err != nil:
			return err
		case !marked.Valid:
			return brand.ErrNotAMark
		}
		if m.CollectionID != nil {
			ok, err := folderExists(ctx, tx, house, *m.CollectionID)
			if err != nil {
				return err
			}
			if !ok {
				return brand.ErrNoCollection
			}
		}
		if m.SortOrder < 0 {
			if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(sort_order), -1) + 1 FROM brand_marks WHERE organization_id = ? AND level = ?`,
				house, m.Level()).Scan(&m.SortOrder); err != nil {
				return err
			}
			m.SortOrder = min(m.SortOrder, brand.MaxSortOrder)
		}
		_, err = tx.Exec(ctx, `INSERT INTO brand_marks (id, organization_id, asset_id, collection_id, level, material, placement, note,
			sort_order, created_by_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.ID, house, m.AssetID, nullPtr(m.CollectionID), m.Level(), m.Material, nullPtr(m.Placement), nullPtr(m.Note),
			m.SortOrder, nullStr(user), m.CreatedAt.UnixMilli())
		if errors.Is(err, errUnique) {
			return errs.Wrap(brand.ErrRegistered, err)
		}
		if err != nil {
			return err
		}
		out, err = scanMark(tx.QueryRow(ctx, `SELECT `+markCols+markFrom+` WHERE m.organization_id = ? AND m.id = ?`, house, m.ID))
		return err
	})
	return out, err
}

// Marks lists one level's marks whose assets are live, lowest sortOrder
// first, then oldest.
func (db *DB) Marks(ctx context.Context, house, level string) ([]brand.Mark, error) {
	rows, err := db.read().Query(ctx, `SELECT `+markCols+markFrom+`
		WHERE m.organization_id = ? AND m.level = ? AND a.deleted_at IS NULL
		ORDER BY m.sort_order, m.created_at, m.id`, house, level)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []brand.Mark{}
	for rows.Next() {
		m, err := scanMark(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// HasCollection reports whether the collection is one of the house's.
func (db *DB) HasCollection(ctx context.Context, house, id string) (bool, error) {
	return folderExists(ctx, db.read(), house, id)
}

// GetMark returns one mark of the house.
func (db *DB) GetMark(ctx context.Context, house, id string) (brand.Mark, error) {
	return scanMark(db.read().QueryRow(ctx, `SELECT `+markCols+markFrom+` WHERE m.organization_id = ? AND m.id = ?`, house, id))
}

// UpdateMark reads a mark, lets edit change it and writes it back.
func (db *DB) UpdateMark(ctx context.Context, house, id string, edit func(*brand.Mark)) (brand.Mark, error) {
	var out brand.Mark
	err := db.write(ctx, func(tx *Tx) error {
		m, err := scanMark(tx.QueryRow(ctx, `SELECT `+markCols+markFrom+` WHERE m.organization_id = ? AND m.id = ?`, house, id))
		if err != nil {
			return err
		}
		edit(&m)
		if _, err := tx.Exec(ctx, `UPDATE brand_marks SET material = ?, placement = ?, note = ?, sort_order = ?
			WHERE organization_id = ? AND id = ?`, m.Material, nullPtr(m.Placement), nullPtr(m.Note), m.SortOrder, house, id); err != nil {
			return err
		}
		out = m
		return nil
	})
	return out, err
}

// DeleteMark removes a mark of the house; its asset stays.
func (db *DB) DeleteMark(ctx context.Context, house, id string) error {
	res, err := db.writer().Exec(ctx, `DELETE FROM brand_marks WHERE organization_id = ? AND id = ?`, house, id)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// AssetFolder returns the collection an asset of the house is filed in,
// deleted or not; "" for the root or an asset the house does not have.
func (db *DB) AssetFolder(ctx context.Context, house, assetID string) (string, error) {
	var folder sql.NullString
	err := db.read().QueryRow(ctx, `SELECT folder_id FROM assets WHERE organization_id = ? AND id = ?`, house, assetID).Scan(&folder)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return folder.String, err
}
