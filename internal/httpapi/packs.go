package httpapi

import (
	"mime"
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
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
	c, err := s.svc.Packs.Create(r.Context(), auth.From(r.Context()), in)
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
	v, err := s.svc.Packs.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
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
	d, err := s.svc.Packs.Download(r.Context(), auth.From(r.Context()), r.PathValue("id"))
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

// packsRoutes are the routes of Packs (SPEC §3, §4.4, §4.19, §8).
func (s *Server) packsRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/toolkit/assets/pack", Class: KeyOrSession, Tag: "packs", Summary: packsSummary, Heavy: true,
			In: pack.Request{}, Out: []Out{{Status: 200, Body: pack.Created{}}, {Status: 202, Body: pack.Created{}}},
			Errors: []*errs.Error{errs.NotFound, pack.ErrTooLarge}, Handler: s.createPack},
		{Method: "GET", Path: "/api/toolkit/packs/{id}", Class: KeyOrSession, Tag: "packs", Summary: "Where a pack got to; 404 after 7 days",
			Out: []Out{{Status: 200, Body: pack.View{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPack},
		{Method: "GET", Path: "/api/toolkit/packs/{id}/file", Class: KeyOrSession, Tag: "packs", Summary: "The pack's zip archive; 409 NOT_READY until it is built, 404 after 7 days",
			Out:    []Out{{Status: 200, ContentType: "application/zip"}, {Status: 206, ContentType: "application/zip"}, {Status: 304}},
			Errors: []*errs.Error{pack.ErrNotReady, errs.NotFound}, Handler: s.packFile},
	}
}
