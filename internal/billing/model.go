package billing

import (
	"context"
	"errors"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
)

// Model checkout (SPEC §4.10): an owner buys a catalogue face at the
// provider. The route never grants: the provider's signed delivery of the
// paid order writes the entitlement and the house's claim on the face, the
// exclusive claim for an exclusive face, a purchase for a face on sale.

// KindModel is a checkout that sells a catalogue face.
const KindModel Kind = "model"

// ModelCurrency is the one currency the providers here charge in.
const ModelCurrency = "usd"

// PendingFor is how long another house's open checkout for an exclusive
// face keeps it from being sold again (a hosted checkout's life at Polar).
const PendingFor = time.Hour

// Codes of model checkout (SPEC §4.10, §7).
var (
	ErrAlreadyYours    = errs.New(errs.KindInvalid, "ALREADY_YOURS", "The house already holds this model: it made it or bought it. Nothing to buy.")
	ErrFreeModel       = errs.New(errs.KindInvalid, "FREE_MODEL", "This model is free to cast: there is nothing to buy.")
	ErrNotForSale      = errs.New(errs.KindInvalid, "NOT_FOR_SALE", "This model has no price in US dollars, so it cannot be bought here.")
	ErrTaken           = errs.New(errs.KindConflict, "TAKEN", "Another house holds this face exclusively now; the house's open checkout for it was not paid. Nothing was charged.")
	ErrCheckoutPending = errs.New(errs.KindConflict, "CHECKOUT_PENDING", "Another house has an open checkout for this exclusive face; it is free again if that checkout is not paid within an hour.")
)

// Face is a casting board entry as model checkout needs it.
type Face struct {
	ID         string
	Name       string
	Tier       string // free, sale or exclusive
	PriceCents int64
	Currency   string
	Owned      bool // the house holds a claim on it
	Mine       bool // the house made it
}

// ModelStore is what model checkout needs from persistence.
type ModelStore interface {
	// OpenFaceCheckout returns the house's open checkout for the face at
	// the provider, if any.
	OpenFaceCheckout(ctx context.Context, house, provider, faceID string) (Checkout, bool, error)
	// FacePendingElsewhere reports whether another house opened a checkout
	// for the face since then that is still open.
	FacePendingElsewhere(ctx context.Context, house, faceID string, since time.Time) (bool, error)
}

// ModelOpened is what model checkout answers; the route adds the model.
// Pending is always true (the route never grants); Already is true on a
// repeat click (the house's open checkout for the face, answered again).
type ModelOpened struct {
	URL, CheckoutID      string
	Pending, OK, Already bool
}

// ModelCheckout opens (or answers again) the house's checkout for a face:
// an owner's session and a provider first (Spend; the route asks it too,
// before it looks the face up), then the face as the house may see it.
func (s *Service) ModelCheckout(ctx context.Context, p auth.Principal, f Face) (ModelOpened, error) {
	if err := s.Spend(p); err != nil {
		return ModelOpened{}, err
	}
	switch {
	case f.Mine || f.Owned:
		return ModelOpened{}, ErrAlreadyYours
	case f.Tier == "free":
		return ModelOpened{}, ErrFreeModel
	case f.PriceCents <= 0 || f.Currency != ModelCurrency:
		return ModelOpened{}, ErrNotForSale
	}
	if c, ok, err := s.store.OpenFaceCheckout(ctx, p.HouseID, s.provider.Name(), f.ID); err != nil || ok {
		return ModelOpened{URL: c.URL, CheckoutID: c.ID, Pending: true, OK: true, Already: true}, err
	}
	if f.Tier == "exclusive" {
		busy, err := s.store.FacePendingElsewhere(ctx, p.HouseID, f.ID, s.opts.Now().Add(-PendingFor))
		if err != nil {
			return ModelOpened{}, err
		}
		if busy {
			return ModelOpened{}, ErrCheckoutPending
		}
	}
	c := Checkout{Kind: KindModel, FaceID: f.ID, FaceName: f.Name, AmountCents: f.PriceCents}
	o, err := s.open(ctx, p, c)
	if errors.Is(err, errs.Conflict) { // a concurrent click opened the house's checkout first
		c, ok, err := s.store.OpenFaceCheckout(ctx, p.HouseID, s.provider.Name(), f.ID)
		if err != nil || ok {
			return ModelOpened{URL: c.URL, CheckoutID: c.ID, Pending: true, OK: true, Already: true}, err
		}
		return ModelOpened{}, ErrAlreadyYours // ... and it was paid in between
	}
	if err != nil {
		return ModelOpened{}, err
	}
	return ModelOpened{URL: o.URL, CheckoutID: o.CheckoutID, Pending: true, OK: true}, nil
}

// FaceGone answers a checkout click on a face the house may no longer see:
// TAKEN when the house had an open checkout for it (another house's paid
// order claimed it exclusively since), else the one 404. Only who may pay
// (Spend) may learn it was taken: anyone else gets the 404.
func (s *Service) FaceGone(ctx context.Context, p auth.Principal, faceID string) error {
	if s.Spend(p) != nil {
		return errs.NotFound
	}
	if _, ok, err := s.store.OpenFaceCheckout(ctx, p.HouseID, s.provider.Name(), faceID); err != nil {
		return err
	} else if ok {
		return ErrTaken
	}
	return errs.NotFound
}
