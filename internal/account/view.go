package account

import (
	"context"
	"slices"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Profile is a person as the account view and /me show them.
type Profile struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Email         string  `json:"email"`
	EmailVerified bool    `json:"emailVerified"`
	Image         *string `json:"image" description:"The picture's URL with a ?v= stamp that changes with its bytes; null without one."`
	JoinedAt      ts.Time `json:"joinedAt" description:"When the account was made."`
}

// PlanView is the house's plan in the account view.
type PlanView struct {
	Tier             ledger.PlanTier   `json:"tier" enum:"trial,studio,atelier,maison"`
	Name             string            `json:"name"`
	Status           ledger.PlanStatus `json:"status" enum:"trialing,active,past_due,canceled"`
	PriceUSD         int64             `json:"priceUsd" description:"Whole US dollars a month."`
	MonthlyTokens    int64             `json:"monthlyTokens"`
	RolloverMultiple int64             `json:"rolloverMultiple"`
	RenewsAt         *ts.Time          `json:"renewsAt" description:"The end of the period (of the trial, for a trial); null when the plan does not renew."`
}

// Tokens is the house's balance with its spend over the window.
type Tokens struct {
	Balance    int64           `json:"balance"`
	Grant      int64           `json:"grant"`
	Topup      int64           `json:"topup"`
	Held       int64           `json:"held"`
	Days       int             `json:"days" enum:"7,30,90" description:"The window byWorkflow covers, in days."`
	ByWorkflow []WorkflowSpend `json:"byWorkflow" description:"Tokens settled per tool or lane over the window, most first."`
}

// WorkflowSpend is what one tool or lane settled over the window.
type WorkflowSpend struct {
	Workflow string  `json:"workflow" description:"The tool (upscale, lookbook, ...) or lane (classify, ...); other for spend older than this record."`
	Tokens   int64   `json:"tokens" description:"Tokens settled (posted holds)."`
	Runs     int64   `json:"runs" description:"Settled develops or lane calls."`
	LastAt   ts.Time `json:"lastAt" description:"When the latest one settled."`
}

// Invoice is a credit as the ledger recorded it.
type Invoice struct {
	ID        string   `json:"id"`
	At        ts.Time  `json:"at"`
	Kind      string   `json:"kind" enum:"signup_grant,subscription_grant,admin_grant,invite_grant,topup,grant,model_purchase" description:"What credited the tokens; model_purchase: a face bought at the provider (no tokens)."`
	Item      string   `json:"item" description:"A line describing it."`
	Tokens    int64    `json:"tokens"`
	AmountUSD *float64 `json:"amountUsd" description:"US dollars paid: what the provider charged for the order that credited it (a top-up, a plan period); 0 for a grant; a top-up without an order has the pack's price, null when no pack matches."`
	Reference *string  `json:"reference" description:"The payment's reference; null for grants."`
	RevokedAt *ts.Time `json:"revokedAt" description:"When an operator revoked the order behind it (what was left of its tokens was taken back, a face's claim released); null otherwise."`
}

// Billing is who pays and whether the caller may change it.
type Billing struct {
	CardOnFile bool   `json:"cardOnFile" description:"The house has paid through the payment provider, which keeps its payment method."`
	Email      string `json:"email" description:"Where billing letters go: the house owner's address."`
	CanManage  bool   `json:"canManage" description:"The caller is an owner of the house (only owners spend money)."`
}

// View is the body of GET /api/account (SPEC §2 Account).
type View struct {
	Profile  Profile   `json:"profile"`
	Plan     PlanView  `json:"plan"`
	Tokens   Tokens    `json:"tokens"`
	Invoices []Invoice `json:"invoices" description:"Grants and top-ups, newest first, at most 50."`
	Billing  Billing   `json:"billing"`
}

// ViewQuery is the query of GET /api/account.
type ViewQuery struct {
	Days string `query:"days" description:"The spend window: 7, 30 or 90 days; any other value reads as 30 (given twice: 400 BAD_DAYS)."`
}

// ErrBadDays refuses a days parameter the query cannot read (given twice,
// or with control characters); any single value reads as a window.
var ErrBadDays = errs.New(errs.KindInvalid, "BAD_DAYS", "days must be given once: 7, 30 or 90.")

// Window reads the days parameter: 7, 30 or 90, anything else 30.
func Window(days string) int {
	switch days {
	case "7":
		return 7
	case "90":
		return 90
	}
	return 30
}

// MaxInvoices bounds the invoices the view lists.
const MaxInvoices = 50

// viewStore is what the account view reads.
type viewStore interface {
	Plan(ctx context.Context, house string) (ledger.Plan, error)
	Balance(ctx context.Context, house string) (ledger.Balance, error)
	// Spend sums the house's posted holds settled at or after since (Unix
	// ms) by workflow, most tokens first.
	Spend(ctx context.Context, house string, since int64) ([]WorkflowSpend, error)
	// CreditHistory lists the house's credits, newest first.
	CreditHistory(ctx context.Context, house string, limit int) ([]ledger.Credit, error)
	// BillingEmail is the address of the house's first owner.
	BillingEmail(ctx context.Context, house string) (string, error)
	// CardOnFile reports whether the house is a payment provider's customer.
	CardOnFile(ctx context.Context, house string) (bool, error)
	// Purchases lists the house's paid orders that credited no tokens (a
	// model bought at the provider), newest first.
	Purchases(ctx context.Context, house string, limit int) ([]Purchase, error)
}

