package httpapi

import (
	"net"
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
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
	out, err := s.svc.Accounts.SignUp(r.Context(), in)
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
	out, err := s.svc.Accounts.SignIn(r.Context(), in, host)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, out.Token, out.Session)
	return encode(w, http.StatusOK, UserBody{User: out.User})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Accounts.SignOut(r.Context(), auth.From(r.Context())); err != nil {
		return err
	}
	clearSessionCookie(w, s.cfg.SecureCookie)
	return encode(w, http.StatusOK, Success{Success: true})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	v, err := s.svc.Accounts.GetSession(r.Context(), auth.From(r.Context()), sessionFrom(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, v)
}

func (s *Server) listHouses(w http.ResponseWriter, r *http.Request) error {
	hs, err := s.svc.Accounts.Houses(r.Context(), auth.From(r.Context()))
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
	if err := s.svc.Accounts.SetActive(r.Context(), auth.From(r.Context()), in.OrganizationID); err != nil {
		return err
	}
	return encode(w, http.StatusOK, ActiveBody{ActiveOrganizationID: in.OrganizationID})
}

func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Accounts.VerifyEmail(r.Context(), queryOf[VerifyQuery](r).Token); err != nil {
		return err
	}
	return encode(w, http.StatusOK, VerifiedBody{EmailVerified: true})
}

// identityRoutes are the routes of Identity (DECISIONS §2).
func (s *Server) identityRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/auth/sign-up/email", Class: Public, Tag: "auth", Summary: "Create an account, a personal house and a session",
			In: account.SignUpRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrWeakPassword, account.ErrBadEmail, account.ErrRegistered, account.ErrInviteNeeded}, Handler: s.signUp},
		{Method: "POST", Path: "/api/auth/sign-in/email", Class: Public, Tag: "auth", Summary: "Sign in with e-mail and password",
			In: account.SignInRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrInvalidCreds, errs.RateLimited}, Handler: s.signIn},
		{Method: "POST", Path: "/api/auth/sign-out", Class: SessionOnly, Tag: "auth", Summary: "End the session",
			Out: []Out{{Status: 200, Body: Success{}}}, Handler: s.signOut},
		{Method: "GET", Path: "/api/auth/get-session", Class: SessionOnly, Tag: "auth", Summary: "The current session and user",
			Out: []Out{{Status: 200, Body: account.SessionView{}}}, Handler: s.getSession},
		{Method: "GET", Path: "/api/auth/organization/list", Class: SessionOnly, Tag: "auth", Summary: "Houses where the user holds a seat",
			Out: []Out{{Status: 200, Body: HousesBody{}}}, Handler: s.listHouses},
		{Method: "POST", Path: "/api/auth/organization/set-active", Class: SessionOnly, Tag: "auth", Summary: "Switch the session's active house",
			In: account.SetActiveRequest{}, Out: []Out{{Status: 200, Body: ActiveBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.setActive},
		{Method: "GET", Path: "/api/auth/verify-email", Class: Public, Tag: "auth", Summary: "Confirm an e-mail address",
			Query: VerifyQuery{}, Out: []Out{{Status: 200, Body: VerifiedBody{}}}, Errors: []*errs.Error{account.ErrBadToken}, Handler: s.verifyEmail},
	}
}
