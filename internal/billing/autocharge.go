package billing

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Auto top-up (SPEC §4.19): the house's standing order buys a pack through
// the provider when the spendable balance is below a threshold. Only the
// provider's signed delivery for that order credits it, as for any
// checkout; a run is at most one charge a day per house.
//
// It fires by itself (issue 28): the transaction that settles a hold and
// leaves the balance below the threshold queues a charge, once per
// crossing (the rule is disarmed until a settle finds the balance at or
// above the threshold again), and the workers' loop (RunDue) makes the
// charge through the provider, as the run route would. A charge the
// provider refuses raises an operator alert.

// Charger is a provider that can charge the customer's saved payment
// method with no one at a checkout page. Polar's API offers no such charge;
// the local test provider does.
type Charger interface {
	// Charge opens the order for c (filling c.ProviderID), calls record
	// with it before any money moves, then charges the saved method of
	// c.CustomerID. The provider's delivery of the paid order grants it.
	Charge(ctx context.Context, c *Checkout, record func(Checkout) error) error
}

// Codes of auto top-up.
var (
	ErrAutochargeUnavailable = errs.New(errs.KindUnavailable, "AUTOCHARGE_UNAVAILABLE",
		"The payment provider cannot charge a saved payment method without the owner at its checkout; buy a pack from the billing page instead. Nothing was charged.")
	ErrBadThreshold = errs.With(errs.New(errs.KindInvalid, "BAD_THRESHOLD", "threshold must be a whole number of tokens from 1 to 100000."),
		"min", 1, "max", ledger.MaxGrant)
	ErrNoSavedMethod = errs.New(errs.KindConflict, "NO_SAVED_METHOD",
		"The house has no saved payment method at the provider yet: pay once through a checkout first. Nothing was charged.")
	ErrAutocharge = errs.New(errs.KindUpstream, "AUTOCHARGE_FAILED", "The payment provider did not charge the saved payment method; nothing was charged.")
)

// AutochargeRule is the house's standing order as stored.
type AutochargeRule struct {
	Enabled    bool
	Threshold  int64
	PackTokens int64
	UpdatedBy  string // the user who set it: a charge it makes by itself is theirs
	UpdatedAt  time.Time
}

// AutochargeRun is one day's run as stored.
type AutochargeRun struct {
	Day        string
	CheckoutID string
	Tokens     int64
	CreatedAt  time.Time
}

// AutochargeStore is what auto top-up needs from persistence.
type AutochargeStore interface {
	Autocharge(ctx context.Context, house string) (AutochargeRule, *AutochargeRun, error)
	SetAutocharge(ctx context.Context, house, userID string, r AutochargeRule) error
	// ClaimAutochargeDay records the day's run; false when the house has one.
	ClaimAutochargeDay(ctx context.Context, house string, run AutochargeRun) (bool, error)
	// ReleaseAutochargeDay forgets a run whose charge the provider refused.
	ReleaseAutochargeDay(ctx context.Context, house, day string) error
	Balance(ctx context.Context, house string) (ledger.Balance, error)
	// ClaimAutochargeDue takes a house whose settle queued a charge, for
	// this worker until leaseUntil; DoneAutochargeDue removes it.
	ClaimAutochargeDue(ctx context.Context, now, leaseUntil time.Time) (string, bool, error)
	DoneAutochargeDue(ctx context.Context, house string) error
	// RaiseAlert records something the operators must look at.
	RaiseAlert(ctx context.Context, id, kind, subject, detail string, at time.Time) error
}

// Autocharge is the answer of GET and PUT /api/toolkit/ai/billing/autocharge.
type Autocharge struct {
	Enabled   bool    `json:"enabled"`
	Threshold int64   `json:"threshold" description:"Buy when the spendable balance is below this many tokens; 0 when no rule is set."`
	Pack      *string `json:"pack" enum:"100,500,2000" description:"The pack bought, as the catalog lists it; null when no rule is set."`
	Available bool    `json:"available" description:"Whether the configured provider can charge a saved payment method (false with Polar or without a provider)."`
	LastRun   *Run    `json:"lastRun" nullable:"true" description:"The most recent charge the rule made; null when none."`
}

// Run is a charge the standing order made.
type Run struct {
	Day        string  `json:"day" description:"The UTC day (YYYY-MM-DD); at most one charge a day."`
	CheckoutID string  `json:"checkoutId"`
	Tokens     int64   `json:"tokens"`
	At         ts.Time `json:"at"`
}

