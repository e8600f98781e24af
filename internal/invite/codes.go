package invite

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Codes of redeeming.
var (
	ErrBadCode     = errs.New(errs.KindInvalid, "BAD_CODE", "This is not an invite code: codes look like LABEL-7K3M9Q.")
	ErrCodeSpent   = errs.New(errs.KindInvalid, "CODE_SPENT", "This invite code has been used as many times as it allows.")
	ErrCodeExpired = errs.New(errs.KindInvalid, "CODE_EXPIRED", "This invite code has expired.")
	ErrCodeRevoked = errs.New(errs.KindInvalid, "CODE_REVOKED", "This invite code was withdrawn.")
	// ErrCodeTaken is the store's answer to a code text (or a user's
	// referral code) that exists already; minting retries on it.
	ErrCodeTaken = errs.New(errs.KindConflict, "CODE_TAKEN", "This invite code exists already.")
)

// Code is an invite code: an operator's (Owner empty) or a user's own
// referral code. Issue 16's admin routes list codes in this shape.
type Code struct {
	ID          string   `json:"id"`
	Code        string   `json:"code" description:"LABEL-XXXXXX: the label, a dash and six Crockford base32 characters."`
	Label       string   `json:"label"`
	GrantTokens int64    `json:"grantTokens" description:"Tokens the house of an address let in by the code receives at sign-up, beside the sign-up grant."`
	MaxUses     int64    `json:"maxUses" description:"How many addresses the code may let in."`
	UsedCount   int64    `json:"usedCount" description:"Addresses it let in."`
	JoinedCount int64    `json:"joinedCount" description:"Of those, how many signed up."`
	ExpiresAt   *ts.Time `json:"expiresAt"`
	RevokedAt   *ts.Time `json:"revokedAt"`
	CreatedAt   ts.Time  `json:"createdAt"`
	Owner       string   `json:"-"` // the user whose referral code it is
	CreatedBy   string   `json:"-"` // the operator who minted it
}

// crockford is the alphabet of a code's suffix: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// MaxLabel is the longest label.
const MaxLabel = 24

// ValidLabel reports whether label can start a code: 1 to 24 of A-Z, 0-9
// and inner dashes.
func ValidLabel(label string) bool {
	if label == "" || len(label) > MaxLabel || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for _, c := range label {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// NewCode returns label followed by a dash and six random Crockford
// base32 characters (30 bits).
func NewCode(label string) string {
	var b strings.Builder
	b.WriteString(label)
	b.WriteByte('-')
	for range 6 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(crockford))))
		b.WriteByte(crockford[n.Int64()])
	}
	return b.String()
}

// ParseCode reads a code as a person types it: spaces trimmed, any case,
// and in the suffix I and L read as 1, O as 0 (Crockford). It reports
// false when the text cannot be a code.
func ParseCode(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	i := strings.LastIndexByte(s, '-')
	if i < 0 || len(s)-i-1 != 6 || !ValidLabel(s[:i]) {
		return "", false
	}
	suffix := []byte(s[i+1:])
	for k, c := range suffix {
		switch c {
		case 'I', 'L':
			suffix[k] = '1'
		case 'O':
			suffix[k] = '0'
		}
		if !strings.ContainsRune(crockford, rune(suffix[k])) {
			return "", false
		}
	}
	return s[:i+1] + string(suffix), true
}

// RedeemRequest is the body of POST /api/toolkit/invite/redeem.
type RedeemRequest struct {
	Code  string `json:"code" required:"true" maxLength:"64"`
	Email string `json:"email" required:"true" maxLength:"254"`
}

