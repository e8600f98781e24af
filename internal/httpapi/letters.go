package httpapi

import (
	"errors"
	"io"
	"net/http"

	"studio/internal/errs"
	"studio/internal/letters"
)

func (s *Server) drip(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Letters.CheckDrip(r.Header.Get("Authorization")); err != nil {
		return err
	}
	in, err := decode[letters.DripRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Letters.Drip(r.Context(), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) emailWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSON))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			return errs.BodyTooLarge
		}
		return letters.ErrUnparseable
	}
	out, err := s.svc.Letters.Delivery(r.Context(), r.Header, body)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// lettersRoutes are the routes of the service's letters (SPEC §4.14, DECISIONS §10).
func (s *Server) lettersRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/toolkit/email/drip", Class: SharedSecret, Tag: "email", Summary: "Send a drip letter once per dedupeKey (Authorization: Bearer DRIP_SECRET)",
			In: letters.DripRequest{}, Out: []Out{{Status: 200, Body: letters.DripResult{}}},
			Errors: []*errs.Error{errs.Unauthorized, letters.ErrDripOff, letters.ErrBadRequest}, Handler: s.drip},
		{Method: "POST", Path: "/api/toolkit/email/webhook/resend", Class: SharedSecret, Tag: "email",
			Summary: "Resend's delivery events (Standard Webhooks signed; body: the provider's event object): the letter's status in the e-mail log",
			Out:     []Out{{Status: 200, Body: letters.WebhookResult{}}},
			Errors:  []*errs.Error{letters.ErrUnparseable, letters.ErrBadSignature, letters.ErrWebhookOff, errs.BodyTooLarge}, Handler: s.emailWebhook},
	}
}