// AutochargeRequest is the body of PUT /api/toolkit/ai/billing/autocharge.
type AutochargeRequest struct {
	Enabled   *bool        `json:"enabled" description:"Default true; false turns the rule off and keeps its threshold and pack."`
	Threshold ledger.Count `json:"threshold" required:"true" description:"Whole tokens, 1 to 100000."`
	Pack      string       `json:"pack" required:"true" enum:"100,500,2000"`
}

// Fired is the answer of POST /api/toolkit/ai/billing/autocharge/run.
type Fired struct {
	Fired      bool    `json:"fired" description:"True when this call charged the pack."`
	Reason     string  `json:"reason" enum:"charged,off,not_short,already_today" description:"charged: the provider charged the saved method (its delivery credits the pack); off: no rule is on; not_short: spendable is at or above the threshold; already_today: the rule charged today already."`
	Spendable  int64   `json:"spendable"`
	Threshold  int64   `json:"threshold"`
	Pack       *string `json:"pack"`
	CheckoutID string  `json:"checkoutId,omitempty" description:"The order's checkout, charged or charged earlier today."`
}

func (s *Service) charger() (Charger, bool) {
	c, ok := s.provider.(Charger)
	return c, ok
}

func packName(n int64) *string {
	if n == 0 {
		return nil
	}
	v := itoa(n)
	return &v
}

// Autocharge answers the house's rule; every seat and key reads it.
func (s *Service) Autocharge(ctx context.Context, p auth.Principal) (Autocharge, error) {
	r, last, err := s.store.Autocharge(ctx, p.HouseID)
	if err != nil {
		return Autocharge{}, err
	}
	_, can := s.charger()
	out := Autocharge{Enabled: r.Enabled, Threshold: r.Threshold, Pack: packName(r.PackTokens), Available: can}
	if last != nil {
		out.LastRun = &Run{Day: last.Day, CheckoutID: last.CheckoutID, Tokens: last.Tokens, At: ts.Of(last.CreatedAt)}
	}
	return out, nil
}

// SetAutocharge sets the house's rule: an owner's session with a provider
// (Spend), and, to turn it on, a provider that can charge a saved method.
func (s *Service) SetAutocharge(ctx context.Context, p auth.Principal, in AutochargeRequest) (Autocharge, error) {
	if err := s.Spend(p); err != nil {
		return Autocharge{}, err
	}
	n, ok := in.Threshold.Int()
	if !ok || n < 1 || n > ledger.MaxGrant {
		return Autocharge{}, ErrBadThreshold
	}
	var pack int64
	for _, pk := range s.opts.Prices.TopUps {
		if itoa(pk.Tokens) == strings.TrimSpace(in.Pack) {
			pack = pk.Tokens
		}
	}
	if pack == 0 {
		return Autocharge{}, ErrBadPack
	}
	enabled := in.Enabled == nil || *in.Enabled
	if _, can := s.charger(); enabled && !can {
		return Autocharge{}, ErrAutochargeUnavailable
	}
	if err := s.store.SetAutocharge(ctx, p.HouseID, p.UserID,
		AutochargeRule{Enabled: enabled, Threshold: n, PackTokens: pack}); err != nil {
		return Autocharge{}, err
	}
	return s.Autocharge(ctx, p)
}

// RunAutocharge fires the standing order if the house is short: the
// provider charges the saved method for the pack, once a UTC day at most
// (concurrent runs charge once: the day's row is claimed first). Nothing
// is credited here; the provider's signed delivery of the order is. An
// owner's session with a provider runs it (Spend).
func (s *Service) RunAutocharge(ctx context.Context, p auth.Principal) (Fired, error) {
	if err := s.Spend(p); err != nil {
		return Fired{}, err
	}
	return s.fire(ctx, p.HouseID, p.UserID, p.Email)
}