// Opened answers a redeemed code: what the door brings.
type Opened struct {
	Status      string `json:"status" enum:"opened"`
	Label       string `json:"label" description:"The code's label."`
	GrantTokens int64  `json:"grantTokens" description:"Tokens the address's house receives at sign-up beside the sign-up grant (an address already let in keeps its own door: 0 when that brings none)."`
	Frames      int64  `json:"frames" description:"Packshot frames at 1k the grant pays for."`
	Looks       int64  `json:"looks" description:"Look frames at 1k the grant pays for."`
	Days        int64  `json:"days" description:"Days the grant stays spendable after sign-up: it expires with the trial."`
}

// Redeem opens the door for an address with a code: the address may then
// sign up, and its house receives the code's grant. No account is made. An
// address already let in (by any door, or with an account) uses no use.
func (s *Service) Redeem(ctx context.Context, client string, in RedeemRequest) (Opened, error) {
	code, ok := ParseCode(in.Code)
	if !ok {
		return Opened{}, ErrBadCode
	}
	email, err := account.NormalEmail(in.Email)
	if err != nil {
		return Opened{}, err
	}
	if Disposable(email) {
		return Opened{}, ErrDisposable
	}
	if err := s.take(ctx, "redeem:"+client, 10, time.Hour); err != nil {
		return Opened{}, err
	}
	now := s.opts.Now()
	var grant int64
	c, err := s.store.Redeem(ctx, code, email, now.UnixMilli(), func(c Code, alreadyIn bool) (bool, error) {
		switch {
		case c.RevokedAt != nil:
			return false, ErrCodeRevoked
		case c.ExpiresAt != nil && !c.ExpiresAt.After(now):
			return false, ErrCodeExpired
		case alreadyIn:
			return false, nil
		case c.UsedCount >= c.MaxUses:
			return false, ErrCodeSpent
		}
		grant = c.GrantTokens
		return true, nil
	})
	if err != nil {
		return Opened{}, err
	}
	return s.opened(c.Label, grant), nil
}

func (s *Service) opened(label string, grant int64) Opened {
	p := s.opts.Prices
	return Opened{Status: StatusOpened, Label: label, GrantTokens: grant,
		Frames: grant / p.Tool("packshot", ledger.Tier1K), Looks: grant / p.Tool("lookbook", ledger.Tier1K),
		Days: int64(ledger.TrialLength / (24 * time.Hour))}
}

// The referral program's values (docs/people.md, "Referral codes").
const (
	ReferralUses        = 5   // addresses a user's own code lets in
	ReferralGuestTokens = 40  // a guest's grant beside the sign-up grant
	ReferralHostTokens  = 100 // the host's reward once a guest subscribes (with billing)
	ReferralHoldDays    = 14  // how long a host's reward is held after the guest's first payment
)

// Referral answers GET /api/toolkit/invites/mine: the caller's own code
// and what it brings (docs/people.md, "Referral codes", defines each value).
type Referral struct {
	Code             string    `json:"code"`
	URL              string    `json:"url" description:"The link to share: the web app's join page with the code."`
	MaxUses          int64     `json:"maxUses" description:"Addresses the code may let in now."`
	BaseMaxUses      int64     `json:"baseMaxUses" description:"Addresses every user's code lets in to begin with (5)."`
	UsedCount        int64     `json:"usedCount"`
	InvitesLeft      int64     `json:"invitesLeft" description:"maxUses - usedCount, never below 0."`
	GuestLooks       int64     `json:"guestLooks" description:"Look frames at 1k a guest's arrival tokens pay for."`
	GuestTokens      int64     `json:"guestTokens" description:"Tokens a guest's house starts with: the sign-up grant plus the code's grant."`
	HostTokens       int64     `json:"hostTokens" description:"Tokens the caller's personal house receives for each guest whose house pays its first subscription, credited holdDays after that payment (void if the subscription is revoked before)."`
	GuestValueUSD    float64   `json:"guestValueUsd" description:"guestBonusTokens at the top-up price of the smallest pack, in US dollars."`
	GuestArrivalUSD  float64   `json:"guestArrivalUsd" description:"guestTokens at that price."`
	GuestBonusTokens int64     `json:"guestBonusTokens" description:"The code's grant: what a guest receives beyond the sign-up grant."`
	HostValueUSD     float64   `json:"hostValueUsd" description:"hostTokens at that price."`
	HoldDays         int64     `json:"holdDays" description:"Days a host's reward is held after the guest's first payment."`
	Invitees         []Invitee `json:"invitees" description:"Addresses the code let in, newest first."`
}

