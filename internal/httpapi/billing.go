package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/billing"
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

// openCheckout opens a hosted checkout for the body's In (the route's
// Before, billing's Spend, admitted an owner's session with a provider
// configured before the body is read: DECISIONS §10).
func openCheckout[In any](s *Server, w http.ResponseWriter, r *http.Request,
	open func(context.Context, auth.Principal, In) (billing.Opened, error)) error {
	p := auth.From(r.Context())
	in, err := decode[In](w, r)
	if err != nil {
		return err
	}
	out, err := open(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) checkoutTopUp(w http.ResponseWriter, r *http.Request) error {
	return openCheckout(s, w, r, s.svc.Billing.TopUp)
}

func (s *Server) checkoutSubscription(w http.ResponseWriter, r *http.Request) error {
	return openCheckout(s, w, r, s.svc.Billing.Subscribe)
}

func (s *Server) checkoutCustom(w http.ResponseWriter, r *http.Request) error {
	return openCheckout(s, w, r, s.svc.Billing.Custom)
}

func (s *Server) portal(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Billing.Portal(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) cancelPlan(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Billing.CancelPlan(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// paymentWebhook reads a provider's delivery: the raw bytes are what the
// signature covers.
func (s *Server) paymentWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSON))
	if errors.As(err, new(*http.MaxBytesError)) {
		return errs.BodyTooLarge
	} else if err != nil {
		return err
	}
	out, err := s.svc.Billing.Deliver(r.Context(), r.PathValue("provider"), r.Header, body)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) billingEmail(w http.ResponseWriter, r *http.Request) error {
	p := auth.From(r.Context())
	in, err := decode[billing.EmailRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Billing.SetEmail(r.Context(), p, in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) entitlements(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Billing.Holdings(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) autocharge(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Billing.Autocharge(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) setAutocharge(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[billing.AutochargeRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Billing.SetAutocharge(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) runAutocharge(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Billing.RunAutocharge(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// moneyErrors are what a route that spends money may answer: 403 and 503
// first, then its own.
func moneyErrors(own ...*errs.Error) []*errs.Error {
	return append([]*errs.Error{errs.Forbidden, billing.ErrNotConfigured}, own...)
}

// billingRoutes are the routes of Billing (SPEC §4.19, DECISIONS §1b and §4) and the admin grant (SPEC §4.17).
func (s *Server) billingRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/ai/billing/balance", Class: KeyOrSession, Tag: "billing", Summary: "The house's token balance and open holds",
			Out: []Out{{Status: 200, Body: ledger.Balance{}}}, Handler: s.balance},
		{Method: "GET", Path: "/api/toolkit/ai/billing/catalog", Class: KeyOrSession, Tag: "billing", Summary: "The live price list: tools by tier, flat lanes, text tools, plans and top-up packs",
			Out: []Out{{Status: 200, Body: job.Catalog{}}}, Handler: s.catalog},
		{Method: "POST", Path: "/api/toolkit/ai/billing/checkout/topup", Class: KeyOrSession, Tag: "billing",
			Summary: "Open a hosted checkout for a top-up pack (owner's session only); the provider's signed delivery credits it",
			In:      billing.TopUpRequest{}, Out: []Out{{Status: 200, Body: billing.Opened{}}},
			Errors: moneyErrors(billing.ErrBadPack, billing.ErrCheckout), Before: s.svc.Billing.Spend, Handler: s.checkoutTopUp},
		{Method: "POST", Path: "/api/toolkit/ai/billing/checkout/subscription", Class: KeyOrSession, Tag: "billing",
			Summary: "Open a hosted checkout for a monthly plan (owner's session only); the provider's signed delivery moves the plan",
			In:      billing.SubscriptionRequest{}, Out: []Out{{Status: 200, Body: billing.Opened{}}},
			Errors: moneyErrors(billing.ErrBadTier, billing.ErrCheckout), Before: s.svc.Billing.Spend, Handler: s.checkoutSubscription},
		{Method: "POST", Path: "/api/toolkit/ai/billing/checkout/custom", Class: KeyOrSession, Tag: "billing",
			Summary: "Open a hosted checkout for a number of tokens at the smallest pack's price per token (owner's session only)",
			In:      billing.CustomRequest{}, Out: []Out{{Status: 200, Body: billing.Opened{}}},
			Errors: moneyErrors(billing.ErrBadTokens, billing.ErrCheckout), Before: s.svc.Billing.Spend, Handler: s.checkoutCustom},
		{Method: "POST", Path: "/api/toolkit/ai/billing/portal", Class: KeyOrSession, Tag: "billing",
			Summary: "Open the provider's customer portal for the house (owner's session only)",
			Out:     []Out{{Status: 200, Body: billing.PortalURL{}}}, Errors: moneyErrors(billing.ErrNoCustomer, billing.ErrPortal), Handler: s.portal},
		{Method: "POST", Path: "/api/account/plan/cancel", Class: KeyOrSession, Tag: "billing",
			Summary: "Cancel the plan at the period's end: the provider is told first; the plan is mirrored as canceled only on its acceptance; tokens stay",
			Out:     []Out{{Status: 200, Body: billing.Canceled{}}}, Errors: moneyErrors(billing.ErrNoActivePlan, billing.ErrCancel), Handler: s.cancelPlan},
		{Method: "POST", Path: "/api/toolkit/ai/billing/webhook/{provider}", Class: Public, Tag: "billing",
			Summary: "The payment provider's signed delivery (Standard Webhooks): the only writer of entitlements, once per delivery and per order",
			Out:     []Out{{Status: 200, Body: billing.Delivered{}}},
			Errors:  []*errs.Error{errs.NotFound, billing.ErrNotConfigured, billing.ErrBadSignature, billing.ErrUnparseable, errs.BodyTooLarge},
			Handler: s.paymentWebhook},
		{Method: "PATCH", Path: "/api/account/billing-email", Class: KeyOrSession, Tag: "billing",
			Summary: "Where billing letters go (owner's session only); the provider is told first when the house is its customer",
			In:      billing.EmailRequest{}, Out: []Out{{Status: 200, Body: billing.BillingEmail{}}},
			Errors: []*errs.Error{errs.Forbidden, account.ErrBadEmail, billing.ErrEmail}, Before: auth.Principal.MayPay, Handler: s.billingEmail},
		{Method: "GET", Path: "/api/toolkit/entitlements", Class: KeyOrSession, Tag: "billing",
			Summary: "What the provider's paid orders gave the house, and its open checkouts",
			Out:     []Out{{Status: 200, Body: billing.Holdings{}}}, Handler: s.entitlements},
		{Method: "GET", Path: "/api/toolkit/ai/billing/autocharge", Class: KeyOrSession, Tag: "billing",
			Summary: "The house's auto top-up rule, whether the provider can charge a saved method, and the rule's last charge",
			Out:     []Out{{Status: 200, Body: billing.Autocharge{}}}, Handler: s.autocharge},
		{Method: "PUT", Path: "/api/toolkit/ai/billing/autocharge", Class: KeyOrSession, Tag: "billing",
			Summary: "Set the auto top-up rule: buy a pack when spendable falls below the threshold (owner's session only)",
			In:      billing.AutochargeRequest{}, Out: []Out{{Status: 200, Body: billing.Autocharge{}}},
			Errors: moneyErrors(billing.ErrBadThreshold, billing.ErrBadPack, billing.ErrAutochargeUnavailable), Before: s.svc.Billing.Spend, Handler: s.setAutocharge},
		{Method: "POST", Path: "/api/toolkit/ai/billing/autocharge/run", Class: KeyOrSession, Tag: "billing",
			Summary: "Fire the auto top-up if the house is short: the provider charges the saved method for the pack, at most once a UTC day; its signed delivery credits it (owner's session only)",
			Out:     []Out{{Status: 200, Body: billing.Fired{}}},
			Errors:  moneyErrors(billing.ErrNoSavedMethod, billing.ErrAutocharge, billing.ErrAutochargeUnavailable), Handler: s.runAutocharge},
		{Method: "POST", Path: "/api/toolkit/admin/grant-tokens", Class: PlatformAdmin, Tag: "admin", Summary: "Grant tokens to the personal house of a user",
			In: ledger.GrantRequest{}, Out: []Out{{Status: 200, Body: ledger.Granted{}}},
			Errors: []*errs.Error{ledger.ErrUserRequired, ledger.ErrBadTokens, ledger.ErrUserNotFound}, Handler: s.grantTokens},
	}
}
