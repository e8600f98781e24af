package httpapi

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"studio/internal/auth"
	"studio/internal/billing"
	"studio/internal/casting"
	"studio/internal/errs"
	"studio/internal/look"
)

// faceOf is a casting board entry as billing reads it.
func faceOf(m casting.Model) billing.Face {
	return billing.Face{ID: m.ID, Name: m.Name, Tier: string(m.Tier), PriceCents: m.PriceCents, Currency: m.Currency,
		Owned: m.Owned, Mine: m.Mine}
}

func (s *Server) explore(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	ms, err := s.svc.Casting.List(r.Context(), p)
	if err != nil {
		return err
	}
	faces, covers := make([]billing.Face, 0, len(ms)), make(map[string]string, len(ms))
	for _, m := range ms {
		faces = append(faces, faceOf(m))
		covers[m.ID] = m.CoverURL
	}
	pv, err := s.svc.Looks.Postures(r.Context(), p)
	if err != nil {
		return err
	}
	postures := []billing.Offering{}
	for _, lp := range pv.Library {
		if look.Explorable(lp) {
			postures = append(postures, billing.Offering{Kind: billing.OfferPosture, ID: lp.ID, Name: lp.Name, Tier: strconv.Itoa(lp.Tier),
				Currency: billing.ModelCurrency, Free: true, Taken: slices.Contains(pv.Prefs.ExploreAdded, lp.ID)})
		}
	}
	out, err := s.svc.Billing.Explore(r.Context(), p, faces, covers, postures)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// takeOffering takes an offering (its route's Before, billing's AdmitTake,
// refused a viewer before anything is read): a face
// is found as the board shows it (the one 404; TAKEN when the house's open
// checkout lost it); a free face is granted, a priced offering opens its
// checkout (an owner's session and a provider first).
func (s *Server) takeOffering(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	kind, id := r.PathValue("kind"), r.PathValue("id")
	var out billing.TakeAnswer
	var err error
	switch kind {
	case billing.OfferModel:
		var m casting.Model
		m, err = s.svc.Casting.Get(r.Context(), p, id)
		if errors.Is(err, errs.NotFound) {
			return s.svc.Billing.FaceGone(r.Context(), p, id)
		} else if err != nil {
			return err
		}
		out, err = s.svc.Billing.TakeFace(r.Context(), s.svc.Claims, p, faceOf(m))
	case billing.OfferPosture:
		var added bool
		if added, err = s.svc.Looks.AddExplored(r.Context(), p, id); err == nil && !added {
			err = billing.ErrAlreadyYours
		}
		out = billing.TakeAnswer{Kind: kind, ID: id, Granted: added}
	default:
		out, err = s.svc.Billing.TakeOffer(r.Context(), p, kind, id)
	}
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// exploreRoutes are the routes of Explore (SPEC §4.19).
func (s *Server) exploreRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/explore", Class: KeyOrSession, Tag: "billing",
			Summary: "Offerings the house may take: catalogue faces, postures past the staples, top-up packs and plans",
			Out:     []Out{{Status: 200, Body: billing.ExploreBody{}}}, Handler: s.explore},
		{Method: "POST", Path: "/api/toolkit/explore/{kind}/{id}/take", Class: KeyOrSession, Tag: "billing",
			Summary: "Take an offering: a free face or a posture is granted now (a member may); a priced one opens its hosted checkout (owner's session only) and is granted by the provider's signed delivery",
			Out:     []Out{{Status: 200, Body: billing.TakeAnswer{}}},
			Errors: moneyErrors(billing.ErrAlreadyYours, billing.ErrNotForSale, errs.NotFound, billing.ErrTaken, billing.ErrCheckoutPending,
				billing.ErrCheckout), Before: billing.AdmitTake, Handler: s.takeOffering},
	}
}
