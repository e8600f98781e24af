package ops

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// The operators' view of entitlements: what the payment provider's paid
// orders gave every house, and the revoke that ends one. A revoke never
// edits history: it is a row of its own, and the tokens it takes back are a
// ledger row of their own (sqlstore.RevokeEntitlement).

// Codes raised by the entitlement routes.
var (
	ErrEntitlementRequired = errs.New(errs.KindInvalid, "ENTITLEMENT_REQUIRED", "Name the entitlement to revoke (entitlementId).")
	ErrBadReason           = errs.Msg(errs.BadReason, "reason is plain text of at most 500 characters.")
)

// MaxReason bounds a revoke's reason, in characters.
const MaxReason = 500

// Entitlement statuses.
const (
	EntitlementActive  = "active"
	EntitlementRevoked = "revoked"
)

// Entitlement is a paid order's entitlement as the operators see it.
type Entitlement struct {
	ID          string      `json:"id"`
	House       House       `json:"house"`
	Provider    string      `json:"provider" enum:"local,polar"`
	OrderID     string      `json:"orderId" description:"The provider's order."`
	Kind        string      `json:"kind" enum:"topup,subscription,renewal,custom,model"`
	Tier        string      `json:"tier,omitempty" description:"The plan tier, for a subscription or a renewal."`
	FaceID      string      `json:"faceId,omitempty" description:"The catalogue face a model order bought."`
	Claim       string      `json:"claim,omitempty" enum:"purchase,exclusive,taken" description:"What a model order gave the house."`
	Tokens      int64       `json:"tokens" description:"Tokens the order credited."`
	CreditID    string      `json:"creditId,omitempty" description:"The ledger credit the order wrote (none for a model order or a plan period that granted nothing)."`
	AmountCents int64       `json:"amountCents" description:"What the provider charged, in US cents."`
	CreatedAt   ts.Time     `json:"createdAt"`
	Status      string      `json:"status" enum:"active,revoked"`
	Revocation  *Revocation `json:"revocation,omitempty" description:"How it ended; absent while active."`
}

// Revocation is how an entitlement ended.
type Revocation struct {
	RevokedAt       ts.Time `json:"revokedAt"`
	RevokedBy       *string `json:"revokedBy" description:"The operator's user id; null once that user is erased."`
	Reason          string  `json:"reason" description:"The operator's note; the house does not see it."`
	TokensTakenBack int64   `json:"tokensTakenBack" description:"The credit's unreserved tokens, taken back at the revoke."`
	TokensPending   int64   `json:"tokensPending" description:"Tokens pending holds had reserved on the credit at the revoke: a hold posted later spent its part; a hold voided later gives its part to the revocation, never back to the house."`
	ClaimReleased   bool    `json:"claimReleased" description:"A model order's claim on its face was released (an exclusive face is free for other houses again)."`
}

// EntitlementFilter selects entitlements across houses, newest first.
type EntitlementFilter struct {
	House  string // "" any
	Kind   string // "" any
	Status string // "" any; active or revoked
	Before *EntitlementCursor
	Limit  int
}

// EntitlementCursor is the position below the last entitlement of a page.
type EntitlementCursor struct {
	CreatedAt int64
	ID        string
}

const entitlementCursorPrefix = "e1:"

// String encodes the cursor as the opaque nextCursor of the wire.
func (c EntitlementCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(entitlementCursorPrefix + strconv.FormatInt(c.CreatedAt, 10) + ":" + c.ID))
}

// ParseEntitlementCursor decodes a nextCursor; errs.BadCursor when it is
// not one.
func ParseEntitlementCursor(s string) (EntitlementCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	rest, ok := strings.CutPrefix(string(b), entitlementCursorPrefix)
	if err != nil || !ok || !utf8.ValidString(rest) {
		return EntitlementCursor{}, errs.BadCursor
	}
	ms, id, ok := strings.Cut(rest, ":")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || n < 0 || id == "" || len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return EntitlementCursor{}, errs.BadCursor
	}
	return EntitlementCursor{CreatedAt: n, ID: id}, nil
}

// EntitlementPage is the answer of the entitlements list.
type EntitlementPage struct {
	Entitlements []Entitlement `json:"entitlements" description:"Newest first."`
	NextCursor   *string       `json:"nextCursor" description:"Pass as before for the next older page; null on the last page."`
}

// RevokeRequest is the body of the revoke.
type RevokeRequest struct {
	EntitlementID string `json:"entitlementId" required:"true" maxLength:"100"`
	Reason        string `json:"reason,omitempty" maxLength:"500" description:"The operator's note, kept with the revocation."`
}

// Validate refuses a revoke without an entitlement or with a bad reason.
func (r *RevokeRequest) Validate() error {
	r.EntitlementID, r.Reason = strings.TrimSpace(r.EntitlementID), strings.TrimSpace(r.Reason)
	switch {
	case r.EntitlementID == "" || len(r.EntitlementID) > 100:
		return ErrEntitlementRequired
	case utf8.RuneCountInString(r.Reason) > MaxReason:
		return ErrBadReason
	}
	return nil
}

// Revoked is the answer of a revoke: the entitlement as it now stands (a
// repeat answers the first revoke's figures and writes nothing).
type Revoked struct {
	Entitlement Entitlement `json:"entitlement"`
}

// Entitlements lists entitlements across houses, newest first.
func (s *Service) Entitlements(ctx context.Context, p auth.Principal, f EntitlementFilter) (EntitlementPage, error) {
	if err := ensure(ctx, p); err != nil {
		return EntitlementPage{}, err
	}
	limit := f.Limit
	if limit < 1 || limit > 200 {
		return EntitlementPage{}, errs.Msg(errs.BadLimit, "limit must be a whole number from 1 to 200.")
	}
	f.Limit++
	es, err := s.store.EntitlementsAcross(ctx, f)
	if err != nil {
		return EntitlementPage{}, err
	}
	page := EntitlementPage{Entitlements: es}
	if len(es) > limit {
		page.Entitlements = es[:limit]
		last := es[limit-1]
		next := EntitlementCursor{CreatedAt: last.CreatedAt.UnixMilli(), ID: last.ID}.String()
		page.NextCursor = &next
	}
	return page, nil
}

// RevokeEntitlement ends an entitlement and takes back what it gave that
// is left; a repeat answers the first revoke.
func (s *Service) RevokeEntitlement(ctx context.Context, p auth.Principal, in RevokeRequest) (Revoked, error) {
	if err := ensure(ctx, p); err != nil {
		return Revoked{}, err
	}
	if err := in.Validate(); err != nil {
		return Revoked{}, err
	}
	e, err := s.store.RevokeEntitlement(ctx, in.EntitlementID, p.UserID, in.Reason)
	if err != nil {
		return Revoked{}, err
	}
	return Revoked{Entitlement: e}, nil
}
