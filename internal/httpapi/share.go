package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/share"
)

// SharesBody lists the house's share links.
type SharesBody struct {
	Shares []share.Share `json:"shares"`
}

// MarksBody lists reviewers' marks for the director.
type MarksBody struct {
	Marks []share.Mark `json:"marks"`
}

// ShareMarksQuery selects the marks the director reads.
type ShareMarksQuery struct {
	AssetIDs string `query:"assetIds" refuse:"BAD_ASSET_IDS" description:"Comma-separated asset ids (at most 200); another house's ids give nothing. Absent: the house's latest 200 marks."`
}

// ShareFrameQuery chooses what the frame route answers.
type ShareFrameQuery struct {
	Thumb  string `query:"thumb" refuse:"NOT_FOUND" description:"1: a rendition whose long edge is at most 512 pixels instead of the original."`
	Export string `query:"export" refuse:"NOT_FOUND" description:"1 (originals only): the reviewer downloads the frame, recorded as a keep signal (exportedAt on the frame's mark)."`
}

func (s *Server) listShares(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.svc.Shares.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, SharesBody{Shares: ss})
}

func (s *Server) mintShare(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[share.MintRequest](w, r)
	if err != nil {
		return err
	}
	c, err := s.svc.Shares.Mint(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, c)
}

