package httpapi

import (
	"mime/multipart"
	"net/http"
	"strings"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
)

// AssetBody wraps one asset.
type AssetBody struct {
	Asset asset.Asset `json:"asset"`
}

// AssetsBody lists assets.
type AssetsBody struct {
	Assets     []asset.Asset `json:"assets"`
	NextCursor *string       `json:"nextCursor" description:"Pass as before for the next page; null on the last page and when no limit was asked."`
}

// AssetsQuery filters and pages the asset list.
type AssetsQuery struct {
	FolderID string  `query:"folderId" refuse:"BAD_FOLDER" description:"Only the assets of this collection; root for those at the root. Absent: every asset. A collection that is not this house's lists nothing."`
	Limit    *int    `query:"limit" minimum:"1" maximum:"1000" description:"At most this many assets, and a nextCursor when more follow. Absent: the whole list (the contract's default)."`
	Before   *string `query:"before" refuse:"BAD_CURSOR" description:"A nextCursor of an earlier answer: the assets below it, newest first."`
}

// errBadAssetsLimit refuses a page size outside the documented range.
var errBadAssetsLimit = errs.Msg(errs.BadLimit, "limit must be a whole number from 1 to 1000.")

// UpdatedBody counts the assets a batch patch changed.
type UpdatedBody struct {
	Updated int `json:"updated"`
}

// DeletedBody counts the assets a batch delete removed.
type DeletedBody struct {
	Deleted int `json:"deleted"`
}

// GroupBody names a new group.
type GroupBody struct {
	GroupID string `json:"groupId"`
}

// UploadForm documents the multipart body of POST /api/toolkit/assets/upload.
type UploadForm struct {
	File     *multipart.FileHeader `formData:"file" required:"true" description:"A JPEG, PNG or WebP image of at most 12 MB and 50 megapixels. The bytes are sniffed; the declared type is ignored."`
	Kind     string                `formData:"kind" enum:"clothes,accessory,jewelry,model,background,mark" description:"Files the asset; mark is for logo renditions."`
	FolderID string                `formData:"folderId" description:"A collection of this house; absent is the root."`
	Name     string                `formData:"name" maxLength:"200" description:"Absent: read by classify, else the file's name."`
	SKU      string                `formData:"sku" maxLength:"64" description:"The house's own code."`
	Classify string                `formData:"classify" enum:"0,1" description:"1: read kind and name with the AI endpoint for one token, charged only when read; supplied name and kind are kept. Without an AI endpoint the asset stays unclassified and nothing is charged."`
}

// Limits of an upload's form.
const (
	maxUploadBody = asset.MaxBytes + 1<<20 // the image and the form around it
	maxFormField  = 4 << 10
)

// The headers every served asset byte carries (DECISIONS §1).
const (
	assetCacheControl = "private, max-age=3600"
	assetCSP          = "default-src 'none'; sandbox"
)

// listAssets answers the library, whole by default or a page with limit
// and before. One query reads the rows; each is encoded as it is read
// (arrayBody), never collected into a slice first.
func (s *Server) listAssets(w http.ResponseWriter, r *http.Request) error {
	q, err := assetsQuery(queryOf[AssetsQuery](r))
	if err != nil {
		return err
	}
	body := newArrayBody("assets")
	next, err := s.svc.Assets.Each(r.Context(), auth.From(r.Context()), q, func(a asset.Asset) error { return body.add(&a) })
	if err != nil {
		body.release()
		return err
	}
	var cursor *string
	if next != nil {
		c := next.String()
		cursor = &c
	}
	return body.send(w, http.StatusOK, "nextCursor", cursor)
}

// assetsQuery turns the decoded query into the list's: the decoder has
// checked limit's range; the cursor is the list's own to read.
func assetsQuery(in AssetsQuery) (asset.ListQuery, error) {
	q := asset.ListQuery{Folder: in.FolderID}
	if in.Limit != nil {
		q.Limit = *in.Limit
	}
	if in.Before != nil {
		c, err := asset.ParseCursor(*in.Before)
		if err != nil {
			return q, err
		}
		q.Before = &c
	}
	return q, nil
}

