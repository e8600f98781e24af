package billing

import (
	"context"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
)

// Explore (SPEC §4.19): the offerings a house may take, in one list: the
// catalogue's faces (free ones are granted at once, priced ones open a
// model checkout), the top-up packs and the paid plans (each opens its
// checkout). A priced take is money: an owner's session and a provider, as
// every checkout; a free take is a member's (a viewer reads only).

// Offering kinds.
const (
	OfferModel   = "model"
	OfferPosture = "posture"
	OfferPack    = "pack"
	OfferPlan    = "plan"
)

// Offering is one entry of GET /api/toolkit/explore.
type Offering struct {
	Kind       string `json:"kind" enum:"model,posture,pack,plan"`
	ID         string `json:"id" description:"The face's id, the posture's id, the pack's tokens (\"500\") or the plan's tier (\"studio\"): the {id} of the take route."`
	Name       string `json:"name"`
	Tier       string `json:"tier,omitempty" description:"A face's tier (free, sale, exclusive), a posture's tier (2, 3) or a plan's tier."`
	PriceCents int64  `json:"priceCents" description:"What taking it costs, in cents of currency (a plan: a month); 0 when free."`
	Currency   string `json:"currency"`
	Free       bool   `json:"free" description:"Taking it grants it now; nothing is paid."`
	Tokens     int64  `json:"tokens,omitempty" description:"A pack's tokens, a plan's monthly tokens."`
	CoverURL   string `json:"coverUrl,omitempty" description:"A face's cover image."`
	Taken      bool   `json:"taken" description:"The house holds it already (a face it claimed, a posture in its exploreAdded prefs, the plan it runs); taking it again is ALREADY_YOURS."`
}

// ExploreBody is the answer of GET /api/toolkit/explore.
type ExploreBody struct {
	Offerings []Offering `json:"offerings" description:"Faces first (the board's order; faces another house holds exclusively are absent), then postures of tier 2 and up, then packs, then plans."`
}

// TakeAnswer is the answer of POST /api/toolkit/explore/{kind}/{id}/take.
type TakeAnswer struct {
	Kind       string `json:"kind" enum:"model,posture,pack,plan"`
	ID         string `json:"id"`
	Granted    bool   `json:"granted" description:"True for a free offering: the house holds it now."`
	URL        string `json:"url,omitempty" description:"A priced offering: the provider's hosted checkout; nothing is granted until its signed delivery."`
	CheckoutID string `json:"checkoutId,omitempty"`
	Pending    bool   `json:"pending" description:"A checkout was opened (or answered again) and awaits payment."`
	Already    bool   `json:"already" description:"A repeat take of a face answered the house's open checkout again."`
}

// FaceClaimer is what a free take needs from persistence.
type FaceClaimer interface {
	// ClaimFace gives the house a live claim on a face.
	ClaimFace(ctx context.Context, house, faceID, kind string) error
}

// Explore lists the offerings; faces are the house's board minus its own
// models. Every seat and key reads it.
func (s *Service) Explore(ctx context.Context, p auth.Principal, faces []Face, covers map[string]string, postures []Offering) (ExploreBody, error) {
	plan, err := s.store.Plan(ctx, p.HouseID)
	if err != nil {
		return ExploreBody{}, err
	}
	out := ExploreBody{Offerings: []Offering{}}
	for _, f := range faces {
		if f.Mine {
			continue
		}
		out.Offerings = append(out.Offerings, Offering{Kind: OfferModel, ID: f.ID, Name: f.Name, Tier: f.Tier, PriceCents: f.PriceCents,
			Currency: f.Currency, Free: f.Tier == "free", CoverURL: covers[f.ID], Taken: f.Owned})
	}
	out.Offerings = append(out.Offerings, postures...)
	for _, pk := range s.opts.Prices.TopUps {
		out.Offerings = append(out.Offerings, Offering{Kind: OfferPack, ID: itoa(pk.Tokens), Name: itoa(pk.Tokens) + "-token pack",
			PriceCents: pk.PriceUSD * 100, Currency: ModelCurrency, Tokens: pk.Tokens})
	}
	for _, o := range s.opts.Prices.Plans {
		if o.Tier == ledger.TierTrial {
			continue
		}
		out.Offerings = append(out.Offerings, Offering{Kind: OfferPlan, ID: string(o.Tier), Name: o.Name, Tier: string(o.Tier),
			PriceCents: o.PriceUSD * 100, Currency: ModelCurrency, Tokens: o.MonthlyTokens, Taken: runs(plan, o.Tier)})
	}
	return out, nil
}

