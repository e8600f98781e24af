package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/casting"
	"studio/internal/errs"
)

// The casting board's rows (migration 00055). Own models name the house in
// every query; the catalogue of faces belongs to no house, and each read of
// it names the house whose claims decide what it may see.

const ownCols = `id, name, traits, created_at, updated_at`

func scanOwn(row interface{ Scan(...any) error }) (casting.Own, error) {
	var o casting.Own
	var traits string
	var created, updated int64
	if err := row.Scan(&o.ID, &o.Name, &traits, &created, &updated); err != nil {
		return casting.Own{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(traits), &o.Traits); err != nil {
		return casting.Own{}, fmt.Errorf("model %s traits: %w", o.ID, err)
	}
	o.CreatedAt.Time, o.UpdatedAt.Time = msTime(created), msTime(updated)
	o.Sheets, o.Originals = []string{}, []string{}
	return o, nil
}

// dossiersTx fills the models' dossiers with their live assets, in order.
func dossiersTx(ctx context.Context, q *Tx, house string, models []casting.Own) error {
	if len(models) == 0 {
		return nil
	}
	byID := make(map[string]*casting.Own, len(models))
	ids := make([]string, len(models))
	for i := range models {
		byID[models[i].ID], ids[i] = &models[i], models[i].ID
	}
	in, args := inList(ids)
	rows, err := q.Query(ctx, `SELECT d.model_id, d.role, d.asset_id FROM house_model_assets d
		JOIN assets a ON a.organization_id = d.organization_id AND a.id = d.asset_id AND a.deleted_at IS NULL
		WHERE d.organization_id = ? AND d.model_id IN `+in+` ORDER BY d.model_id, d.role, d.position`, append([]any{house}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var model, role, id string
		if err := rows.Scan(&model, &role, &id); err != nil {
			return err
		}
		o := byID[model]
		switch role {
		case "collage":
			o.Collage = id
		case "sheet":
			o.Sheets = append(o.Sheets, id)
		case "original":
			o.Originals = append(o.Originals, id)
		}
	}
	return rows.Err()
}

// OwnModels lists the house's own models with their live dossiers.
func (db *DB) OwnModels(ctx context.Context, house string) ([]casting.Own, error) {
	rows, err := db.read().Query(ctx, `SELECT `+ownCols+` FROM house_models WHERE organization_id = ?
		ORDER BY created_at DESC, id DESC`, house)
	if err != nil {
		return nil, err
	}
	var out []casting.Own
	for rows.Next() {
		o, err := scanOwn(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, dossiersTx(ctx, db.read(), house, out)
}

// OwnModel returns one own model of the house with its live dossier.
func (db *DB) OwnModel(ctx context.Context, house, id string) (casting.Own, error) {
	return ownModelTx(ctx, db.read(), house, id, "")
}

func ownModelTx(ctx context.Context, q *Tx, house, id, lock string) (casting.Own, error) {
	o, err := scanOwn(q.QueryRow(ctx, `SELECT `+ownCols+` FROM house_models WHERE organization_id = ? AND id = ?`+lock, house, id))
	if err != nil {
		return casting.Own{}, err
	}
	one := []casting.Own{o}
	if err := dossiersTx(ctx, q, house, one); err != nil {
		return casting.Own{}, err
	}
	return one[0], nil
}

// LiveAssets returns where the bytes of the house's live assets among ids are.
func (db *DB) LiveAssets(ctx context.Context, house string, ids []string) (map[string]asset.File, error) {
	out := map[string]asset.File{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := db.read().Query(ctx, `SELECT id, blob_key, mime, sha256, size_bytes, created_at FROM assets
		WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in, append([]any{house}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		f := asset.File{HouseID: house}
		var created int64
		if err := rows.Scan(&f.ID, &f.BlobKey, &f.Mime, &f.ETag, &f.Size, &created); err != nil {
			return nil, err
		}
		f.ETag = `"` + f.ETag + `"`
		f.CreatedAt.Time = msTime(created)
		out[f.ID] = f
	}
	return out, rows.Err()
}

// allLiveTx refuses with ASSET_NOT_FOUND unless every id is a live asset
// of the house.
func allLiveTx(ctx context.Context, tx *Tx, house string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	in, args := inList(ids)
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
		append([]any{house}, args...)...).Scan(&n); err != nil {
		return err
	}
	if n != len(ids) {
		return errs.AssetNotFound
	}
	return nil
}

func insertDossierTx(ctx context.Context, tx *Tx, house, model, role string, ids []string) error {
	for i, id := range ids {
		if _, err := tx.Exec(ctx, `INSERT INTO house_model_assets (organization_id, model_id, role, position, asset_id)
			VALUES (?, ?, ?, ?, ?)`, house, model, role, i, id); err != nil {
			return err
		}
	}
	return nil
}

func traitsJSON(t casting.Traits) (string, error) {
	b, err := json.Marshal(t)
	return string(b), err
}

// InsertOwnModel writes the collage's asset row, the model and its dossier
// in one transaction; ASSET_NOT_FOUND (nothing written) when an original
// is no longer a live asset of the house.
func (db *DB) InsertOwnModel(ctx context.Context, house, user string, m casting.Own, collage asset.Asset, f asset.File) error {
	traits, err := traitsJSON(m.Traits)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *Tx) error {
		if err := allLiveTx(ctx, tx, house, slices.Concat(m.Sheets, m.Originals)); err != nil {
			return err
		}
		if err := db.insertAssetTx(ctx, tx, house, user, collage, f); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO house_models (id, organization_id, created_by_user_id, name, traits, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, m.ID, house, nullStr(user), m.Name, traits, m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli()); err != nil {
			return err
		}
		if err := insertDossierTx(ctx, tx, house, m.ID, "collage", []string{m.Collage}); err != nil {
			return err
		}
		if err := insertDossierTx(ctx, tx, house, m.ID, "sheet", m.Sheets); err != nil {
			return err
		}
		return insertDossierTx(ctx, tx, house, m.ID, "original", m.Originals)
	})
}

// UpdateOwnModel reads an own model under a row lock, lets edit change its
// traits and sheets and writes them back; ASSET_NOT_FOUND (nothing
// written) when a new sheet is not a live asset of the house.
func (db *DB) UpdateOwnModel(ctx context.Context, house, id string, edit func(*casting.Own) error) (casting.Own, error) {
	var out casting.Own
	err := db.write(ctx, func(tx *Tx) error {
		lock := ""
		if db.engine == Postgres {
			lock = ` FOR UPDATE`
		}
		o, err := ownModelTx(ctx, tx, house, id, lock)
		if err != nil {
			return err
		}
		before := o
		before.Sheets, before.Traits.Marks = slices.Clone(o.Sheets), slices.Clone(o.Traits.Marks)
		if err := edit(&o); err != nil {
			return err
		}
		out = o
		sheets := !slices.Equal(o.Sheets, before.Sheets)
		if !sheets && reflect.DeepEqual(o.Traits, before.Traits) {
			return nil
		}
		if sheets {
			if err := allLiveTx(ctx, tx, house, o.Sheets); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM house_model_assets WHERE organization_id = ? AND model_id = ? AND role = 'sheet'`, house, id); err != nil {
				return err
			}
			if err := insertDossierTx(ctx, tx, house, id, "sheet", o.Sheets); err != nil {
				return err
			}
		}
		traits, err := traitsJSON(o.Traits)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE house_models SET traits = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
			traits, o.UpdatedAt.UnixMilli(), house, id)
		return err
	})
	return out, err
}

// faceSelect reads the faces a house may see: every face but those another
// house holds a live exclusive claim on, with the house's own live claim.
const faceSelect = `SELECT f.id, f.catalogue_key, f.name, f.tier, f.price_cents, f.currency, f.images, f.traits, f.created_at, c.kind
	FROM casting_faces f
	LEFT JOIN face_claims c ON c.face_id = f.id AND c.organization_id = ? AND c.released_at IS NULL
	WHERE NOT EXISTS (SELECT 1 FROM face_claims x WHERE x.face_id = f.id AND x.kind = 'exclusive'
		AND x.released_at IS NULL AND x.organization_id <> ?)`

func scanFace(row interface{ Scan(...any) error }) (casting.Face, error) {
	var f casting.Face
	var images, traits string
	var created int64
	var claim sql.NullString
	if err := row.Scan(&f.ID, &f.Key, &f.Name, &f.Tier, &f.PriceCents, &f.Currency, &images, &traits, &created, &claim); err != nil {
		return casting.Face{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(images), &f.Images); err != nil {
		return casting.Face{}, fmt.Errorf("face %s images: %w", f.ID, err)
	}
	if err := json.Unmarshal([]byte(traits), &f.Traits); err != nil {
		return casting.Face{}, fmt.Errorf("face %s traits: %w", f.ID, err)
	}
	f.CreatedAt.Time = msTime(created)
	f.Owned = claim.Valid
	f.ExclusiveYours = claim.String == "exclusive"
	return f, nil
}

// Faces lists the catalogue faces the house may see, newest first.
func (db *DB) Faces(ctx context.Context, house string) ([]casting.Face, error) {
	rows, err := db.read().Query(ctx, faceSelect+` ORDER BY f.created_at DESC, f.id DESC`, house, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []casting.Face
	for rows.Next() {
		f, err := scanFace(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Face returns one face the house may see.
func (db *DB) Face(ctx context.Context, house, id string) (casting.Face, error) {
	return scanFace(db.read().QueryRow(ctx, faceSelect+` AND f.id = ?`, house, house, id))
}

// UpsertFaces writes the catalogue faces by key in one transaction: a new
// key gets a new id, a known one keeps its id and creation time.
func (db *DB) UpsertFaces(ctx context.Context, faces []casting.Face) error {
	return db.write(ctx, func(tx *Tx) error {
		for _, f := range faces {
			images, err := json.Marshal(f.Images)
			if err != nil {
				return err
			}
			traits, err := traitsJSON(f.Traits)
			if err != nil {
				return err
			}
			at := f.CreatedAt.UnixMilli()
			if _, err := tx.Exec(ctx, `INSERT INTO casting_faces (id, catalogue_key, name, tier, price_cents, currency, images, traits, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (catalogue_key) DO UPDATE SET name = excluded.name, tier = excluded.tier, price_cents = excluded.price_cents,
					currency = excluded.currency, images = excluded.images, traits = excluded.traits, updated_at = excluded.updated_at`,
				uuid.Must(uuid.NewV7()).String(), f.Key, f.Name, f.Tier, f.PriceCents, f.Currency, string(images), traits, at, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClaimFace gives a house a live claim on a face: a purchase, or the
// face's one exclusive claim (errs.Conflict when another house holds it).
// Checkout deliveries write claims; tests call it directly.
func (db *DB) ClaimFace(ctx context.Context, house, faceID, kind string) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO face_claims (organization_id, face_id, kind, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, face_id) DO UPDATE SET kind = excluded.kind, created_at = excluded.created_at, released_at = NULL`,
		house, faceID, kind, db.nowMs())
	if errors.Is(translate(err), errUnique) {
		return errs.Conflict
	}
	return err
}

// ReleaseFace ends a house's live claim on a face.
func (db *DB) ReleaseFace(ctx context.Context, house, faceID string) error {
	res, err := db.writer().Exec(ctx, `UPDATE face_claims SET released_at = ? WHERE organization_id = ? AND face_id = ? AND released_at IS NULL`,
		db.nowMs(), house, faceID)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// FaceCast names the live asset a catalogue face was cast as in the house.
func (db *DB) FaceCast(ctx context.Context, house, faceID string) (string, bool, error) {
	var id string
	err := db.read().QueryRow(ctx, `SELECT c.asset_id FROM face_casts c JOIN assets a ON a.organization_id = c.organization_id
		AND a.id = c.asset_id AND a.deleted_at IS NULL WHERE c.organization_id = ? AND c.face_id = ?`, house, faceID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// InsertFaceCast writes the asset a face is cast as and points the house's
// cast of the face at it (a removed earlier cast is replaced), together.
func (db *DB) InsertFaceCast(ctx context.Context, house, user, faceID string, a asset.Asset, f asset.File) error {
	return db.write(ctx, func(tx *Tx) error {
		if err := db.insertAssetTx(ctx, tx, house, user, a, f); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO face_casts (organization_id, face_id, asset_id, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (organization_id, face_id) DO UPDATE SET asset_id = excluded.asset_id, created_at = excluded.created_at`,
			house, faceID, a.ID, a.CreatedAt.UnixMilli())
		return err
	})
}