func (s *Server) uploadAsset(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	u, err := readUpload(w, r)
	if err != nil {
		return err
	}
	a, err := s.svc.Assets.Upload(r.Context(), p, u)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, AssetBody{Asset: a})
}

// uploadForm is the form of POST /api/toolkit/assets/upload: one file and
// a few short fields.
var uploadForm = formSpec{
	maxBody: maxUploadBody, files: map[string]int{"file": 1}, named: true, maxFiles: 1,
	texts: []string{"kind", "folderId", "name", "sku", "classify"}, maxText: maxFormField,
}

// readUpload reads the upload's form (readForm bounds it).
func readUpload(w http.ResponseWriter, r *http.Request) (asset.Upload, error) {
	f, err := readForm(w, r, uploadForm)
	if err != nil {
		return asset.Upload{}, err
	}
	if len(f.files) == 0 {
		return asset.Upload{}, asset.ErrNoImage
	}
	file := f.files[0]
	if len(file.data) == 0 {
		return asset.Upload{}, asset.ErrEmptyImage
	}
	u := asset.Upload{Data: file.data, Filename: file.filename,
		Kind:     strings.TrimSpace(f.values["kind"]),
		FolderID: strings.TrimSpace(f.values["folderId"]),
		Name:     strings.TrimSpace(f.values["name"]),
		SKU:      f.values["sku"], // a SKU is kept as given; CheckSKU refuses surrounding spaces
	}
	switch strings.TrimSpace(f.values["classify"]) {
	case "1", "true":
		u.Classify = true
	case "", "0", "false":
	default:
		return asset.Upload{}, errs.Msg(errs.BadForm, "classify is 1 or 0.")
	}
	return u, nil
}

func (s *Server) assetFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Assets.File(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.serveAsset(w, r, f)
}

func (s *Server) legacyAssetFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Assets.LegacyFile(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.serveAsset(w, r, f)
}

// serveAsset answers an asset's bytes: a revalidation whose ETag still
// matches is a 304 without touching the blob store; otherwise the bytes go
// through http.ServeContent (ranges, conditional requests). The caching
// and sandboxing headers are set only once the bytes are there, so every
// 404 stays the one 404.
func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request, f asset.File) error {
	if etagMatches(r.Header.Get("If-None-Match"), f.ETag) {
		assetHeaders(w.Header(), f)
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	obj, err := s.svc.Assets.Open(r.Context(), f)
	if err != nil {
		return err
	}
	defer obj.Close()
	h := assetHeaders(w.Header(), f)
	h.Set("Content-Type", f.Mime)
	http.ServeContent(w, r, "", f.CreatedAt.Time, obj)
	return nil
}

func assetHeaders(h http.Header, f asset.File) http.Header {
	h.Set("ETag", f.ETag)
	h.Set("Cache-Control", assetCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", assetCSP)
	return h
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 §13.1.2).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	if strings.TrimSpace(header) == "*" {
		return true
	}
	for cand := range strings.SplitSeq(header, ",") {
		if strings.TrimPrefix(strings.TrimSpace(cand), "W/") == etag {
			return true
		}
	}
	return false
}

func (s *Server) patchAsset(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.PatchRequest](w, r)
	if err != nil {
		return err
	}
	a, err := s.svc.Assets.Patch(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, AssetBody{Asset: a})
}

func (s *Server) batchPatchAssets(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.BatchRequest](w, r)
	if err != nil {
		return err
	}
	n, err := s.svc.Assets.Batch(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, UpdatedBody{Updated: n})
}

func (s *Server) batchDeleteAssets(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.IDsRequest](w, r)
	if err != nil {
		return err
	}
	n, err := s.svc.Assets.Delete(r.Context(), auth.From(r.Context()), in.AssetIDs)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DeletedBody{Deleted: n})
}

func (s *Server) quoteAssets(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.QuoteRequest](w, r)
	if err != nil {
		return err
	}
	q, err := s.svc.Assets.Quote(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, q)
}