// fire is a run of the house's standing order, by the user it is
// attributed to (the route's caller, or the rule's author for a charge the
// order makes by itself).
func (s *Service) fire(ctx context.Context, house, userID, email string) (Fired, error) {
	ch, can := s.charger()
	if !can {
		return Fired{}, ErrAutochargeUnavailable
	}
	st := s.store
	p := auth.Principal{HouseID: house, UserID: userID, Email: email}
	r, last, err := st.Autocharge(ctx, p.HouseID)
	if err != nil {
		return Fired{}, err
	}
	out := Fired{Threshold: r.Threshold, Pack: packName(r.PackTokens)}
	b, err := st.Balance(ctx, p.HouseID)
	if err != nil {
		return Fired{}, err
	}
	out.Spendable = b.Balance
	now := s.opts.Now().UTC()
	day := now.Format(time.DateOnly)
	switch {
	case !r.Enabled:
		out.Reason = "off"
		return out, nil
	case last != nil && last.Day == day:
		out.Reason, out.CheckoutID = "already_today", last.CheckoutID
		return out, nil
	case b.Balance >= r.Threshold:
		out.Reason = "not_short"
		return out, nil
	}
	cust, err := s.store.Customer(ctx, p.HouseID, s.provider.Name())
	if err != nil {
		return Fired{}, err
	}
	if cust == "" {
		return Fired{}, ErrNoSavedMethod
	}
	c := Checkout{ID: uuid.Must(uuid.NewV7()).String(), House: p.HouseID, UserID: p.UserID, CreatedAt: now, Kind: KindTopUp,
		Tokens: r.PackTokens, Email: p.Email, CustomerID: cust}
	for _, pk := range s.opts.Prices.TopUps {
		if pk.Tokens == r.PackTokens {
			c.AmountCents = pk.PriceUSD * 100
		}
	}
	claimed, err := st.ClaimAutochargeDay(ctx, p.HouseID, AutochargeRun{Day: day, CheckoutID: c.ID, Tokens: c.Tokens, CreatedAt: now})
	if err != nil {
		return Fired{}, err
	}
	if !claimed {
		_, last, err := st.Autocharge(ctx, p.HouseID)
		if err != nil {
			return Fired{}, err
		}
		out.Reason = "already_today"
		if last != nil {
			out.CheckoutID = last.CheckoutID
		}
		return out, nil
	}
	err = ch.Charge(ctx, &c, func(c Checkout) error { return s.store.OpenCheckout(ctx, s.provider.Name(), c) })
	if err != nil {
		s.opts.Log.Warn("billing: autocharge refused", "provider", s.provider.Name(), "house", p.HouseID, "err", err)
		if rerr := st.ReleaseAutochargeDay(context.WithoutCancel(ctx), p.HouseID, day); rerr != nil {
			return Fired{}, rerr
		}
		return Fired{}, errs.Wrap(ErrAutocharge, err)
	}
	out.Fired, out.Reason, out.CheckoutID = true, "charged", c.ID
	return out, nil
}

// AutochargeLease is how long a worker holds a queued charge.
const AutochargeLease = 2 * time.Minute

// RunDue makes the charges settles queued, one house after another, and
// answers how many houses it dealt with. Each charge is a run of the
// standing order (so at most one a UTC day, and none when the balance
// rose again meanwhile); a house whose charge failed raises an operator
// alert (autocharge_failed) and is not retried until its balance has been
// at or above the threshold again. A worker that dies mid-charge leaves
// its lease to lapse; the next run finds the day's charge made.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	n := 0
	for {
		now := s.opts.Now()
		house, ok, err := s.store.ClaimAutochargeDue(ctx, now, now.Add(AutochargeLease))
		if err != nil || !ok {
			return n, err
		}
		n++
		r, _, err := s.store.Autocharge(ctx, house)
		if err != nil {
			return n, err
		}
		email, _ := s.store.BillingEmail(ctx, house)
		out, err := s.fire(ctx, house, r.UpdatedBy, email)
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err() // shutting down: the lease lapses and another run charges
			}
			s.opts.Log.Warn("billing: automatic top-up not charged", "house", house, "err", err)
			if aerr := s.store.RaiseAlert(context.WithoutCancel(ctx), uuid.Must(uuid.NewV7()).String(), "autocharge_failed", house,
				"The standing order's automatic charge failed: "+err.Error(), s.opts.Now()); aerr != nil {
				return n, aerr
			}
		} else {
			s.opts.Log.Info("billing: automatic top-up", "house", house, "reason", out.Reason, "checkout", out.CheckoutID)
		}
		if err := s.store.DoneAutochargeDue(context.WithoutCancel(ctx), house); err != nil {
			return n, err
		}
	}
}

// RunAutocharges makes queued charges every period until ctx ends.
func (s *Service) RunAutocharges(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.RunDue(ctx); err != nil && ctx.Err() == nil {
			s.opts.Log.Warn("billing: automatic top-ups", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
