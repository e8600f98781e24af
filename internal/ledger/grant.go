package ledger

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/ts"
)

// MaxReason bounds the length of a grant's reason, in characters.
const MaxReason = 500

// GrantRequest is the body of POST /api/toolkit/admin/grant-tokens.
type GrantRequest struct {
	UserID     string `json:"userId,omitempty" description:"The user whose personal house is credited; or send email."`
	Email      string `json:"email,omitempty" description:"The e-mail of the user, when userId is not sent (userId wins when both are)."`
	Tokens     Count  `json:"tokens" required:"true" description:"Whole tokens to grant, 1 to 100000."`
	ExpiryDays *int64 `json:"expiryDays,omitempty" nullable:"true" minimum:"1" maximum:"3650" description:"Days until the grant expires; absent or null: never."`
	Reason     string `json:"reason,omitempty" maxLength:"500" description:"Why the tokens were granted, kept with the grant."`

	tokens int64 // Tokens, checked by Validate
}

// Validate checks the request: USER_REQUIRED without a userId or an email, BAD_TOKENS
// (with max) unless tokens is a whole number from 1 to MaxGrant, BAD_BODY
// for an expiry or reason out of bounds.
func (r *GrantRequest) Validate() error {
	r.UserID = strings.TrimSpace(r.UserID)
	r.Email = strings.ToLower(strings.TrimSpace(r.Email))
	if r.UserID == "" && r.Email == "" {
		return ErrUserRequired
	}
	n, ok := r.Tokens.Int()
	if !ok || n < 1 || n > MaxGrant {
		return ErrBadTokens
	}
	r.tokens = n
	if r.ExpiryDays != nil && (*r.ExpiryDays < 1 || *r.ExpiryDays > MaxExpiryDays) {
		return errs.Msg(errs.BadBody, "expiryDays must be a whole number of days from 1 to 3650, or null.")
	}
	r.Reason = strings.TrimSpace(r.Reason)
	if !utf8.ValidString(r.Reason) || utf8.RuneCountInString(r.Reason) > MaxReason {
		return errs.Msg(errs.BadBody, "reason must be at most 500 characters.")
	}
	return nil
}

// Count is a token amount as a request carries it. It accepts any JSON
// value, so that a string, a fraction or a boolean is answered BAD_TOKENS
// (the route's own code) rather than a generic BAD_BODY; Int reads it.
type Count struct {
	raw []byte
}

// UnmarshalJSON keeps the raw value for Int.
func (c *Count) UnmarshalJSON(b []byte) error {
	c.raw = append(c.raw[:0], b...)
	return nil
}

// MarshalJSON writes the value as it came (null when absent).
func (c Count) MarshalJSON() ([]byte, error) {
	if len(c.raw) == 0 {
		return []byte("null"), nil
	}
	return c.raw, nil
}

// JSONSchemaBytes documents a count as the integer it must be.
func (Count) JSONSchemaBytes() ([]byte, error) {
	return []byte(`{"type":"integer","minimum":1,"maximum":100000}`), nil
}

// CountOf makes a Count of n (the studio tokens grant command).
func CountOf(n int64) Count { return Count{raw: strconv.AppendInt(nil, n, 10)} }

// Int returns the count when the value is a JSON integer literal (digits
// with an optional minus sign: no fraction, exponent, quotes or null) that
// fits in an int64.
func (c Count) Int() (int64, bool) {
	s := bytes.TrimSpace(c.raw)
	if len(s) == 0 {
		return 0, false
	}
	digits := s
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Granted is the answer of POST /api/toolkit/admin/grant-tokens.
type Granted struct {
	OK             bool     `json:"ok"`
	Granted        string   `json:"granted" description:"The id of the new grant, for the audit trail."`
	Tokens         int64    `json:"tokens" description:"The tokens granted."`
	ExpiresAt      *ts.Time `json:"expiresAt" description:"When the grant expires; null: never."`
	OrganizationID string   `json:"organizationId" description:"The house credited: the user's personal house."`
}

var _ json.Unmarshaler = (*Count)(nil)