func (s *Server) groupAssets(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[asset.GroupRequest](w, r)
	if err != nil {
		return err
	}
	id, err := s.svc.Assets.Group(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, GroupBody{GroupID: id})
}

// imageOut documents an answer of image bytes at status.
func imageOut(status int) []Out {
	out := make([]Out, len(asset.Accepted))
	for i, mt := range asset.Accepted {
		out[i] = Out{Status: status, ContentType: mt}
	}
	return out
}

// fileOut documents the file route's answers: the bytes, a range of them,
// or 304 for a revalidation whose ETag still matches.
func fileOut() []Out {
	out := append(imageOut(http.StatusOK), imageOut(http.StatusPartialContent)...)
	return append(out, Out{Status: http.StatusNotModified})
}

// assetsRoutes are the routes of Assets (SPEC §4.4).
func (s *Server) assetsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/assets", Class: KeyOrSession, Tag: "assets", Summary: "List the library, newest first", Heavy: true,
			Query: AssetsQuery{}, Out: []Out{{Status: 200, Body: AssetsBody{}}}, Errors: []*errs.Error{asset.ErrBadFolder, errBadAssetsLimit, errs.BadCursor},
			Handler: s.listAssets},
		{Method: "POST", Path: "/api/toolkit/assets/upload", Class: KeyOrSession, Tag: "assets", Summary: "Upload an image as an asset (classify=1 reads kind and name for one token)",
			In: Multipart{Form: UploadForm{}}, Out: []Out{{Status: 201, Body: AssetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrNoImage, asset.ErrEmptyImage, asset.ErrTooLarge, asset.ErrBadKind, asset.ErrBadSKU,
				errs.NotFound, ledger.ErrInsufficientTokens}, Before: auth.Principal.MayEdit, Handler: s.uploadAsset},
		{Method: "PATCH", Path: "/api/toolkit/assets/batch", Class: KeyOrSession, Tag: "assets", Summary: "Move, file or approve many assets; other houses' and removed ids are skipped",
			In: asset.BatchRequest{}, Out: []Out{{Status: 200, Body: UpdatedBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadKind, errs.NotFound}, Handler: s.batchPatchAssets},
		{Method: "POST", Path: "/api/toolkit/assets/batch/delete", Class: KeyOrSession, Tag: "assets", Summary: "Remove many assets (soft delete)",
			In: asset.IDsRequest{}, Out: []Out{{Status: 200, Body: DeletedBody{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.batchDeleteAssets},
		{Method: "POST", Path: "/api/toolkit/assets/batch/quote", Class: KeyOrSession, Tag: "assets", Summary: "Price an operation over many assets; spends and reserves nothing",
			In: asset.QuoteRequest{}, Out: []Out{{Status: 200, Body: asset.Quote{}}}, Handler: s.quoteAssets},
		{Method: "POST", Path: "/api/toolkit/assets/group", Class: KeyOrSession, Tag: "assets", Summary: "Group assets, replacing their prior groups; all or nothing",
			In: asset.GroupRequest{}, Out: []Out{{Status: 201, Body: GroupBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadAssetIDs, errs.NotFound}, Handler: s.groupAssets},
		{Method: "GET", Path: "/api/toolkit/assets/{id}", Class: KeyOrSession, Tag: "assets", Summary: "An asset's bytes (legacy route: 403 for another house's asset)",
			Out: fileOut(), Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.legacyAssetFile},
		{Method: "GET", Path: "/api/toolkit/assets/{id}/file", Class: KeyOrSession, Tag: "assets", Summary: "An asset's bytes, cacheable (ETag, If-None-Match, ranges)",
			Out: fileOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.assetFile},
		{Method: "PATCH", Path: "/api/toolkit/assets/{id}", Class: KeyOrSession, Tag: "assets", Summary: "Rename, file or move an asset; an empty patch changes nothing",
			In: asset.PatchRequest{}, Out: []Out{{Status: 200, Body: AssetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrBadKind, asset.ErrBadSKU, asset.ErrBadFolder, errs.NotFound}, Handler: s.patchAsset},
	}
}
