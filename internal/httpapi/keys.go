package httpapi

import (
	"net/http"

	"studio/internal/apikey"
	"studio/internal/auth"
	"studio/internal/errs"
)

// KeysBody lists API keys.
type KeysBody struct {
	Keys []apikey.Key `json:"keys"`
}

// RevokedBody confirms a revocation.
type RevokedBody struct {
	Revoked bool   `json:"revoked"`
	ID      string `json:"id"`
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) error {
	ks, err := s.svc.Keys.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, KeysBody{Keys: ks})
}

func (s *Server) mintKey(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[apikey.MintRequest](w, r)
	if err != nil {
		return err
	}
	k, err := s.svc.Keys.Mint(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, k)
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.svc.Keys.Revoke(r.Context(), auth.From(r.Context()), id); err != nil {
		return err
	}
	return encode(w, http.StatusOK, RevokedBody{Revoked: true, ID: id})
}

// keysRoutes are the routes of API keys (SPEC §4.1).
func (s *Server) keysRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "List the house's API keys",
			Out: []Out{{Status: 200, Body: KeysBody{}}}, Handler: s.listKeys},
		{Method: "POST", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "Mint an API key",
			In: apikey.MintRequest{}, Out: []Out{{Status: 201, Body: apikey.Minted{}}},
			Errors: []*errs.Error{errs.Forbidden, apikey.ErrBadRole}, Handler: s.mintKey},
		{Method: "DELETE", Path: "/api/keys/{id}", Class: SessionOnly, Tag: "keys", Summary: "Revoke an API key",
			Out: []Out{{Status: 200, Body: RevokedBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.revokeKey},
	}
}
