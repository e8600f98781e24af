package httpapi

import (
	"mime"
	"net/http"

	"studio/internal/auth"
	"studio/internal/pack"
)

// packsSummary documents POST /api/toolkit/assets/pack.
const packsSummary = "Pack assets into a zip: instant (200, ready) when small, queued (202) when larger; pack.ready follows on the job socket. " +
	"Resizing is done here, so the 503 for unsupported sizes is never answered"

func (s *Server) createPack(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[pack.Request](w, r)
	if err != nil {
		return err
	}
	c, err := s.packs.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if c.Mode == pack.Queued {
		status = http.StatusAccepted
	}
	return encode(w, status, c)
}

func (s *Server) getPack(w http.ResponseWriter, r *http.Request) error {
	v, err := s.packs.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

// packFile streams a pack's archive: a built queued pack from the blob
// store (ranges, conditional requests), an instant pack written straight
// into the response with no temporary file. A failure once the archive
// has started aborts the response, so a client never keeps a truncated
// archive that looks whole.
func (s *Server) packFile(w http.ResponseWriter, r *http.Request) error {
	d, err := s.packs.Download(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Filename}))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if d.Object != nil {
		defer d.Object.Close()
		http.ServeContent(w, r, "", d.ModTime, d.Object)
		return nil
	}
	w.WriteHeader(http.StatusOK)
	if err := d.Write(w); err != nil {
		if r.Context().Err() == nil {
			logFor(r.Context()).ErrorContext(r.Context(), "pack archive interrupted", "pack", r.PathValue("id"), "err", err)
		}
		panic(http.ErrAbortHandler)
	}
	return nil
}
