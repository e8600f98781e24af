package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
)

// balance answers the house's balance parts and open holds (DECISIONS §1b).
func (s *Server) balance(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.Ledger.Balance(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, b)
}

// catalog answers the live price list, each tool with its engine, options
// and note (DECISIONS §10).
func (s *Server) catalog(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, s.svc.Jobs.Catalog())
}

// grantTokens credits the grant part of a user's personal house.
func (s *Server) grantTokens(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ledger.GrantRequest](w, r)
	if err != nil {
		return err
	}
	g, err := s.svc.Ledger.Grant(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, g)
}

// billingRoutes are the routes of Billing (SPEC §4.19, DECISIONS §1b and §4) and the admin grant (SPEC §4.17).
func (s *Server) billingRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/ai/billing/balance", Class: KeyOrSession, Tag: "billing", Summary: "The house's token balance and open holds",
			Out: []Out{{Status: 200, Body: ledger.Balance{}}}, Handler: s.balance},
		{Method: "GET", Path: "/api/toolkit/ai/billing/catalog", Class: KeyOrSession, Tag: "billing", Summary: "The live price list: tools by tier, flat lanes, text tools, plans and top-up packs",
			Out: []Out{{Status: 200, Body: job.Catalog{}}}, Handler: s.catalog},
		{Method: "POST", Path: "/api/toolkit/admin/grant-tokens", Class: PlatformAdmin, Tag: "admin", Summary: "Grant tokens to the personal house of a user",
			In: ledger.GrantRequest{}, Out: []Out{{Status: 200, Body: ledger.Granted{}}},
			Errors: []*errs.Error{ledger.ErrUserRequired, ledger.ErrBadTokens, ledger.ErrUserNotFound}, Handler: s.grantTokens},
	}
}
