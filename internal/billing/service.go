package billing

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Store is what the billing use cases need from persistence; sqlstore
// implements it.
type Store interface {
	OpenCheckout(ctx context.Context, provider string, c Checkout) error
	CheckoutAt(ctx context.Context, provider, providerID string) (Checkout, error)
	OpenCheckouts(ctx context.Context, house string) ([]Checkout, error)
	Customer(ctx context.Context, house, provider string) (string, error)
	Plan(ctx context.Context, house string) (ledger.Plan, error)
	MirrorCancel(ctx context.Context, house, subscriptionID string, endsAt time.Time) (bool, error)
	Entitlements(ctx context.Context, house string) ([]Entitlement, error)
	ApplyDelivery(ctx context.Context, provider, deliveryID string, ev Event,
		offer func(ledger.PlanTier) (ledger.PlanOffer, bool)) (Outcome, error)
	BillingEmail(ctx context.Context, house string) (string, error)
	SetBillingEmail(ctx context.Context, house, email string) error
	AutochargeStore
	ModelStore
}

// Result is what a delivery did.
type Result string

const (
	Granted       Result = "granted"   // an entitlement was written
	Updated       Result = "updated"   // the plan moved
	Duplicate     Result = "duplicate" // this delivery or this order was seen before: nothing changed
	Taken         Result = "taken"     // a paid face another house holds exclusively: the order is recorded, no claim (refund it)
	Unmatched     Result = "unmatched" // the order or subscription is not one of ours: nothing changed
	IgnoredResult Result = "ignored"   // a type this service does not act on
)

// Outcome is what ApplyDelivery did.
type Outcome struct {
	Result      Result
	House       string
	Entitlement string
	Tokens      int64
	Reason      string // refused: why, in plain words (logged and in the operator alert)
}

// Entitlement is what a paid order gave the house.
type Entitlement struct {
	ID          string   `json:"id"`
	Provider    string   `json:"provider" enum:"local,polar"`
	OrderID     string   `json:"orderId" description:"The provider's order."`
	Kind        string   `json:"kind" enum:"topup,subscription,renewal,custom,model"`
	FaceID      string   `json:"faceId,omitempty" description:"The catalogue face a model order bought."`
	Claim       string   `json:"claim,omitempty" enum:"purchase,exclusive,taken" description:"What a model order gave: a purchase, the exclusive claim, or nothing because another house held the face exclusively first (the order is to be refunded)."`
	Tier        string   `json:"tier,omitempty" description:"The plan tier, for a subscription or a renewal."`
	Tokens      int64    `json:"tokens" description:"Tokens credited by this order."`
	AmountCents int64    `json:"amountCents" description:"What the provider charged, in US cents."`
	CreatedAt   ts.Time  `json:"createdAt"`
	Status      string   `json:"status" enum:"active,revoked" description:"revoked: an operator ended it; what was left of its tokens was taken back, and a model order's claim on the face released."`
	RevokedAt   *ts.Time `json:"revokedAt" description:"When an operator revoked it; null while active."`
}

// Options configure the service.
type Options struct {
	Prices    ledger.Prices
	WebOrigin string // where a browser lands after paying
	Now       func() time.Time
	Log       *slog.Logger
}

// Service runs the money use cases.
type Service struct {
	store    Store
	provider Provider // nil: no provider configured
	opts     Options
}

// NewService returns the billing service; provider nil means none is set.
func NewService(store Store, provider Provider, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, provider: provider, opts: opts}
}

// Provider returns the configured provider's name ("" when none).
func (s *Service) Provider() string {
	if s.provider == nil {
		return ""
	}
	return s.provider.Name()
}

// Spend admits a principal to a money route: an owner's session (403,
// auth's MayPay), with a provider configured (503 otherwise), in that
// order. Every money method asks it first; the checkout routes ask it
// before they read the body too (DECISIONS: 403 before anything is read).
func (s *Service) Spend(p auth.Principal) error {
	if err := p.MayPay(); err != nil {
		return err
	}
	if s.provider == nil {
		return ErrNotConfigured
	}
	return nil
}

// EmailRequest is the body of PATCH /api/account/billing-email.
type EmailRequest struct {
	Email string `json:"email" required:"true" format:"email" description:"Where billing letters go."`
}

// BillingEmail is its answer.
type BillingEmail struct {
	Email string `json:"email"`
}

