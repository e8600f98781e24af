package asset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"studio/internal/auth"
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
