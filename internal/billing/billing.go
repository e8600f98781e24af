// Package billing is money (issue 18, DECISIONS §10): checkouts and the
// customer portal at a payment provider, plan cancel, and the provider's
// signed deliveries, which are the only writer of entitlements.
//
// # The rules
//
//   - A provider is chosen by BILLING_PROVIDER: unset, every route that would
//     move money answers 503 BILLING_NOT_CONFIGURED and nothing changes;
//     "local" is the built-in test provider (its pages are served by the
//     binary and marked test mode); "polar" speaks Polar's API.
//   - Only an owner's session spends money: a key or any other role is 403
//     before anything else is read, then 503 without a provider, then the
//     body is validated.
//   - A checkout route records an open checkout and answers the provider's
//     hosted URL. A browser returning from it grants nothing.
//   - The webhook route verifies the delivery's Standard Webhooks signature
//     (failing closed without a secret), and in one transaction records the
//     delivery (a repeated webhook-id changes nothing), writes the paid
//     order's entitlement (a repeated order id changes nothing) and its
//     effect: a top-up credits the topup part; a subscription's first
//     payment and each renewal move the plan and grant its monthly tokens
//     under its rollover multiple; a cancel or revoke moves the plan;
//     a failed renewal payment makes it past_due (tokens kept, nothing
//     granted) until a paid renewal or the provider's subscription.active;
//     an uncancel before the end makes it active again.
package billing

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"studio/internal/errs"
	"studio/internal/ledger"
)

// Provider names.
const (
	Local = "local"
	Polar = "polar"
)

// Known reports whether name is a provider this service can speak.
func Known(name string) bool { return name == Local || name == Polar }

// Kind is what a checkout sells.
type Kind string

const (
	KindTopUp        Kind = "topup"        // a pack of the catalog
	KindSubscription Kind = "subscription" // a plan tier, monthly
	KindCustom       Kind = "custom"       // a number of tokens at the smallest pack's price per token
)

// MinCustomTokens is the smallest custom purchase (DECISIONS §10).
const MinCustomTokens = 100

// MaxCustomTokens bounds a custom purchase (the admin grant's ceiling).
const MaxCustomTokens = ledger.MaxGrant

// Checkout is what the service asks a provider to sell, and what it
// records as an open checkout.
type Checkout struct {
	ID          string // ours
	House       string
	HouseName   string
	Kind        Kind
	Tier        ledger.PlanTier // subscription
	Tokens      int64           // topup, custom: the tokens; subscription: the monthly tokens
	AmountCents int64
	Email       string // the buyer's address, to prefill
	CustomerID  string // the house's customer id at the provider, when known
	SuccessURL  string // where the provider sends the browser after paying
	UserID      string
	FaceID      string // model: the catalogue face sold
	FaceName    string // model: its name, for the pages
	// Filled by the provider:
	ProviderID string
	URL        string
	Status     string // open or paid
	CreatedAt  time.Time
}

// Description names what a checkout sells, for pages and letters.
func (c Checkout) Description() string {
	switch c.Kind {
	case KindSubscription:
		return "Plan " + string(c.Tier) + " (monthly)"
	case KindCustom:
		return itoa(c.Tokens) + " tokens"
	case KindModel:
		return "Model " + c.FaceName
	}
	return itoa(c.Tokens) + "-token pack"
}

// Portal is what a portal session is opened for.
type Portal struct {
	House          string
	CustomerID     string
	SubscriptionID string
	PriceCents     int64 // the subscription's price a period (the local provider's portal charges it on renew)
	ReturnURL      string
}

// EventType is a delivery's meaning once the provider's words are read.
type EventType string

