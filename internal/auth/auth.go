// Package auth defines who is asking: the principal a request resolves to,
// its role in the house, and the predicates the services check.
package auth

import "context"

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

// CanSpend reports whether the principal may spend tokens (member and up).
func (p Principal) CanSpend() bool { return p.Role.AtLeast(Member) }

// CanEdit reports whether the principal may change house data (member and up).
func (p Principal) CanEdit() bool { return p.Role.AtLeast(Member) }

// CanMintKeys reports whether the principal may mint API keys: a session
// whose seat is member or above.
func (p Principal) CanMintKeys() bool { return p.Cred == CredSession && p.Role.AtLeast(Member) }

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