// SetEmail changes where the house's billing letters go: an owner's
// session only; the provider is told first when the house is its customer
// (502 when it refuses), then the address is kept. No provider is needed.
func (s *Service) SetEmail(ctx context.Context, p auth.Principal, in EmailRequest) (BillingEmail, error) {
	if err := p.MayPay(); err != nil {
		return BillingEmail{}, err
	}
	email, err := account.NormalEmail(in.Email)
	if err != nil {
		return BillingEmail{}, err
	}
	if s.provider != nil {
		cust, err := s.store.Customer(ctx, p.HouseID, s.provider.Name())
		if err != nil {
			return BillingEmail{}, err
		}
		if cust != "" {
			if err := s.provider.SetEmail(ctx, cust, email); err != nil {
				s.opts.Log.Warn("billing: e-mail refused", "provider", s.provider.Name(), "err", err)
				return BillingEmail{}, errs.Wrap(ErrEmail, err)
			}
		}
	}
	if err := s.store.SetBillingEmail(ctx, p.HouseID, email); err != nil {
		return BillingEmail{}, err
	}
	return BillingEmail{Email: email}, nil
}

// TopUpRequest is the body of checkout/topup.
type TopUpRequest struct {
	Pack string `json:"pack" required:"true" enum:"100,500,2000" description:"The pack's tokens, as the catalog lists them."`
}

// SubscriptionRequest is the body of checkout/subscription.
type SubscriptionRequest struct {
	Tier string `json:"tier" required:"true" enum:"studio,atelier,maison"`
}

// CustomRequest is the body of checkout/custom.
type CustomRequest struct {
	Tokens ledger.Count `json:"tokens" required:"true" description:"Whole tokens, 100 to 100000, at the smallest pack's price per token."`
}

// Opened is the answer of a checkout route.
type Opened struct {
	URL        string `json:"url" description:"The provider's hosted checkout page."`
	CheckoutID string `json:"checkoutId" description:"The open checkout, as the entitlements list shows it."`
}

// TopUp opens a checkout for a pack.
func (s *Service) TopUp(ctx context.Context, p auth.Principal, in TopUpRequest) (Opened, error) {
	if err := s.Spend(p); err != nil {
		return Opened{}, err
	}
	for _, pk := range s.opts.Prices.TopUps {
		if itoa(pk.Tokens) == strings.TrimSpace(in.Pack) {
			return s.open(ctx, p, Checkout{Kind: KindTopUp, Tokens: pk.Tokens, AmountCents: pk.PriceUSD * 100})
		}
	}
	return Opened{}, ErrBadPack
}

// Subscribe opens a checkout for a plan tier.
func (s *Service) Subscribe(ctx context.Context, p auth.Principal, in SubscriptionRequest) (Opened, error) {
	if err := s.Spend(p); err != nil {
		return Opened{}, err
	}
	o, ok := s.opts.Prices.Plan(ledger.PlanTier(in.Tier))
	if !ok || o.Tier == ledger.TierTrial {
		return Opened{}, ErrBadTier
	}
	return s.open(ctx, p, Checkout{Kind: KindSubscription, Tier: o.Tier, Tokens: o.MonthlyTokens, AmountCents: o.PriceUSD * 100})
}

// Custom opens a checkout for a number of tokens, priced at the smallest
// pack's price per token (rounded up to a cent).
func (s *Service) Custom(ctx context.Context, p auth.Principal, in CustomRequest) (Opened, error) {
	if err := s.Spend(p); err != nil {
		return Opened{}, err
	}
	n, ok := in.Tokens.Int()
	if !ok || n < MinCustomTokens || n > MaxCustomTokens {
		return Opened{}, ErrBadTokens
	}
	return s.open(ctx, p, Checkout{Kind: KindCustom, Tokens: n, AmountCents: s.CustomCents(n)})
}

// CustomCents prices n tokens at the smallest pack's price per token.
func (s *Service) CustomCents(n int64) int64 {
	var base ledger.TopUpPack
	for _, pk := range s.opts.Prices.TopUps {
		if base.Tokens == 0 || pk.Tokens < base.Tokens {
			base = pk
		}
	}
	if base.Tokens == 0 {
		return 0
	}
	return (n*base.PriceUSD*100 + base.Tokens - 1) / base.Tokens
}

// DoneURL is the studio's page a provider sends the browser back to after
// a checkout (the console's /billing/done, which grants nothing itself).
func DoneURL(webOrigin, checkoutID string) string {
	return webOrigin + "/billing/done?checkout=" + url.QueryEscape(checkoutID)
}

