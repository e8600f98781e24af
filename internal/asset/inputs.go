package asset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/ts"
)

// The inputs of develops: job.Service files uploaded inputs in the library
// and checks referenced ones through these methods.

// UploadInput files an input uploaded with a submit in the caller's
// house: the house's live asset with the same bytes when it has one (found
// by the SHA-256 of the bytes, the oldest of several), else a new asset of
// kind ("" for none). A reused asset keeps its name, folder, tags and
// approval; only its kind is filed, when it has none. created reports a
// new asset (the one DiscardInputs may remove again).
func (s *Service) UploadInput(ctx context.Context, p auth.Principal, kind, filename string, data []byte) (id string, created bool, err error) {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if id, ok, err := s.store.ReuseAsset(ctx, p.HouseID, digest, Kind(kind)); err != nil || ok {
		return id, false, err
	}
	a, created, err := s.upload(ctx, p, Upload{Data: data, Filename: filename, Kind: kind}, true)
	return a.ID, created, err
}

// AllLive reports whether every id (repeats allowed) is a live asset of the
// house.
func (s *Service) AllLive(ctx context.Context, house string, ids []string) (bool, error) {
	distinct := dedupe(ids)
	n, err := s.store.CountAssets(ctx, house, distinct)
	if err != nil {
		return false, err
	}
	return n == len(distinct), nil
}

// LiveSizes returns the stored size in bytes of each id (repeats allowed)
// that is a live asset of the house; the others are absent.
func (s *Service) LiveSizes(ctx context.Context, house string, ids []string) (map[string]int64, error) {
	return s.store.AssetSizes(ctx, house, dedupe(ids))
}

// InputBytes reads the stored bytes of a live asset of the house, at most
// MaxBytes of them: a larger input is IMAGE_TOO_LARGE, as a develop takes
// it.
func (s *Service) InputBytes(ctx context.Context, house, id string) ([]byte, error) {
	f, err := s.store.AssetFile(ctx, house, id)
	if err != nil {
		return nil, err
	}
	obj, err := s.Open(ctx, f)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	data, err := io.ReadAll(io.LimitReader(obj, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, ErrTooLarge
	}
	return data, nil
}

// DiscardInputs removes the assets UploadInput made for a submit that was
// then refused: their rows, then their bytes, so the refusal leaves nothing
// behind. It logs what it could not remove; the submit's answer stands.
func (s *Service) DiscardInputs(ctx context.Context, house string, ids []string) {
	keys, err := s.store.PurgeInputs(ctx, house, ids)
	if err != nil {
		s.log.Error("discard the inputs of a refused submit", "house", house, "assets", ids, "err", err)
		return
	}
	for _, k := range keys {
		if err := s.blobs.Delete(ctx, k); err != nil {
			s.log.Error("discard an input's bytes", "key", k, "err", err)
		}
	}
}

// Result is a picture a lane made (a cut-out), to be stored as an asset of
// the house: the tool that made it, a name, its bytes and the lane's hold,
// posted with the row in one transaction ("" for none).
type Result struct {
	Tool string
	Name string
	Data []byte
	Hold string
}

// StoreResult stores r as a new asset of the caller's house (root folder,
// tool set, no kind) and posts its hold with the row. When anything fails
// nothing is left and the hold is the caller's to void.
func (s *Service) StoreResult(ctx context.Context, p auth.Principal, r Result) (Asset, error) {
	info, err := Inspect(r.Data)
	if err != nil {
		return Asset{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	sum := sha256.Sum256(r.Data)
	f := File{ID: id, HouseID: p.HouseID, BlobKey: BlobKey(p.HouseID, id), Mime: info.Mime,
		ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Size: int64(len(r.Data)), CreatedAt: ts.Of(s.now())}
	a := Asset{ID: id, Name: defaultName(r.Name), URL: FileURL(id), Mime: info.Mime, Width: info.Width, Height: info.Height,
		Size: f.Size, CreatedAt: f.CreatedAt, Tool: ptr(r.Tool)}
	if _, err := s.blobs.Put(ctx, f.BlobKey, bytes.NewReader(r.Data)); err != nil {
		return Asset{}, err
	}
	if err := s.store.InsertAsset(ctx, p.HouseID, p.UserID, a, f, r.Hold); err != nil {
		if derr := s.blobs.Delete(context.WithoutCancel(ctx), f.BlobKey); derr != nil {
			s.log.ErrorContext(ctx, "delete blob of a result not stored", "key", f.BlobKey, "err", derr)
		}
		return Asset{}, err
	}
	return a, nil
}
