package httpapi

import (
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
)

func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Accounts.Me(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) exportMe(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Accounts.Export(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return encode(w, http.StatusOK, out)
}

func (s *Server) deleteMe(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[account.DeleteRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Accounts.Delete(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	clearSessionCookie(w, s.cfg.SecureCookie)
	return encode(w, http.StatusOK, out)
}

// meRoutes are the routes of a user's own data (SPEC §4.19). They take a
// session: a key belongs to a house, not to a person.
func (s *Server) meRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/me", Class: SessionOnly, Tag: "me", Summary: "You and your houses",
			Out: []Out{{Status: 200, Body: account.Me{}}}, Handler: s.me},
		{Method: "GET", Path: "/me/export", Class: SessionOnly, Tag: "me",
			Summary: "Every row of your own as JSON: profile, seats, sessions and keys (no secrets), memories, invitations, letters",
			Out:     []Out{{Status: 200, Body: account.Export{}}}, Handler: s.exportMe},
		{Method: "POST", Path: "/me/delete", Class: SessionOnly, Tag: "me",
			Summary: "Erase your account: personal data, sessions and keys; houses keep their work without your name",
			In:      account.DeleteRequest{}, Out: []Out{{Status: 200, Body: account.Erased{}}},
			Errors: []*errs.Error{account.ErrConfirm, account.ErrSoleOwner}, Handler: s.deleteMe},
	}
}