func (s *Service) open(ctx context.Context, p auth.Principal, c Checkout) (Opened, error) {
	c.ID, c.House, c.UserID, c.CreatedAt = uuid.Must(uuid.NewV7()).String(), p.HouseID, p.UserID, s.opts.Now()
	c.Email = p.Email
	c.SuccessURL = DoneURL(s.opts.WebOrigin, c.ID)
	cust, err := s.store.Customer(ctx, p.HouseID, s.provider.Name())
	if err != nil {
		return Opened{}, err
	}
	c.CustomerID = cust
	if err := s.provider.Checkout(ctx, &c); err != nil {
		if _, ok := errs.As(err); ok {
			return Opened{}, err
		}
		s.opts.Log.Warn("billing: checkout refused", "provider", s.provider.Name(), "err", err)
		return Opened{}, errs.Wrap(ErrCheckout, err)
	}
	if err := s.store.OpenCheckout(ctx, s.provider.Name(), c); err != nil {
		return Opened{}, err
	}
	return Opened{URL: c.URL, CheckoutID: c.ID}, nil
}

// PortalURL is the answer of the portal route.
type PortalURL struct {
	URL string `json:"url" description:"The provider's customer portal, for this house."`
}

// Portal opens the provider's customer portal for the house.
func (s *Service) Portal(ctx context.Context, p auth.Principal) (PortalURL, error) {
	if err := s.Spend(p); err != nil {
		return PortalURL{}, err
	}
	cust, err := s.store.Customer(ctx, p.HouseID, s.provider.Name())
	if err != nil {
		return PortalURL{}, err
	}
	if cust == "" {
		return PortalURL{}, ErrNoCustomer
	}
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil {
		return PortalURL{}, err
	}
	pt := Portal{House: p.HouseID, CustomerID: cust, ReturnURL: s.opts.WebOrigin + "/account"}
	if plan.Provider == s.provider.Name() {
		pt.SubscriptionID = plan.SubscriptionID
		if o, ok := s.opts.Prices.Plan(plan.Tier); ok {
			pt.PriceCents = o.PriceUSD * 100
		}
	}
	url, err := s.provider.Portal(ctx, pt)
	if err != nil {
		s.opts.Log.Warn("billing: portal refused", "provider", s.provider.Name(), "err", err)
		return PortalURL{}, errs.Wrap(ErrPortal, err)
	}
	return PortalURL{URL: url}, nil
}

// Canceled is the answer of plan cancel.
type Canceled struct {
	Status ledger.PlanStatus `json:"status" enum:"canceled"`
	EndsAt ts.Time           `json:"endsAt" description:"The end of the paid period: the plan runs until then and its tokens stay."`
}

// CancelPlan asks the provider to cancel the house's subscription and,
// only once it accepted, mirrors the plan as canceled with its end.
func (s *Service) CancelPlan(ctx context.Context, p auth.Principal) (Canceled, error) {
	if err := s.Spend(p); err != nil {
		return Canceled{}, err
	}
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil {
		return Canceled{}, err
	}
	if plan.SubscriptionID == "" || plan.Provider != s.provider.Name() || plan.Status == ledger.Canceled {
		return Canceled{}, ErrNoActivePlan
	}
	ends, err := s.provider.Cancel(ctx, plan.SubscriptionID)
	if err != nil {
		s.opts.Log.Warn("billing: cancel refused", "provider", s.provider.Name(), "err", err)
		return Canceled{}, errs.Wrap(ErrCancel, err)
	}
	if ends.IsZero() && plan.RenewsAt != nil {
		ends = plan.RenewsAt.Time
	}
	if ok, err := s.store.MirrorCancel(ctx, p.HouseID, plan.SubscriptionID, ends); err != nil {
		return Canceled{}, err
	} else if !ok {
		return Canceled{}, ErrNoActivePlan
	}
	return Canceled{Status: ledger.Canceled, EndsAt: ts.Of(ends)}, nil
}

// Delivered is the webhook route's answer.
type Delivered struct {
	OK     bool   `json:"ok"`
	Result Result `json:"result" enum:"granted,updated,duplicate,unmatched,ignored,taken,refused,deferred" description:"What the delivery did: granted or updated wrote it once; taken recorded a paid face another house holds exclusively (no claim); refused granted nothing (the order's amount or currency is not its price, its customer or subscription is another house's, or its checkout was granted by another order) and raised an operator alert; deferred kept a subscription event that came before its payment, to count when the payment lands; duplicate, unmatched and ignored changed nothing."`
}

