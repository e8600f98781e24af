// Package auth defines who is asking: the principal a request resolves to,
// its role in the house, and the predicates the services check.
package auth

import (
	"context"

	"studio/internal/errs"
)

// Role is a seat's or a key's standing in a house, ordered by authority.
type Role string

const (
	Viewer Role = "viewer"
	Member Role = "member"
	Admin  Role = "admin"
	Owner  Role = "owner"
)

// Roles lists every role, weakest first.
var Roles = []Role{Viewer, Member, Admin, Owner}

func (r Role) rank() int {
	switch r {
	case Viewer:
		return 1
	case Member:
		return 2
	case Admin:
		return 3
	case Owner:
		return 4
	}
	return 0
}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// AtLeast reports whether r carries at least the authority of min.
func (r Role) AtLeast(min Role) bool { return r.rank() >= min.rank() }

// Credential is how the principal proved itself.
type Credential uint8

const (
	CredNone    Credential = iota
	CredSession            // browser session cookie
	CredKey                // organization API key (bearer)
)

// Principal is the one identity a request resolves to.
type Principal struct {
	UserID        string
	HouseID       string // the active house (session) or the key's house
	Role          Role
	Cred          Credential
	SessionID     string // set for sessions
	KeyID         string // set for keys
	Email         string // set for sessions
	PlatformAdmin bool   // a session whose email is on the allowlist
}

// The role rules of SPEC §1, each decided here once: the services call
// them, so every face (HTTP, MCP, the console) meets the same refusal.
// A domain whose refusal has a wire code of its own (role_cannot_edit_marks)
// asks the same rule and answers its code.
var (
	ErrViewerSpend = errs.Msg(errs.Forbidden, "A viewer may not spend tokens.")
	ErrViewerEdit  = errs.Msg(errs.Forbidden, "A viewer may read the house's work but not change it.")
	ErrNotAdmin    = errs.Msg(errs.Forbidden, "Only an owner or an admin of the house may do this.")
	ErrNotPayer    = errs.Msg(errs.Forbidden, "Only an owner of the house, signed in, may spend money.")
	ErrNotKeyMaker = errs.Msg(errs.Forbidden, "Only a member or above, signed in, may mint or revoke API keys.")
	ErrNoSeat      = errs.Msg(errs.Forbidden, "You hold no seat in this house.")
	ErrNotOperator = errs.Msg(errs.Forbidden, "This route is for platform administrators.")
)

// MayRead refuses a principal that holds no seat in its house (a session
// whose seat in its active house is gone): every seat reads, a viewer too.
func (p Principal) MayRead() error { return refuse(p.Role.Valid() && p.HouseID != "", ErrNoSeat) }

// MaySpend refuses a principal that may not spend tokens: a viewer.
func (p Principal) MaySpend() error { return refuse(p.Role.AtLeast(Member), ErrViewerSpend) }

// MayEdit refuses a principal that may not change the house's work (its
// library, looks, brand, notes, shares...): a viewer reads only.
func (p Principal) MayEdit() error { return refuse(p.Role.AtLeast(Member), ErrViewerEdit) }

// MayManage refuses a role that may not manage the house (its seats,
// webhooks and settings): below admin. It is the role's rule, not the
// principal's: a seat change weighs the weaker of the caller's key and seat.
func (r Role) MayManage() error { return refuse(r.AtLeast(Admin), ErrNotAdmin) }

// MayPay refuses a principal that may not spend money (checkouts, the
// billing portal and e-mail): anything but an owner's own session.
func (p Principal) MayPay() error {
	return refuse(p.Cred == CredSession && p.Role == Owner, ErrNotPayer)
}

// MayMintKeys refuses a principal that may not mint or revoke API keys:
// anything but a session whose seat is member or above.
func (p Principal) MayMintKeys() error {
	return refuse(p.Cred == CredSession && p.Role.AtLeast(Member), ErrNotKeyMaker)
}

// MayOperate refuses anything but a platform administrator's session (the
// allowlisted e-mail, signed in: a key is never an operator).
func (p Principal) MayOperate() error {
	return refuse(p.PlatformAdmin && p.Cred == CredSession, ErrNotOperator)
}

func refuse(ok bool, no *errs.Error) error {
	if ok {
		return nil
	}
	return no
}

type ctxKey struct{}

// With returns ctx carrying p.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From returns the principal in ctx; the zero Principal when there is none.
func From(ctx context.Context) Principal {
	p, _ := ctx.Value(ctxKey{}).(Principal)
	return p
}
