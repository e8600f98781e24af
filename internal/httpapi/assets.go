package httpapi

import (
	"errors"
	"io"
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
	Assets []asset.Asset `json:"assets"`
}

// AssetsQuery filters the asset list.
type AssetsQuery struct {
	FolderID string `query:"folderId" description:"Only the assets of this collection; root for those at the root. Absent: every asset. A collection that is not this house's lists nothing."`
}

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

func (s *Server) listAssets(w http.ResponseWriter, r *http.Request) error {
	as, err := s.svc.Assets.List(r.Context(), auth.From(r.Context()), r.URL.Query().Get("folderId"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, AssetsBody{Assets: as})
}

func (s *Server) uploadAsset(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	if err := asset.CanChange(p); err != nil {
		return err // before a byte of the body is read
	}
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

// readUpload streams the upload's form: the body is capped, so nothing
// larger than an image and its fields is ever read, and the file part is
// refused as soon as it passes 12 MB.
func readUpload(w http.ResponseWriter, r *http.Request) (asset.Upload, error) {
	if r.ContentLength > maxUploadBody {
		return asset.Upload{}, asset.ErrTooLarge // refused before a byte is read
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return asset.Upload{}, errs.Msg(errs.BadForm, "The body must be a multipart/form-data form.")
	}
	var u asset.Upload
	var haveFile bool
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return asset.Upload{}, formError(err)
		}
		switch name := part.FormName(); name {
		case "file":
			if haveFile {
				return asset.Upload{}, errs.Msg(errs.BadForm, "Send one file per upload.")
			}
			data, err := io.ReadAll(io.LimitReader(part, asset.MaxBytes+1))
			if err != nil {
				return asset.Upload{}, formError(err)
			}
			if len(data) > asset.MaxBytes {
				return asset.Upload{}, asset.ErrTooLarge
			}
			u.Data, u.Filename, haveFile = data, part.FileName(), true
		case "kind", "folderId", "name", "sku", "classify":
			b, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
			if err != nil {
				return asset.Upload{}, formError(err)
			}
			if len(b) > maxFormField {
				return asset.Upload{}, errs.Msg(errs.BadForm, "The field "+name+" is too long.")
			}
			v := strings.TrimSpace(string(b))
			switch name {
			case "kind":
				u.Kind = v
			case "folderId":
				u.FolderID = v
			case "name":
				u.Name = v
			case "sku":
				u.SKU = string(b) // a SKU is kept as given; CheckSKU refuses surrounding spaces
			case "classify":
				switch v {
				case "1", "true":
					u.Classify = true
				case "", "0", "false":
				default:
					return asset.Upload{}, errs.Msg(errs.BadForm, "classify is 1 or 0.")
				}
			}
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return asset.Upload{}, formError(err)
			}
		}
		part.Close()
	}
	if !haveFile {
		return asset.Upload{}, asset.ErrNoImage
	}
	if len(u.Data) == 0 {
		return asset.Upload{}, asset.ErrEmptyImage
	}
	return u, nil
}

func formError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return asset.ErrTooLarge
	}
	return errs.Wrap(errs.BadForm, err)
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
		{Method: "GET", Path: "/api/toolkit/assets", Class: KeyOrSession, Tag: "assets", Summary: "List the library, newest first",
			Query: AssetsQuery{}, Out: []Out{{Status: 200, Body: AssetsBody{}}}, Handler: s.listAssets},
		{Method: "POST", Path: "/api/toolkit/assets/upload", Class: KeyOrSession, Tag: "assets", Summary: "Upload an image as an asset (classify=1 reads kind and name for one token)",
			In: Multipart{Form: UploadForm{}}, Out: []Out{{Status: 201, Body: AssetBody{}}},
			Errors: []*errs.Error{errs.Forbidden, asset.ErrNoImage, asset.ErrEmptyImage, asset.ErrTooLarge, asset.ErrBadKind, asset.ErrBadSKU,
				errs.NotFound, ledger.ErrInsufficientTokens}, Handler: s.uploadAsset},
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
