package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/casting"
	"studio/internal/errs"
)

// ModelsBody is the casting board.
type ModelsBody struct {
	Models []casting.Model `json:"models" description:"Yours (own models and faces the house holds), then free, sale and exclusive faces, newest first in each band."`
}

// ModelBody wraps one model.
type ModelBody struct {
	Model casting.Model `json:"model"`
}

// ModelImageQuery is the query of GET /api/toolkit/models/{id}/image.
type ModelImageQuery struct {
	N int `query:"n" minimum:"0" maximum:"24" default:"0" refuse:"NOT_FOUND" description:"Which image: 0 is the cover (an own model's collage), then the previews in dossier order."`
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) error {
	ms, err := s.svc.Casting.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ModelsBody{Models: ms})
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.Casting.Get(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ModelBody{Model: m})
}

func (s *Server) patchModel(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[casting.PatchRequest](w, r)
	if err != nil {
		return err
	}
	m, err := s.svc.Casting.Patch(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ModelBody{Model: m})
}

func (s *Server) createOwnModel(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[casting.OwnRequest](w, r)
	if err != nil {
		return err
	}
	m, err := s.svc.Casting.CreateOwn(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, ModelBody{Model: m})
}

func (s *Server) modelImage(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[ModelImageQuery](r)
	f, err := s.svc.Casting.Image(r.Context(), auth.From(r.Context()), r.PathValue("id"), q.N)
	if err != nil {
		return err
	}
	return s.serveAsset(w, r, f)
}

// modelsRoutes are the routes of the casting board (SPEC §4.10; checkout
// comes with billing).
func (s *Server) modelsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/models", Class: KeyOrSession, Tag: "models", Summary: "The casting board: own models and the catalogue faces the house may see",
			Out: []Out{{Status: 200, Body: ModelsBody{}}}, Handler: s.listModels},
		{Method: "POST", Path: "/api/toolkit/models/own", Class: KeyOrSession, Tag: "models", Summary: "Make a model from the house's own photographs (free; a collage is composed from them)",
			In: casting.OwnRequest{}, Out: []Out{{Status: 201, Body: ModelBody{}}},
			Errors: []*errs.Error{casting.ErrNameRequired, casting.ErrBadAssetIDs, errs.Forbidden, errs.AssetNotFound}, Handler: s.createOwnModel},
		{Method: "GET", Path: "/api/toolkit/models/{id}", Class: KeyOrSession, Tag: "models", Summary: "One model: the house's own, or a face no other house holds exclusively",
			Out: []Out{{Status: 200, Body: ModelBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getModel},
		{Method: "PATCH", Path: "/api/toolkit/models/{id}", Class: KeyOrSession, Tag: "models", Summary: "Change an own model's sheets and traits (traits merged); free",
			In: casting.PatchRequest{}, Out: []Out{{Status: 200, Body: ModelBody{}}},
			Errors: []*errs.Error{casting.ErrBadSheetIDs, casting.ErrNotYours, errs.NotFound, errs.AssetNotFound}, Handler: s.patchModel},
		{Method: "GET", Path: "/api/toolkit/models/{id}/image", Class: KeyOrSession, Tag: "models", Summary: "A model's image: the cover (n=0) and previews the model's coverUrl and previewUrls name",
			Query: ModelImageQuery{}, Out: fileOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.modelImage},
	}
}
