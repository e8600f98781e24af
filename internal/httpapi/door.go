package httpapi

import (
	"encoding/json"
	"io"
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/invite"
)

// checkEmail never refuses: whatever the body holds, it answers 200. A
// body that never arrived is another matter (408, or nothing for a client
// that left).
func (s *Server) checkEmail(w http.ResponseWriter, r *http.Request) error {
	var in invite.CheckEmailRequest
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSON))
	if err != nil && r.Context().Err() != nil {
		return err
	}
	_ = json.Unmarshal(b, &in)
	out, err := s.svc.Door.CheckEmail(r.Context(), clientKey(r), in.Email)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) lookInvitation(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Door.Look(r.Context(), queryOf[invite.TokenQuery](r).Token)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) acceptInvitation(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[invite.AcceptRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Door.Accept(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) applyForInvite(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[invite.ApplyRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Door.Apply(r.Context(), clientKey(r), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) redeemCode(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[invite.RedeemRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Door.Redeem(r.Context(), clientKey(r), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) myInvites(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Door.Mine(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) previewLinks(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[invite.PreviewRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Door.Preview(r.Context(), clientKey(r), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// doorRoutes are the routes of the door in (SPEC §4.13, §3 Invitation applicant, DECISIONS §8).
func (s *Server) doorRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/toolkit/check-email", Class: Public, Tag: "invites", Lenient: true,
			Summary: "Whether an account uses an address; never refused (past 10 a minute per address, both false)",
			In:      invite.CheckEmailRequest{}, Out: []Out{{Status: 200, Body: invite.EmailStatus{}}}, Handler: s.checkEmail},
		{Method: "GET", Path: "/api/toolkit/invite/accept", Class: Public, Tag: "invites",
			Summary: "The address an operator's invitation was issued for",
			Query:   invite.TokenQuery{}, Out: []Out{{Status: 200, Body: invite.InvitedEmail{}}},
			Errors: []*errs.Error{account.ErrBadToken, errs.NotFound, invite.ErrAccepted}, Handler: s.lookInvitation},
		{Method: "POST", Path: "/api/toolkit/invite/accept", Class: KeyOrSession, Tag: "invites",
			Summary: "Accept an operator's invitation issued for your address; again is a no-op",
			In:      invite.AcceptRequest{}, Out: []Out{{Status: 200, Body: invite.AcceptAnswer{}}},
			Errors: []*errs.Error{account.ErrBadToken, errs.EmailMismatch, errs.NotFound}, Handler: s.acceptInvitation},
		{Method: "POST", Path: "/api/toolkit/invite/request", Class: Public, Tag: "invites",
			Summary: "Ask to be let in: join the applicant list (5 an hour per address)",
			In:      invite.ApplyRequest{}, Out: []Out{{Status: 200, Body: invite.Applied{}}},
			Errors: []*errs.Error{account.ErrBadEmail, invite.ErrDisposable, errs.RateLimited}, Handler: s.applyForInvite},
		{Method: "POST", Path: "/api/toolkit/invite/redeem", Class: Public, Tag: "invites",
			Summary: "Open the door for one address with an invite code; makes no account (10 an hour per address)",
			In:      invite.RedeemRequest{}, Out: []Out{{Status: 200, Body: invite.Opened{}}},
			Errors: []*errs.Error{invite.ErrBadCode, account.ErrBadEmail, invite.ErrDisposable, invite.ErrCodeSpent,
				invite.ErrCodeExpired, invite.ErrCodeRevoked, errs.NotFound, errs.RateLimited}, Handler: s.redeemCode},
		{Method: "GET", Path: "/api/toolkit/invites/mine", Class: KeyOrSession, Tag: "invites",
			Summary: "Your own invite code, minted on first read, with its counts and what it brings",
			Out:     []Out{{Status: 200, Body: invite.Referral{}}}, Handler: s.myInvites},
		{Method: "POST", Path: "/api/toolkit/invite/preview", Class: Public, Tag: "invites",
			Summary: "Cards for 1 to 6 links, read through the URL guard (20 a minute per address)",
			In:      invite.PreviewRequest{}, Out: []Out{{Status: 200, Body: invite.Cards{}}},
			Errors: []*errs.Error{errs.RateLimited}, Handler: s.previewLinks},
	}
}
