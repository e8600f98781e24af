package sqlstore

// The casting store on both engines: another house's own model answers as
// if it did not exist, a model's dossier is written whole or not at all,
// and one live exclusive claim hides a face from every other house.

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/casting"
	"studio/internal/errs"
	"studio/internal/ts"
)

func TestCastingStore(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		userA, houseA := newLedgerHouse(t, db)
		userB, houseB := newLedgerHouse(t, db)
		photo, foreign := newAsset(t, db, houseA, userA, nil, ""), newAsset(t, db, houseB, userB, nil, "")
		model := func(originals ...string) (casting.Own, asset.Asset, asset.File) {
			id := uuid.Must(uuid.NewV7()).String()
			c := asset.Asset{ID: id, Name: "Collage", Mime: asset.MimeJPEG, Width: 8, Height: 8, Size: 10, CreatedAt: ts.Of(db.now())}
			f := asset.File{ID: id, HouseID: houseA, BlobKey: asset.BlobKey(houseA, id), Mime: c.Mime, ETag: `"ab"`, Size: 10, CreatedAt: c.CreatedAt}
			return casting.Own{ID: uuid.Must(uuid.NewV7()).String(), Name: "Ines", Collage: id, Sheets: []string{}, Originals: originals,
				CreatedAt: c.CreatedAt, UpdatedAt: c.CreatedAt}, c, f
		}

		// A foreign original refuses the whole model: no collage row is left.
		m, c, f := model(photo.ID, foreign.ID)
		if err := db.InsertOwnModel(ctx, houseA, userA, m, c, f); !errors.Is(err, errs.AssetNotFound) {
			t.Fatalf("model with a foreign original: %v", err)
		}
		if _, err := db.GetAsset(ctx, houseA, c.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("a refused model left its collage: %v", err)
		}
		m, c, f = model(photo.ID)
		if err := db.InsertOwnModel(ctx, houseA, userA, m, c, f); err != nil {
			t.Fatal(err)
		}
		if got, err := db.OwnModel(ctx, houseA, m.ID); err != nil || got.Collage != c.ID || len(got.Originals) != 1 {
			t.Fatalf("own model %+v %v", got, err)
		}
		if _, err := db.OwnModel(ctx, houseB, m.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house reads the model: %v", err)
		}
		if _, err := db.UpdateOwnModel(ctx, houseB, m.ID, func(*casting.Own) error { return nil }); !errors.Is(err, errs.NotFound) {
			t.Errorf("another house updates the model: %v", err)
		}
		if ms, _ := db.OwnModels(ctx, houseB); len(ms) != 0 {
			t.Errorf("another house lists %d models", len(ms))
		}
		if fs, _ := db.LiveAssets(ctx, houseB, []string{photo.ID}); len(fs) != 0 {
			t.Errorf("another house sees the photo: %v", fs)
		}
		if _, err := db.UpdateOwnModel(ctx, houseA, m.ID, func(o *casting.Own) error {
			o.Sheets, o.UpdatedAt = []string{foreign.ID}, ts.Of(db.now())
			return nil
		}); !errors.Is(err, errs.AssetNotFound) {
			t.Errorf("a foreign sheet: %v", err)
		}

		// Faces: an exclusive claim hides the face from every other house.
		face := casting.Face{Key: "ines", Name: "Ines", Tier: casting.Exclusive, PriceCents: 100, Currency: "usd",
			Images: []casting.FaceImage{{Key: "casting/x", Mime: asset.MimeJPEG}}, CreatedAt: ts.Of(db.now())}
		if err := db.UpsertFaces(ctx, []casting.Face{face}); err != nil {
			t.Fatal(err)
		}
		faces, err := db.Faces(ctx, houseA)
		if err != nil || len(faces) != 1 {
			t.Fatalf("faces %v %v", faces, err)
		}
		id := faces[0].ID
		face.Name = "Ines Moreau"
		if err := db.UpsertFaces(ctx, []casting.Face{face}); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Face(ctx, houseA, id); err != nil || got.Name != "Ines Moreau" {
			t.Errorf("re-imported face %+v %v; want the same id renamed", got, err)
		}
		if err := db.ClaimFace(ctx, houseB, id, "exclusive"); err != nil {
			t.Fatal(err)
		}
		if err := db.ClaimFace(ctx, houseA, id, "exclusive"); !errors.Is(err, errs.Conflict) {
			t.Errorf("a second exclusive claim: %v", err)
		}
		if _, err := db.Face(ctx, houseA, id); !errors.Is(err, errs.NotFound) {
			t.Errorf("house A sees house B's exclusive face: %v", err)
		}
		if got, err := db.Face(ctx, houseB, id); err != nil || !got.ExclusiveYours || !got.Owned {
			t.Errorf("house B's claimed face %+v %v", got, err)
		}
		if err := db.ReleaseFace(ctx, houseB, id); err != nil {
			t.Fatal(err)
		}
		if err := db.ReleaseFace(ctx, houseB, id); !errors.Is(err, errs.NotFound) {
			t.Errorf("releasing twice: %v", err)
		}
		if err := db.ClaimFace(ctx, houseA, id, "exclusive"); err != nil {
			t.Errorf("claim after release: %v", err)
		}
	})
}
