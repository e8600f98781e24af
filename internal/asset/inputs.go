package asset

import (
	"context"

	"studio/internal/auth"
)

// The inputs of develops: job.Service files uploaded inputs in the library
// and checks referenced ones through these methods.

// UploadInput stores an input uploaded with a submit as a new asset of the
// caller's house, of kind ("" for none), and returns its id.
func (s *Service) UploadInput(ctx context.Context, p auth.Principal, kind, filename string, data []byte) (string, error) {
	a, err := s.Upload(ctx, p, Upload{Data: data, Filename: filename, Kind: kind})
	if err != nil {
		return "", err
	}
	return a.ID, nil
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
