package ledger

import (
	"context"
	"errors"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Store is what the ledger's use cases need from persistence; sqlstore
// implements it. Holds are taken and resolved by the job engine through its
// own store, in the same transactions as its job rows.
type Store interface {
	// Balance derives the house's balance parts and open holds.
	Balance(ctx context.Context, house string) (Balance, error)
	// CreditPersonalHouse adds a credit to the personal house the user
	// founded and returns that house; errs.NotFound when there is none.
	CreditPersonalHouse(ctx context.Context, userID string, c Credit) (string, error)
	// UserIDByEmail names the user with the (lowercase) e-mail;
	// errs.NotFound when there is none.
	UserIDByEmail(ctx context.Context, email string) (string, error)
}

// Service runs the ledger's use cases.
type Service struct {
	store  Store
	prices Prices
	now    func() time.Time
}

// NewService returns the ledger service serving the price list prices.
func NewService(store Store, prices Prices, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, prices: prices, now: now}
}

// Prices returns the live price list.
func (s *Service) Prices() Prices { return s.prices }

// Catalog returns the live price list for the wire. Any caller may read it.
func (s *Service) Catalog() Catalog { return s.prices.Catalog() }

// Balance returns the house's balance. Every seat may read it, a viewer
// too; a session whose seat in its active house is gone may not.
func (s *Service) Balance(ctx context.Context, p auth.Principal) (Balance, error) {
	if err := p.MayRead(); err != nil {
		return Balance{}, err
	}
	return s.store.Balance(ctx, p.HouseID)
}

// Grant credits the grant part of a user's personal house: the house the
// user founded at sign-up. A user's "active" house is a property of each
// session, not of the user, so the one house that is always and only theirs
// is the one credited. Only a platform administrator's session may grant.
func (s *Service) Grant(ctx context.Context, p auth.Principal, in GrantRequest) (Granted, error) {
	if err := p.MayOperate(); err != nil {
		return Granted{}, err
	}
	return s.grant(ctx, p.UserID, in)
}

// GrantAsOperator is Grant for the operator of the installation (the
// studio tokens grant command, which holds the database itself): the same
// ledger rows, with no granting user recorded.
func (s *Service) GrantAsOperator(ctx context.Context, in GrantRequest) (Granted, error) {
	return s.grant(ctx, "", in)
}

func (s *Service) grant(ctx context.Context, by string, in GrantRequest) (Granted, error) {
	if in.tokens == 0 { // not validated by decode: validate here
		if err := in.Validate(); err != nil {
			return Granted{}, err
		}
	}
	if in.UserID == "" {
		id, err := s.store.UserIDByEmail(ctx, in.Email)
		if errors.Is(err, errs.NotFound) {
			return Granted{}, ErrUserNotFound
		}
		if err != nil {
			return Granted{}, err
		}
		in.UserID = id
	}
	now := s.now()
	c := NewGrant(in.tokens, SourceAdmin, nil)
	c.Reason, c.GrantedBy, c.CreatedAt = in.Reason, by, ts.Of(now)
	if in.ExpiryDays != nil {
		exp := ts.Of(now.Add(time.Duration(*in.ExpiryDays) * 24 * time.Hour))
		c.ExpiresAt = &exp
	}
	house, err := s.store.CreditPersonalHouse(ctx, in.UserID, c)
	if errors.Is(err, errs.NotFound) {
		return Granted{}, ErrUserNotFound
	}
	if err != nil {
		return Granted{}, err
	}
	return Granted{OK: true, Granted: c.ID, Tokens: c.Tokens, ExpiresAt: c.ExpiresAt, OrganizationID: house}, nil
}