const (
	OrderPaid            EventType = "order.paid"            // money arrived: a purchase, a first payment or a renewal
	SubscriptionCanceled EventType = "subscription.canceled" // ends at the period's end
	SubscriptionRevoked  EventType = "subscription.revoked"  // ended now
	// A renewal's payment failed; the customer can recover by updating the
	// payment method (then the paid renewal makes it active again).
	SubscriptionPastDue EventType = "subscription.past_due"
	// The subscription is active again: after past_due, or a first activation.
	SubscriptionActive EventType = "subscription.active"
	// A cancel at the period's end was taken back before the end.
	SubscriptionUncanceled EventType = "subscription.uncanceled"
	Ignored                EventType = "" // a type this service does not act on
)

// Event is a verified delivery, in the service's words.
type Event struct {
	Type           EventType
	Raw            string // the provider's event type, as sent
	OrderID        string
	CheckoutID     string // the provider's checkout id (a purchase or a first payment)
	SubscriptionID string
	CustomerID     string
	Renewal        bool      // order.paid: a renewal of a running subscription
	AmountCents    int64     // order.paid: what was paid for the price, in the currency's cents (-1 when not said)
	Currency       string    // order.paid: lower case, e.g. "usd"
	PeriodEnd      time.Time // order.paid for a subscription: when the paid period ends
	EndsAt         time.Time // subscription.canceled: when it ends
	At             time.Time // when it happened (the delivery's timestamp); zero when not said
}

// Provider is a payment provider: it hosts checkouts and the portal, cancels
// subscriptions, changes the customer's address, and reads its deliveries.
type Provider interface {
	Name() string
	// Checkout opens a hosted checkout for c and fills c.ProviderID and c.URL.
	Checkout(ctx context.Context, c *Checkout) error
	// Portal opens a customer portal session and returns its URL.
	Portal(ctx context.Context, p Portal) (string, error)
	// Cancel asks the provider to cancel the subscription at the period's
	// end; it answers when it ends.
	Cancel(ctx context.Context, subscriptionID string) (time.Time, error)
	// SetEmail changes the customer's billing address.
	SetEmail(ctx context.Context, customerID, email string) error
	// Verify checks a delivery's signature at now and returns its id.
	Verify(h http.Header, body []byte, now time.Time) (string, error)
	// Parse reads a verified delivery's body.
	Parse(body []byte) (Event, error)
}

// Codes of the billing routes.
var (
	ErrNotConfigured = errs.New(errs.KindUnavailable, "BILLING_NOT_CONFIGURED", "No payment provider is configured; nothing was charged.")
	ErrBadSignature  = errs.Msg(errs.BadSignature, "The delivery's signature is missing, wrong or too old; nothing was written.")
	ErrUnparseable   = errs.Msg(errs.Unparseable, "The delivery's body could not be read.")
	ErrBadPack       = errs.New(errs.KindInvalid, "BAD_PACK", "pack must be one of the catalog's top-up packs: 100, 500 or 2000.")
	ErrBadTier       = errs.New(errs.KindInvalid, "BAD_TIER", "tier must be studio, atelier or maison.")
	ErrBadTokens     = errs.With(errs.Msg(ledger.ErrBadTokens, "tokens must be a whole number from 100 to 100000."), "min", MinCustomTokens, "max", MaxCustomTokens)
	ErrCheckout      = errs.New(errs.KindUpstream, "CHECKOUT_FAILED", "The payment provider did not open a checkout; nothing was charged.")
	ErrPortal        = errs.New(errs.KindUpstream, "PORTAL_FAILED", "The payment provider did not open a portal session.")
	ErrNoActivePlan  = errs.New(errs.KindNotFound, "NO_ACTIVE_PLAN", "The house has no paid plan running to cancel.")
	ErrCancel        = errs.New(errs.KindUpstream, "CANCEL_FAILED", "The payment provider did not cancel the plan; nothing changed.")
	ErrEmail         = errs.New(errs.KindUpstream, "BILLING_EMAIL_FAILED", "The payment provider did not take the new address; nothing changed.")
	ErrNoCustomer    = errs.New(errs.KindNotFound, "NO_CUSTOMER", "The house has not paid through the provider yet: there is no portal to open.")
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