// ErrUnknownProvider answers a webhook path that names no provider.
var errUnknownProvider = errs.NotFound

// Deliver verifies and applies one delivery from the provider named in the
// path.
func (s *Service) Deliver(ctx context.Context, name string, h http.Header, body []byte) (Delivered, error) {
	if !Known(name) {
		return Delivered{}, errUnknownProvider
	}
	if s.provider == nil || s.provider.Name() != name {
		return Delivered{}, ErrNotConfigured
	}
	id, err := s.provider.Verify(h, body, s.opts.Now())
	if err != nil {
		return Delivered{}, errs.Wrap(ErrBadSignature, err)
	}
	ev, err := s.provider.Parse(body)
	if err != nil {
		return Delivered{}, errs.Wrap(ErrUnparseable, err)
	}
	out, err := s.store.ApplyDelivery(ctx, name, id, ev, s.opts.Prices.Plan)
	if err != nil {
		return Delivered{}, err
	}
	if out.Result == Refused { // acknowledged (200): the provider must not retry it for ever
		s.opts.Log.Warn("billing: a paid order was refused: nothing granted, an operator alert raised", "provider", name,
			"order", ev.OrderID, "house", out.House, "reason", out.Reason)
	}
	if out.Result == Taken {
		s.opts.Log.Warn("billing: a paid face is held exclusively by another house: refund the order", "provider", name,
			"order", ev.OrderID, "house", out.House)
	}
	if out.Result == Granted || out.Result == Updated {
		s.opts.Log.Info("billing: delivery applied", "provider", name, "event", ev.Raw, "house", out.House, "result", out.Result,
			"tokens", out.Tokens)
	}
	return Delivered{OK: true, Result: out.Result}, nil
}

// Holdings is the answer of GET /api/toolkit/entitlements.
type Holdings struct {
	Plan         PlanState      `json:"plan" description:"The house's plan as the provider's deliveries left it."`
	Entitlements []Entitlement  `json:"entitlements" description:"What paid orders gave the house, newest first."`
	Checkouts    []OpenCheckout `json:"checkouts" description:"Checkouts opened and not paid yet, newest first."`
}

// PlanState is the house's plan in the entitlements answer.
type PlanState struct {
	Tier     ledger.PlanTier   `json:"tier" enum:"trial,studio,atelier,maison"`
	Status   ledger.PlanStatus `json:"status" enum:"trialing,active,past_due,canceled" description:"past_due: a renewal's payment failed at the provider; the plan's tokens stay and nothing more is granted until a renewal is paid."`
	RenewsAt *ts.Time          `json:"renewsAt" description:"The end of the paid period (of the trial, for a trial)."`
	EndsAt   *ts.Time          `json:"endsAt" description:"Set when canceled: the plan runs until then."`
}

// OpenCheckout is an open checkout as the entitlements list shows it.
type OpenCheckout struct {
	ID        string  `json:"id"`
	Kind      Kind    `json:"kind" enum:"topup,subscription,custom,model"`
	Tier      string  `json:"tier,omitempty"`
	FaceID    string  `json:"faceId,omitempty" description:"The catalogue face a model checkout sells."`
	Tokens    int64   `json:"tokens"`
	URL       string  `json:"url"`
	CreatedAt ts.Time `json:"createdAt"`
}

// Holdings lists the house's entitlements and open checkouts; every seat
// may read them.
func (s *Service) Holdings(ctx context.Context, p auth.Principal) (Holdings, error) {
	ents, err := s.store.Entitlements(ctx, p.HouseID)
	if err != nil {
		return Holdings{}, err
	}
	open, err := s.store.OpenCheckouts(ctx, p.HouseID)
	if err != nil {
		return Holdings{}, err
	}
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil {
		return Holdings{}, err
	}
	out := Holdings{Plan: PlanState{Tier: plan.Tier, Status: plan.Status, RenewsAt: plan.RenewsAt, EndsAt: plan.EndsAt},
		Entitlements: ents, Checkouts: make([]OpenCheckout, 0, len(open))}
	for _, c := range open {
		out.Checkouts = append(out.Checkouts, OpenCheckout{ID: c.ID, Kind: c.Kind, Tier: string(c.Tier), FaceID: c.FaceID, Tokens: c.Tokens,
			URL: c.URL, CreatedAt: ts.Of(c.CreatedAt)})
	}
	return out, nil
}
