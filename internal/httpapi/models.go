package httpapi

import (
	"errors"
	"net/http"

	"studio/internal/auth"
	"studio/internal/billing"
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

// ModelCheckoutBody is the answer of POST /api/toolkit/models/{id}/checkout.
type ModelCheckoutBody struct {
	URL        string        `json:"url" description:"The provider's hosted checkout page."`
	CheckoutID string        `json:"checkoutId"`
	Pending    bool          `json:"pending" description:"Always true: the face is the house's only once the provider's signed delivery of the paid order arrives; this route never grants."`
	OK         bool          `json:"ok"`
	Already    bool          `json:"already" description:"True on a repeat click: the house's open checkout for this face is answered again (same url); nothing new was opened."`
	Model      casting.Model `json:"model" description:"The model as the board shows it now (not owned yet)."`
}

// modelCheckout opens the house's checkout for a face: an owner's session
// and a provider first (403, 503: its route's Before, billing's Spend),
// then the face the house may see (404; TAKEN when the house's open
// checkout lost it to another house).
func (s *Server) modelCheckout(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	m, err := s.svc.Casting.Get(r.Context(), p, r.PathValue("id"))
	if errors.Is(err, errs.NotFound) {
		return s.svc.Billing.FaceGone(r.Context(), p, r.PathValue("id"))
	} else if err != nil {
		return err
	}
	out, err := s.svc.Billing.ModelCheckout(r.Context(), p, billing.Face{ID: m.ID, Name: m.Name, Tier: string(m.Tier),
		PriceCents: m.PriceCents, Currency: m.Currency, Owned: m.Owned, Mine: m.Mine})
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ModelCheckoutBody{URL: out.URL, CheckoutID: out.CheckoutID, Pending: out.Pending, OK: out.OK,
		Already: out.Already, Model: m})
}

func (s *Server) modelImage(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[ModelImageQuery](r)
	f, err := s.svc.Casting.Image(r.Context(), auth.From(r.Context()), r.PathValue("id"), q.N)
	if err != nil {
		return err
	}
	return s.serveAsset(w, r, f)
}

// modelsRoutes are the routes of the casting board (SPEC §4.10).
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
		{Method: "POST", Path: "/api/toolkit/models/{id}/checkout", Class: KeyOrSession, Tag: "models",
			Summary: "Open a hosted checkout for a face (owner's session only); never grants: the provider's signed delivery makes it the house's (an exclusive face its exclusive claim); a repeat click answers the same url",
			Out:     []Out{{Status: 200, Body: ModelCheckoutBody{}}},
			Errors: moneyErrors(billing.ErrAlreadyYours, billing.ErrFreeModel, billing.ErrNotForSale, errs.NotFound, billing.ErrTaken,
				billing.ErrCheckoutPending, billing.ErrCheckout), Before: s.svc.Billing.Spend, Handler: s.modelCheckout},
		{Method: "GET", Path: "/api/toolkit/models/{id}/image", Class: KeyOrSession, Tag: "models", Summary: "A model's image: the cover (n=0) and previews the model's coverUrl and previewUrls name",
			Query: ModelImageQuery{}, Out: fileOut(), Errors: []*errs.Error{errs.NotFound}, Handler: s.modelImage},
	}
}
