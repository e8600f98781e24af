package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/ledger"
)

// balance answers the house's balance parts and open holds (DECISIONS §1b).
func (s *Server) balance(w http.ResponseWriter, r *http.Request) error {
	b, err := s.ledger.Balance(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, b)
}

// catalog answers the live price list.
func (s *Server) catalog(w http.ResponseWriter, r *http.Request) error {
	return encode(w, http.StatusOK, s.ledger.Catalog())
}

// grantTokens credits the grant part of a user's personal house.
func (s *Server) grantTokens(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[ledger.GrantRequest](w, r)
	if err != nil {
		return err
	}
	g, err := s.ledger.Grant(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, g)
}