func (s *Server) revokeShare(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Shares.Revoke(r.Context(), auth.From(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	return encode(w, http.StatusOK, share.Revoked{Revoked: true})
}

func (s *Server) shareMarks(w http.ResponseWriter, r *http.Request) error {
	var ids []string
	for id := range strings.SplitSeq(r.URL.Query().Get("assetIds"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	ms, err := s.svc.Shares.Marks(r.Context(), auth.From(r.Context()), ids)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, MarksBody{Marks: ms})
}

func (s *Server) folderCoverage(w http.ResponseWriter, r *http.Request) error {
	c, err := s.svc.Shares.Coverage(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, c)
}

// The reviewer routes: their authority is the token in the path; every
// refusal of a token or a position is the API's one 404.

func (s *Server) shareManifest(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.Shares.Manifest(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return encode(w, http.StatusOK, m)
}

func (s *Server) shareFrame(w http.ResponseWriter, r *http.Request) error {
	i, err := strconv.Atoi(r.PathValue("i"))
	if err != nil || i < 0 {
		return errs.NotFound
	}
	q := r.URL.Query()
	thumb, export := on(q.Get("thumb")), on(q.Get("export"))
	b, err := s.svc.Shares.FrameBytes(r.Context(), r.PathValue("token"), i, thumb, export && !thumb)
	if err != nil {
		return err
	}
	defer b.Object.Close()
	h := w.Header()
	h.Set("Content-Type", b.Mime)
	h.Set("ETag", b.ETag)
	h.Set("Cache-Control", assetCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", assetCSP)
	if export && !thumb {
		h.Set("Content-Disposition", "attachment")
	}
	http.ServeContent(w, r, "", b.ModTime, b.Object)
	return nil
}

// on reads a query flag: 1 or true.
func on(v string) bool { return v == "1" || v == "true" }

func (s *Server) shareMark(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[share.MarkRequest](w, r)
	if err != nil {
		return err
	}
	rec, err := s.svc.Shares.Mark(r.Context(), r.PathValue("token"), clientKey(r), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, rec)
}

func (s *Server) shareFinish(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Shares.Finish(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, f)
}

// clientKey names the client's address for per-address limits: the IPv4
// address, or the /64 of an IPv6 one (account.ClientKey).
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return account.ClientKey(host)
}

// logPath is the request's path as the log keeps it: a share token is
// replaced by {token}, so a reviewer's authority never lands in a log.
func logPath(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/share/")
	if !ok {
		return path
	}
	token, tail, _ := strings.Cut(rest, "/")
	if len(token) < 20 {
		return path
	}
	if tail != "" {
		tail = "/" + tail
	}
	return "/api/share/{token}" + tail
}

// shareRoutes are the routes of Share (SPEC §4.11): the house's side (K)
// and the reviewer's side (a reviewer token), with the reviewer's page.
func (s *Server) shareRoutes() []Route {
	notFound := []*errs.Error{errs.NotFound}
	return []Route{
		{Method: "GET", Path: "/api/share", Class: KeyOrSession, Tag: "share", Summary: "The house's share links, newest first; revoked and expired ones stay listed, counted at read time",
			Out: []Out{{Status: 200, Body: SharesBody{}}}, Handler: s.listShares},
		{Method: "POST", Path: "/api/share", Class: KeyOrSession, Tag: "share", Summary: "Mint a share link to 1-60 of the house's frames (free); the link carries the token in its fragment. 30 an hour per house",
			In: share.MintRequest{}, Out: []Out{{Status: 200, Body: share.Created{}}},
			Errors: []*errs.Error{errs.Forbidden, share.ErrNoFrames, share.ErrTooManyFrames, share.ErrBadRecipient, share.ErrNoteTooLong,
				errs.NotFound, errs.RateLimited}, Handler: s.mintShare},
		{Method: "POST", Path: "/api/share/{id}/revoke", Class: KeyOrSession, Tag: "share", Summary: "Revoke a share link: its next reviewer request is 404; idempotent",
			Out: []Out{{Status: 200, Body: share.Revoked{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.revokeShare},
		{Method: "GET", Path: "/api/toolkit/share-marks", Class: KeyOrSession, Tag: "share", Summary: "Reviewers' marks on the house's frames, newest first; disagreeing recipients give a row each",
			Query: ShareMarksQuery{}, Out: []Out{{Status: 200, Body: MarksBody{}}}, Errors: []*errs.Error{share.ErrBadMarkAssets}, Handler: s.shareMarks},
		{Method: "GET", Path: "/api/toolkit/folders/{id}/coverage", Class: KeyOrSession, Tag: "share", Summary: "Which pieces of a collection have a director-approved frame, and where each stands with reviewers; derived at read time",
			Out: []Out{{Status: 200, Body: share.Coverage{}}}, Errors: notFound, Handler: s.folderCoverage},

		{Method: "GET", Path: "/api/share/{token}", Class: Reviewer, Tag: "share", Summary: "The reviewer's manifest: labels and positions, no ids",
			Out: []Out{{Status: 200, Body: share.Manifest{}}}, Errors: notFound, Handler: s.shareManifest},
		{Method: "GET", Path: "/api/share/{token}/f/{i}", Class: Reviewer, Tag: "share", Summary: "A frame's bytes (original or thumbnail), private max-age 3600",
			Query: ShareFrameQuery{}, Out: fileOut(), Errors: notFound, Handler: s.shareFrame},
		{Method: "POST", Path: "/api/share/{token}/mark", Class: Reviewer, Tag: "share", Summary: "Mark a frame keep or pass, with a note and drawings; 300 an hour per address",
			In: share.MarkRequest{}, Out: []Out{{Status: 200, Body: share.Recorded{}}},
			Errors: []*errs.Error{share.ErrNoteTooLong, share.ErrBadDrawing, errs.NotFound, errs.RateLimited}, Handler: s.shareMark},
		{Method: "POST", Path: "/api/share/{token}/finish", Class: Reviewer, Tag: "share", Summary: "Finish the review: the minting member is told in-app and by e-mail; repeatable",
			Out: []Out{{Status: 200, Body: share.Finished{}}}, Errors: []*errs.Error{share.ErrNothingMarked, errs.NotFound}, Handler: s.shareFinish},
		{Method: "GET", Path: "/s", Class: Public, Tag: "share", Summary: "The reviewer's page (HTML); it reads the token from the URL's fragment",
			Out: []Out{{Status: 200, ContentType: "text/html"}}, Handler: s.reviewerPage},
	}
}