// runs reports whether the house's plan is tier and still paid for.
func runs(p ledger.Plan, tier ledger.PlanTier) bool {
	return p.Tier == tier && (p.Status == ledger.Active || p.Status == ledger.PastDue)
}

// AdmitTake is who may take an offering: not a viewer (a take changes
// what the house holds). The take methods ask it first; the take route
// asks it before it looks anything up, since it asks other services too.
func AdmitTake(p auth.Principal) error { return p.MayEdit() }

// TakeFace takes a face the house may see: a free one is claimed now (no
// money, so no entitlement: entitlements are paid orders); a priced one
// opens the model checkout (an owner's session and a provider first).
func (s *Service) TakeFace(ctx context.Context, claims FaceClaimer, p auth.Principal, f Face) (TakeAnswer, error) {
	if err := AdmitTake(p); err != nil {
		return TakeAnswer{}, err
	}
	out := TakeAnswer{Kind: OfferModel, ID: f.ID}
	switch {
	case f.Mine || f.Owned:
		return TakeAnswer{}, ErrAlreadyYours
	case f.Tier == "free":
		if err := claims.ClaimFace(ctx, p.HouseID, f.ID, "purchase"); err != nil {
			return TakeAnswer{}, err
		}
		out.Granted = true
		return out, nil
	}
	if err := s.Spend(p); err != nil {
		return TakeAnswer{}, err
	}
	o, err := s.ModelCheckout(ctx, p, f)
	if err != nil {
		return TakeAnswer{}, err
	}
	out.URL, out.CheckoutID, out.Pending, out.Already = o.URL, o.CheckoutID, o.Pending, o.Already
	return out, nil
}

// TakeOffer takes a pack or a plan: both open their checkout (an owner's
// session and a provider first). An unknown pack or tier is the one 404; the
// plan the house runs is ALREADY_YOURS.
func (s *Service) TakeOffer(ctx context.Context, p auth.Principal, kind, id string) (TakeAnswer, error) {
	if err := AdmitTake(p); err != nil {
		return TakeAnswer{}, err
	}
	out := TakeAnswer{Kind: kind, ID: id}
	var open func() (Opened, error)
	switch kind {
	case OfferPack:
		for _, pk := range s.opts.Prices.TopUps {
			if itoa(pk.Tokens) == id {
				open = func() (Opened, error) { return s.TopUp(ctx, p, TopUpRequest{Pack: id}) }
			}
		}
	case OfferPlan:
		if o, ok := s.opts.Prices.Plan(ledger.PlanTier(id)); ok && o.Tier != ledger.TierTrial {
			open = func() (Opened, error) { return s.Subscribe(ctx, p, SubscriptionRequest{Tier: id}) }
		}
	}
	if open == nil {
		return TakeAnswer{}, errs.NotFound
	}
	if err := s.Spend(p); err != nil {
		return TakeAnswer{}, err
	}
	if kind == OfferPlan {
		plan, err := s.store.Plan(ctx, p.HouseID)
		if err != nil {
			return TakeAnswer{}, err
		}
		if runs(plan, ledger.PlanTier(id)) {
			return TakeAnswer{}, ErrAlreadyYours
		}
	}
	o, err := open()
	if err != nil {
		return TakeAnswer{}, err
	}
	out.URL, out.CheckoutID, out.Pending = o.URL, o.CheckoutID, true
	return out, nil
}