// Invitee is an address a referral code let in.
type Invitee struct {
	Email        string   `json:"email"`
	InvitedAt    ts.Time  `json:"invitedAt"`
	SignedUp     bool     `json:"signedUp"`
	Subscribed   bool     `json:"subscribed" description:"The guest's house paid its first subscription (the provider's delivery): the host's reward is held holdDays from subscribedAt."`
	SubscribedAt *ts.Time `json:"subscribedAt"`
}

// Mine returns the caller's own referral code, minting it on first read.
func (s *Service) Mine(ctx context.Context, p auth.Principal) (Referral, error) {
	c, err := s.store.ReferralCode(ctx, p.UserID)
	if errors.Is(err, errs.NotFound) {
		c, err = s.mintReferral(ctx, p.UserID)
	}
	if err != nil {
		return Referral{}, err
	}
	invitees, err := s.store.Invitees(ctx, c.ID)
	if err != nil {
		return Referral{}, err
	}
	rate := s.tokenUSD()
	guest := ledger.SignupTokens + c.GrantTokens
	return Referral{
		Code: c.Code, URL: s.opts.WebOrigin + "/join?code=" + c.Code,
		MaxUses: c.MaxUses, BaseMaxUses: ReferralUses, UsedCount: c.UsedCount, InvitesLeft: max(0, c.MaxUses-c.UsedCount),
		GuestLooks: guest / s.opts.Prices.Tool("lookbook", ledger.Tier1K), GuestTokens: guest,
		HostTokens: ReferralHostTokens, GuestBonusTokens: c.GrantTokens,
		GuestValueUSD: cents(float64(c.GrantTokens) * rate), GuestArrivalUSD: cents(float64(guest) * rate),
		HostValueUSD: cents(ReferralHostTokens * rate), HoldDays: ReferralHoldDays, Invitees: invitees,
	}, nil
}

// tokenUSD is what one token costs in the smallest top-up pack.
func (s *Service) tokenUSD() float64 {
	var best ledger.TopUpPack
	for _, t := range s.opts.Prices.TopUps {
		if best.Tokens == 0 || t.Tokens < best.Tokens {
			best = t
		}
	}
	if best.Tokens == 0 {
		return 0
	}
	return float64(best.PriceUSD) / float64(best.Tokens)
}

func cents(usd float64) float64 { return float64(int64(usd*100+0.5)) / 100 }

func (s *Service) mintReferral(ctx context.Context, userID string) (Code, error) {
	name, _, err := s.store.UserName(ctx, userID)
	if err != nil {
		return Code{}, err
	}
	label := referralLabel(name)
	for range 8 {
		c := Code{ID: uuid.Must(uuid.NewV7()).String(), Code: NewCode(label), Label: label, GrantTokens: ReferralGuestTokens,
			MaxUses: ReferralUses, Owner: userID, CreatedAt: ts.Of(s.opts.Now())}
		err := s.store.InsertCode(ctx, c)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, ErrCodeTaken) {
			return Code{}, err
		}
		if mine, err := s.store.ReferralCode(ctx, userID); err == nil { // minted meanwhile
			return mine, nil
		}
	}
	return Code{}, errors.New("invite: no free referral code after 8 tries")
}

// referralLabel makes a code's label of a name: its first word's letters
// and digits, upper case, at most 12; FRIEND when none are left.
func referralLabel(name string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r == ' ' && b.Len() > 0 {
			break
		}
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			if b.Len() == 12 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "FRIEND"
	}
	return b.String()
}
