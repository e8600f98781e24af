package httpapi

import (
	"mime/multipart"
	"net/http"

	"studio/internal/ai"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/brand"
	"studio/internal/errs"
	"studio/internal/ledger"
)

// ProfileBody wraps the brand profile.
type ProfileBody struct {
	OK      bool          `json:"ok"`
	Profile brand.Profile `json:"profile"`
}

// DNABody answers a DNA read.
type DNABody struct {
	OK      bool          `json:"ok"`
	Profile brand.Profile `json:"profile"`
	Charged int64         `json:"charged" description:"Tokens the read cost: 0 for the house's first read, 2 for each later one."`
}

// DNAForm documents the multipart body of POST /api/toolkit/brand/dna.
type DNAForm struct {
	Image    []*multipart.FileHeader `formData:"image" required:"true" description:"1 to 10 photographs of the house (JPEG, PNG or WebP; 12 MB each, 32 MB together); repeat the field."`
	Vibe     string                  `formData:"vibe" description:"A JSON array of mood words the house uses for itself, e.g. [\"quiet\", \"coastal\"]; they lead the read's vibe."`
	Products string                  `formData:"products" description:"What the house makes, in plain words (or a JSON array of strings); guides the read."`
}

// MarkBody wraps one mark.
type MarkBody struct {
	Mark brand.Mark `json:"mark"`
}

// MarkDeleted answers a mark's removal.
type MarkDeleted struct {
	OK bool   `json:"ok"`
	ID string `json:"id"`
}

// MarksQuery is the query of GET /api/toolkit/brand/marks.
type MarksQuery struct {
	CollectionID string `query:"collectionId" refuse:"NOT_FOUND" description:"A collection of the house: its override is listed and riding says which set its frames carry."`
}

// dnaForm is the form of a DNA read: up to 10 images of 12 MB, 32 MB in
// all (a body past the set and the form around it is SET_TOO_LARGE), and
// two short text fields.
var dnaForm = formSpec{
	maxBody: brand.MaxSetBytes + 1<<20, tooLarge: brand.ErrSetTooLarge,
	files: map[string]int{"image": brand.MaxImages}, named: true, maxFiles: brand.MaxImages,
	texts: []string{"vibe", "products"}, maxText: 8 << 10,
}

func (s *Server) getBrand(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.Brand.Profile(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ProfileBody{OK: true, Profile: p})
}

func (s *Server) patchBrand(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[brand.PatchRequest](w, r)
	if err != nil {
		return err
	}
	p, err := s.svc.Brand.Patch(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ProfileBody{OK: true, Profile: p})
}

func (s *Server) readDNA(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	f, err := readForm(w, r, dnaForm)
	if err != nil {
		return err
	}
	req := brand.DNARequest{Vibe: f.values["vibe"], Products: f.values["products"]}
	for _, file := range f.files {
		req.Images = append(req.Images, file.data)
	}
	profile, charged, err := s.svc.Brand.ReadDNA(r.Context(), p, req)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DNABody{OK: true, Profile: profile, Charged: charged})
}

func (s *Server) listMarks(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[MarksQuery](r)
	list, err := s.svc.Brand.Marks(r.Context(), auth.From(r.Context()), q.CollectionID)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, list)
}

func (s *Server) registerMark(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[brand.RegisterRequest](w, r)
	if err != nil {
		return err
	}
	m, err := s.svc.Brand.Register(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, MarkBody{Mark: m})
}

func (s *Server) patchMark(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[brand.MarkPatch](w, r)
	if err != nil {
		return err
	}
	m, err := s.svc.Brand.PatchMark(r.Context(), p, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, MarkBody{Mark: m})
}

func (s *Server) deleteMark(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.svc.Brand.DeleteMark(r.Context(), auth.From(r.Context()), id); err != nil {
		return err
	}
	return encode(w, http.StatusOK, MarkDeleted{OK: true, ID: id})
}

// brandRoutes are the routes of the brand profile and its marks (SPEC §4.8).
func (s *Server) brandRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/brand", Class: KeyOrSession, Tag: "brand", Summary: "The house's brand profile; empty defaults when it has none",
			Out: []Out{{Status: 200, Body: ProfileBody{}}}, Handler: s.getBrand},
		{Method: "PATCH", Path: "/api/toolkit/brand", Class: KeyOrSession, Tag: "brand",
			Summary: "Merge fields into the brand profile, clamped to its bounds; dnaRuns is never written",
			In:      brand.PatchRequest{}, Out: []Out{{Status: 200, Body: ProfileBody{}}},
			Errors: []*errs.Error{errs.Forbidden}, Handler: s.patchBrand},
		{Method: "POST", Path: "/api/toolkit/brand/dna", Class: KeyOrSession, Tag: "brand",
			Summary: "Read the house's visual DNA from 1 to 10 photographs: the first read is free, each later one 2 tokens",
			In:      Multipart{Form: DNAForm{}}, Out: []Out{{Status: 200, Body: DNABody{}}},
			Errors: []*errs.Error{brand.ErrNoImages, ledger.ErrInsufficientTokens, ai.ErrNeedsBilling, errs.Forbidden,
				asset.ErrTooLarge, brand.ErrSetTooLarge, ai.ErrBadOutput, ai.ErrFailed, ai.ErrNotConfigured},
			Before: auth.Principal.MayEdit, Handler: s.readDNA},
		{Method: "GET", Path: "/api/toolkit/brand/marks", Class: KeyOrSession, Tag: "brand",
			Summary: "The house's marks, a collection's override, and which set rides",
			Query:   MarksQuery{}, Out: []Out{{Status: 200, Body: brand.MarksList{}}},
			Errors: []*errs.Error{brand.ErrNoCollection}, Handler: s.listMarks},
		{Method: "POST", Path: "/api/toolkit/brand/marks", Class: KeyOrSession, Tag: "brand",
			Summary: "Register an asset uploaded with kind mark as a mark of the house set or of a collection; free",
			In:      brand.RegisterRequest{}, Out: []Out{{Status: 201, Body: MarkBody{}}},
			Errors: []*errs.Error{brand.ErrAssetRequired, brand.ErrBadMaterial, brand.ErrNotAMark, brand.ErrCannotEditMarks,
				brand.ErrAssetNotFound, brand.ErrNoCollection, brand.ErrRegistered}, Handler: s.registerMark},
		{Method: "PATCH", Path: "/api/toolkit/brand/marks/{id}", Class: KeyOrSession, Tag: "brand",
			Summary: "Change a mark's material, placement, note or order; material cannot be cleared",
			In:      brand.MarkPatch{}, Out: []Out{{Status: 200, Body: MarkBody{}}},
			Errors: []*errs.Error{brand.ErrBadMaterial, brand.ErrCannotEditMarks, errs.NotFound}, Handler: s.patchMark},
		{Method: "DELETE", Path: "/api/toolkit/brand/marks/{id}", Class: KeyOrSession, Tag: "brand",
			Summary: "Remove a mark; its asset stays in the library",
			Out:     []Out{{Status: 200, Body: MarkDeleted{}}},
			Errors:  []*errs.Error{brand.ErrCannotEditMarks, errs.NotFound}, Handler: s.deleteMark},
	}
}