// Purchase is a paid order that credited no tokens: a catalogue face.
type Purchase struct {
	ID          string // the entitlement
	At          ts.Time
	Item        string
	AmountCents int64
	Reference   string   // <provider>:<order id>
	RevokedAt   *ts.Time // when an operator revoked it
}

// View answers GET /api/account for the caller and their house.
func (s *Service) View(ctx context.Context, p auth.Principal, days int) (View, error) {
	u, err := s.store.User(ctx, p.UserID)
	if err != nil {
		return View{}, err
	}
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil {
		return View{}, err
	}
	bal, err := s.store.Balance(ctx, p.HouseID)
	if err != nil {
		return View{}, err
	}
	since := s.opts.Now().Add(-time.Duration(days) * 24 * time.Hour).UnixMilli()
	spend, err := s.store.Spend(ctx, p.HouseID, since)
	if err != nil {
		return View{}, err
	}
	credits, err := s.store.CreditHistory(ctx, p.HouseID, MaxInvoices)
	if err != nil {
		return View{}, err
	}
	email, err := s.store.BillingEmail(ctx, p.HouseID)
	if err != nil {
		return View{}, err
	}
	card, err := s.store.CardOnFile(ctx, p.HouseID)
	if err != nil {
		return View{}, err
	}
	offer, _ := s.opts.Prices.Plan(plan.Tier)
	v := View{
		Profile: s.profile(u),
		Plan: PlanView{Tier: plan.Tier, Name: offer.Name, Status: plan.Status, PriceUSD: offer.PriceUSD,
			MonthlyTokens: offer.MonthlyTokens, RolloverMultiple: offer.RolloverMultiple, RenewsAt: plan.RenewsAt},
		Tokens:   Tokens{Balance: bal.Balance, Grant: bal.Grant, Topup: bal.Topup, Held: bal.Held, Days: days, ByWorkflow: spend},
		Invoices: make([]Invoice, 0, len(credits)),
		Billing:  Billing{CardOnFile: card, Email: email, CanManage: p.MayPay() == nil},
	}
	if plan.Status == ledger.Canceled {
		v.Plan.RenewsAt = nil
	}
	for _, c := range credits {
		v.Invoices = append(v.Invoices, s.invoice(c))
	}
	bought, err := s.store.Purchases(ctx, p.HouseID, MaxInvoices)
	if err != nil {
		return View{}, err
	}
	for _, b := range bought {
		usd, ref := float64(b.AmountCents)/100, b.Reference
		v.Invoices = append(v.Invoices, Invoice{ID: b.ID, At: b.At, Kind: "model_purchase", Item: b.Item, AmountUSD: &usd, Reference: &ref,
			RevokedAt: b.RevokedAt})
	}
	slices.SortStableFunc(v.Invoices, func(a, b Invoice) int { return b.At.Compare(a.At.Time) })
	v.Invoices = v.Invoices[:min(len(v.Invoices), MaxInvoices)]
	return v, nil
}

// invoice describes a credit.
func (s *Service) invoice(c ledger.Credit) Invoice {
	zero := 0.0
	in := Invoice{ID: c.ID, At: c.CreatedAt, Tokens: c.Tokens, AmountUSD: &zero, RevokedAt: c.RevokedAt}
	if c.Reference != "" {
		ref := c.Reference
		in.Reference = &ref
	}
	switch {
	case c.Kind == ledger.TopUp:
		in.Kind, in.Item, in.AmountUSD = "topup", plural(c.Tokens)+" top-up", nil
		for _, t := range s.opts.Prices.TopUps {
			if t.Tokens == c.Tokens {
				usd := float64(t.PriceUSD)
				in.AmountUSD = &usd
			}
		}
	case c.Source == ledger.SourceSignup:
		in.Kind, in.Item = "signup_grant", "Trial grant: "+plural(c.Tokens)
	case c.Source == ledger.SourcePlan:
		in.Kind, in.Item = "subscription_grant", "Plan grant: "+plural(c.Tokens)
	case c.Source == ledger.SourceAdmin:
		in.Kind, in.Item = "admin_grant", "Granted by the studio: "+plural(c.Tokens)
	case c.Source == ledger.SourceInvite:
		in.Kind, in.Item = "invite_grant", "Invitation grant: "+plural(c.Tokens)
	default:
		in.Kind, in.Item = "grant", "Grant: "+plural(c.Tokens)
	}
	if c.PaidCents != nil { // a paid order credited it: what the provider charged
		usd := float64(*c.PaidCents) / 100
		in.AmountUSD = &usd
	}
	if c.Reason != "" && c.Source == ledger.SourceAdmin {
		in.Item += " (" + c.Reason + ")"
	}
	return in
}

func plural(n int64) string {
	if n == 1 {
		return "1 token"
	}
	return itoa(n) + " tokens"
}
