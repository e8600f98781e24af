// Package account is identity: users, their houses and seats, sign-up and
// sign-in, sessions and e-mail verification (DECISIONS §2).
package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/mail"
	"strings"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// User is a person who signs in. Work belongs to houses, never to users.
type User struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Email         string  `json:"email"`
	EmailVerified bool    `json:"emailVerified"`
	Image         *string `json:"image"`
	CreatedAt     ts.Time `json:"-"`
}

// House is an organization: it owns work, imagery, tokens and money.
type House struct {
	ID            string
	Name          string
	Personal      bool
	FounderUserID string
	CreatedAt     ts.Time
}

// Membership is a house as one of its members sees it.
type Membership struct {
	ID   string    `json:"id"`
	Name string    `json:"name"`
	Role auth.Role `json:"role"`
}

// Session is a signed-in browser.
type Session struct {
	ID                   string  `json:"id"`
	ExpiresAt            ts.Time `json:"expiresAt"`
	ActiveOrganizationID string  `json:"activeOrganizationId"`
}

// Codes raised by identity.
var (
	ErrWeakPassword = errs.New(errs.KindInvalid, "WEAK_PASSWORD", "The password must be 10 to 128 characters long.")
	ErrBadEmail     = errs.New(errs.KindInvalid, "BAD_EMAIL", "The e-mail address is not valid.")
	ErrRegistered   = errs.Msg(errs.AlreadyRegistered, "An account with this e-mail address already exists.")
	ErrInvalidCreds = errs.New(errs.KindUnauthorized, "INVALID_CREDENTIALS", "The e-mail address or password is wrong.")
	ErrBadToken     = errs.New(errs.KindInvalid, "BAD_TOKEN", "The verification link is invalid or has expired.")
	ErrInviteNeeded = errs.New(errs.KindForbidden, "INVITE_REQUIRED", "Sign-up on this installation needs an invitation.")
)

// SessionTTL is how long a session lives without use.
const SessionTTL = 30 * 24 * time.Hour

// SignUpRequest is the body of POST /api/auth/sign-up/email.
type SignUpRequest struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Validate checks the fields and normalises the address.
func (r *SignUpRequest) Validate() error {
	r.Name = strings.TrimSpace(r.Name)
	if r.Name == "" || len(r.Name) > 200 {
		return errs.Msg(errs.BadBody, "A name of 1 to 200 characters is required.")
	}
	email, err := NormalEmail(r.Email)
	if err != nil {
		return err
	}
	r.Email = email
	if n := len([]rune(r.Password)); n < 10 || n > 128 {
		return ErrWeakPassword
	}
	return nil
}

// SignInRequest is the body of POST /api/auth/sign-in/email.
type SignInRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Validate checks that both fields are present.
func (r *SignInRequest) Validate() error {
	if strings.TrimSpace(r.Email) == "" || r.Password == "" {
		return errs.Msg(errs.BadBody, "E-mail and password are required.")
	}
	r.Email = strings.ToLower(strings.TrimSpace(r.Email))
	return nil
}

// SetActiveRequest is the body of POST /api/auth/organization/set-active.
type SetActiveRequest struct {
	OrganizationID string `json:"organizationId"`
}

// Validate checks the id is present.
func (r *SetActiveRequest) Validate() error {
	if r.OrganizationID == "" {
		return errs.Msg(errs.BadBody, "organizationId is required.")
	}
	return nil
}

// NormalEmail lower-cases and trims an e-mail address and checks it is one
// plain address with a dotted domain; BAD_EMAIL otherwise.
func NormalEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 || !strings.Contains(s[strings.IndexByte(s, '@'):], ".") {
		return "", ErrBadEmail
	}
	return s, nil
}

// NewToken returns a fresh 256-bit secret, base64url without padding.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Hash is the stored form of a secret: SHA-256, hex.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Principal builds the principal of a session.
func (s Session) principal(userID, email string, role auth.Role, admin bool) auth.Principal {
	return auth.Principal{
		UserID: userID, HouseID: s.ActiveOrganizationID, Role: role,
		Cred: auth.CredSession, SessionID: s.ID, Email: email, PlatformAdmin: admin,
	}
}
