package httpapi

import (
	"net"
	"net/http"

	"studio/internal/account"
	"studio/internal/apikey"
	"studio/internal/auth"
)

// UserBody wraps a user.
type UserBody struct {
	User account.User `json:"user"`
}

// Success is {success: true}.
type Success struct {
	Success bool `json:"success"`
}

// HousesBody lists the caller's houses.
type HousesBody struct {
	Organizations []account.Membership `json:"organizations"`
}

// ActiveBody names the active house.
type ActiveBody struct {
	ActiveOrganizationID string `json:"activeOrganizationId"`
}

// VerifyQuery is the query of the verification link.
type VerifyQuery struct {
	Token string `query:"token" required:"true"`
}

// VerifiedBody confirms a verified address.
type VerifiedBody struct {
	EmailVerified bool `json:"emailVerified"`
}

func (s *Server) signUp(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[account.SignUpRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.accounts.SignUp(r.Context(), in)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, out.Token, out.Session)
	return encode(w, http.StatusOK, UserBody{User: out.User})
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[account.SignInRequest](w, r)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	out, err := s.accounts.SignIn(r.Context(), in, host)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, out.Token, out.Session)
	return encode(w, http.StatusOK, UserBody{User: out.User})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if err := s.accounts.SignOut(r.Context(), auth.From(r.Context())); err != nil {
		return err
	}
	clearSessionCookie(w, s.cfg.SecureCookie)
	return encode(w, http.StatusOK, Success{Success: true})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	v, err := s.accounts.GetSession(r.Context(), auth.From(r.Context()), sessionFrom(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) listHouses(w http.ResponseWriter, r *http.Request) error {
	hs, err := s.accounts.Houses(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, HousesBody{Organizations: hs})
}

func (s *Server) setActive(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[account.SetActiveRequest](w, r)
	if err != nil {
		return err
	}
	if err := s.accounts.SetActive(r.Context(), auth.From(r.Context()), in.OrganizationID); err != nil {
		return err
	}
	return encode(w, http.StatusOK, ActiveBody{ActiveOrganizationID: in.OrganizationID})
}

func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	if err := s.accounts.VerifyEmail(r.Context(), r.URL.Query().Get("token")); err != nil {
		return err
	}
	return encode(w, http.StatusOK, VerifiedBody{EmailVerified: true})
}

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
	ks, err := s.keys.List(r.Context(), auth.From(r.Context()))
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
	k, err := s.keys.Mint(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, k)
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.keys.Revoke(r.Context(), auth.From(r.Context()), id); err != nil {
		return err
	}
	return encode(w, http.StatusOK, RevokedBody{Revoked: true, ID: id})
}
