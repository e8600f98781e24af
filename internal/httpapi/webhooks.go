package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/urlguard"
	"studio/internal/webhook"
)

// EndpointsBody lists the house's webhook endpoints.
type EndpointsBody struct {
	Endpoints []webhook.Endpoint `json:"endpoints"`
}

// DeliveriesBody lists an endpoint's deliveries.
type DeliveriesBody struct {
	Deliveries []webhook.Delivery `json:"deliveries"`
}

func (s *Server) webhooksRoutes() []Route {
	manage := []*errs.Error{auth.ErrNotAdmin}
	byID := []*errs.Error{auth.ErrNotAdmin, errs.NotFound}
	return []Route{
		{Method: "GET", Path: "/api/toolkit/webhooks", Class: KeyOrSession, Tag: "webhooks",
			Summary: "The house's webhook endpoints, oldest first, without secrets (owner or admin)",
			Out:     []Out{{Status: 200, Body: EndpointsBody{}}}, Errors: manage, Handler: s.listWebhooks},
		{Method: "POST", Path: "/api/toolkit/webhooks", Class: KeyOrSession, Tag: "webhooks",
			Summary: "Register an https endpoint for develop.done and/or verdict.written; the whsec_ secret is shown once (owner or admin)",
			In:      webhook.CreateRequest{}, Out: []Out{{Status: 201, Body: webhook.Created{}}},
			Errors: []*errs.Error{urlguard.ErrBadURL, auth.ErrNotAdmin, webhook.ErrTooManyEndpoints}, Handler: s.createWebhook},
		{Method: "DELETE", Path: "/api/toolkit/webhooks/{id}", Class: KeyOrSession, Tag: "webhooks",
			Summary: "Delete an endpoint; its queued deliveries are drained and nothing reaches it after this answer (owner or admin)",
			Out:     []Out{{Status: 200, Body: webhook.Deleted{}}}, Errors: byID, Handler: s.deleteWebhook},
		{Method: "GET", Path: "/api/toolkit/webhooks/{id}/deliveries", Class: KeyOrSession, Tag: "webhooks", Extension: true,
			Summary: "An endpoint's latest 100 deliveries, newest first: message id, event, attempts, last status and error, next attempt, delivered at (owner or admin)",
			Out:     []Out{{Status: 200, Body: DeliveriesBody{}}}, Errors: byID, Handler: s.webhookDeliveries},
		{Method: "POST", Path: "/api/toolkit/webhooks/{id}/test", Class: KeyOrSession, Tag: "webhooks", Extension: true,
			Summary: "Send a signed webhook.test message to the endpoint now and answer its outcome; never retried (owner or admin)",
			Out:     []Out{{Status: 200, Body: webhook.TestResult{}}}, Errors: byID, Handler: s.testWebhook},
	}
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	eps, err := s.svc.Hooks.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, EndpointsBody{Endpoints: eps})
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[webhook.CreateRequest](w, r)
	if err != nil {
		return err
	}
	c, err := s.svc.Hooks.Create(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, c)
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	d, err := s.svc.Hooks.Delete(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, d)
}

func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	ds, err := s.svc.Hooks.Deliveries(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DeliveriesBody{Deliveries: ds})
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	res, err := s.svc.Hooks.Test(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, res)
}
