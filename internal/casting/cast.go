package casting

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/google/uuid"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// ErrNotUsable refuses casting a catalogue face the house may not use: a
// face for sale it has not bought, or an exclusive face it holds no claim
// on (SPEC §2 Model: usable is free, or owned). Nothing is written or held.
var ErrNotUsable = errs.Msg(errs.Forbidden, "The house may not cast this face: buy it first (an exclusive face: hold its claim).")

// FaceCasts is what casting a catalogue face needs of persistence.
type FaceCasts interface {
	// FaceCast names the live asset a face was cast as in the house, if any.
	FaceCast(ctx context.Context, house, faceID string) (string, bool, error)
	// InsertFaceCast writes the cast's asset row and points the house's
	// cast of the face at it, in one transaction.
	InsertFaceCast(ctx context.Context, house, user, faceID string, a asset.Asset, f asset.File) error
}

// CastAsset answers the asset a look casts when its modelAssetId names a
// casting board entry rather than an asset: an own model's collage (its
// first live identity asset), or a catalogue face's cover kept as the
// house's asset, made once (kind model, tool casting, named after the
// face) and reused by every later look. errs.NotFound when id names no
// model the house may see (an exclusive face another house holds is one);
// ErrNotUsable for a face it may not use.
func (s *Service) CastAsset(ctx context.Context, p auth.Principal, id string) (string, error) {
	if err := p.MayEdit(); err != nil {
		return "", err
	}
	o, err := s.store.OwnModel(ctx, p.HouseID, id)
	if err == nil {
		m := ownModel(o)
		if len(m.IdentityAssetIDs) == 0 {
			return "", errs.NotFound
		}
		return m.IdentityAssetIDs[0], nil
	}
	if !errors.Is(err, errs.NotFound) {
		return "", err
	}
	f, err := s.store.Face(ctx, p.HouseID, id)
	if err != nil {
		return "", err
	}
	if !faceModel(f).Usable {
		return "", ErrNotUsable
	}
	if len(f.Images) == 0 {
		return "", errs.NotFound
	}
	if cast, ok, err := s.store.FaceCast(ctx, p.HouseID, f.ID); err != nil || ok {
		return cast, err
	}
	return s.castFace(ctx, p, f)
}

// castFace copies a face's cover into the house's library.
func (s *Service) castFace(ctx context.Context, p auth.Principal, f Face) (string, error) {
	cover := f.Images[0]
	obj, err := s.Open(ctx, asset.File{BlobKey: cover.Key})
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(obj, asset.MaxBytes+1))
	obj.Close()
	if err != nil {
		return "", err
	}
	info, err := asset.Inspect(data)
	if err != nil {
		return "", errs.Wrap(errs.Internal, err) // the import checked it: the stored copy is damaged
	}
	now := ts.Of(s.now())
	kind, tool := asset.Model, "casting"
	a := asset.Asset{ID: uuid.Must(uuid.NewV7()).String(), Name: clip(f.Name, MaxName), Kind: &kind, Tool: &tool,
		Mime: info.Mime, Width: info.Width, Height: info.Height, Size: int64(len(data)), CreatedAt: now}
	a.URL = asset.FileURL(a.ID)
	file := asset.File{ID: a.ID, HouseID: p.HouseID, BlobKey: asset.BlobKey(p.HouseID, a.ID), Mime: info.Mime,
		ETag: `"` + cover.Sum + `"`, Size: a.Size, CreatedAt: now}
	if _, err := s.blobs.Put(ctx, file.BlobKey, bytes.NewReader(data)); err != nil {
		return "", err
	}
	if err := s.store.InsertFaceCast(ctx, p.HouseID, p.UserID, f.ID, a, file); err != nil {
		if derr := s.blobs.Delete(context.WithoutCancel(ctx), file.BlobKey); derr != nil {
			s.log.ErrorContext(ctx, "delete the copy of a face not cast", "key", file.BlobKey, "err", derr)
		}
		return "", err
	}
	return a.ID, nil
}
