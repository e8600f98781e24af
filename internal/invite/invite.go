// Package invite is the door in (SPEC §3 Invitation applicant, §4.13,
// DECISIONS §2 and §8): whether an address already has an account, the
// operators' invitations (a link with a token), the applicant list,
// invite codes that open the door for one address, each user's own
// referral code, and the link cards an applicant's form previews.
//
// # The door
//
// With STUDIO_SIGNUP=invite, sign-up succeeds only for an address with an
// open door: an operator's invitation (issued or accepted), a redeemed
// invite code, or a pending seat offer from a house. The new house
// receives the door's grant (the code's grantTokens) beside the sign-up
// grant, expiring with the trial. With STUDIO_SIGNUP=open anyone signs up
// and a door still brings its grant.
//
// # Limits (per client address: an IPv4 address or an IPv6 /64)
//
// check-email 10 a minute (past it the answer is {exists: false,
// hasPassword: false}, never an error), preview 20 a minute, redeem 10 an
// hour, request 5 an hour; past the others 429 RATE_LIMITED with Retry-After.
package invite

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ratelimit"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// Codes raised at the door.
var (
	ErrAccepted = errs.New(errs.KindGone, "INVITE_ACCEPTED", "This invitation was already accepted.")
	errToken    = errs.Msg(account.ErrBadToken, "The invitation token is missing or malformed.")
)

// Kinds and states of a door (an invitations row).
const (
	KindAdmin = "admin" // an operator's invitation: a link with a token
	KindCode  = "code"  // a redeemed invite code

	StatusIssued   = "issued"
	StatusOpened   = "opened"
	StatusAccepted = "accepted"
)

// Door is one way in for one address: an operator's invitation or a
// redeemed code.
type Door struct {
	ID          string
	Email       string
	Kind        string
	CodeID      string
	GrantTokens int64
	Status      string
	InvitedBy   string
	UserID      string // the account that came in through it, or accepted it
	CreatedAt   ts.Time
	AcceptedAt  *ts.Time
	JoinedAt    *ts.Time
}

// Limiter counts events per key in fixed windows (ratelimit.Limiter).
type Limiter interface {
	Take(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// Store is what the door needs from persistence.
type Store interface {
	// EmailExists reports whether an account uses the address.
	EmailExists(ctx context.Context, email string) (bool, error)
	UserEmail(ctx context.Context, userID string) (string, error)
	UserName(ctx context.Context, userID string) (name, email string, err error)
	// IssueInvitation writes an operator's invitation for d.Email with the
	// token hash, or gives a still-issued one a new token; it returns the
	// row as stored (an accepted invitation is returned unchanged).
	IssueInvitation(ctx context.Context, d Door, tokenHash string) (Door, error)
	InvitationByToken(ctx context.Context, tokenHash string) (Door, error)
	// AcceptInvitation marks an issued invitation accepted by the user.
	AcceptInvitation(ctx context.Context, id, userID string, at int64) error
	// AddApplicant adds the address to the applicant list; false when it
	// was already there (nothing changes then).
	AddApplicant(ctx context.Context, a Applicant) (bool, error)
	// Redeem reads the code (errs.NotFound when unknown) under a lock,
	// learns whether the address already has a door or an account, and
	// asks decide; when decide says use, it counts a use and opens a door
	// for the address with the code's grant, in the same transaction.
	Redeem(ctx context.Context, code, email string, at int64, decide func(c Code, alreadyIn bool) (use bool, err error)) (Code, error)
	// ReferralCode returns the user's own code; errs.NotFound when none.
	ReferralCode(ctx context.Context, userID string) (Code, error)
	// InsertCode writes a code; ErrCodeTaken when the code text is taken
	// (or, for a referral code, when the user already has one).
	InsertCode(ctx context.Context, c Code) error
	// Invitees lists the doors a code opened, newest first.
	Invitees(ctx context.Context, codeID string) ([]Invitee, error)
}

// Options configure the service.
type Options struct {
	WebOrigin string        // where links point (the web app)
	Prices    ledger.Prices // the live price list: what a grant buys
	Guard     *urlguard.Guard
	Now       func() time.Time
}

// Service runs the door's use cases.
type Service struct {
	store  Store
	limits Limiter
	opts   Options
}

// NewService returns the door service.
func NewService(store Store, limits Limiter, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Guard == nil {
		opts.Guard = previewGuard()
	}
	return &Service{store: store, limits: limits, opts: opts}
}

// take counts one event against a limit and answers 429 past it.
func (s *Service) take(ctx context.Context, key string, limit int, window time.Duration) error {
	ok, wait, err := s.limits.Take(ctx, key, limit, window)
	if err != nil {
		return err
	}
	if !ok {
		return ratelimit.Refused(wait)
	}
	return nil
}

// CheckEmailRequest is the body of POST /api/toolkit/check-email. The
// route reads it leniently: anything that is not this object is an address
// it does not know.
type CheckEmailRequest struct {
	Email string `json:"email,omitempty"`
}

// EmailStatus answers check-email.
type EmailStatus struct {
	Exists      bool `json:"exists" description:"An account uses this address."`
	HasPassword bool `json:"hasPassword" description:"The account signs in with a password (every account does today)."`
}

// CheckEmail tells whether an account uses the address. It never fails on
// the caller's account: a missing or malformed address, or a caller past 10
// a minute, is {false, false}.
func (s *Service) CheckEmail(ctx context.Context, client, email string) (EmailStatus, error) {
	ok, _, err := s.limits.Take(ctx, "check-email:"+client, 10, time.Minute)
	if err != nil || !ok {
		return EmailStatus{}, err
	}
	e, err := account.NormalEmail(email)
	if err != nil {
		return EmailStatus{}, nil
	}
	exists, err := s.store.EmailExists(ctx, e)
	if err != nil {
		return EmailStatus{}, err
	}
	return EmailStatus{Exists: exists, HasPassword: exists}, nil
}

// Issued answers an operator's invitation (POST /api/toolkit/admin/invite,
// issue 16 builds the route on Service.Issue).
type Issued struct {
	Email  string `json:"email"`
	Token  string `json:"token" description:"The raw token, shown once; empty when the invitation was already accepted."`
	URL    string `json:"url" description:"The link the invitee opens: the web app's invitation page with the token."`
	Status string `json:"status" enum:"issued,accepted"`
}

// Issue writes an operator's invitation for an address and returns its
// link. Issuing again for an address still invited gives it a fresh token
// (the earlier link stops working); for an accepted invitation it answers
// status accepted and no token.
func (s *Service) Issue(ctx context.Context, email, byUserID string) (Issued, error) {
	e, err := account.NormalEmail(email)
	if err != nil {
		return Issued{}, err
	}
	token := account.NewToken()
	d := Door{ID: uuid.Must(uuid.NewV7()).String(), Email: e, Kind: KindAdmin, Status: StatusIssued,
		InvitedBy: byUserID, CreatedAt: ts.Of(s.opts.Now())}
	got, err := s.store.IssueInvitation(ctx, d, account.Hash(token))
	if err != nil {
		return Issued{}, err
	}
	if got.Status == StatusAccepted {
		return Issued{Email: e, Status: StatusAccepted}, nil
	}
	return Issued{Email: e, Token: token, URL: s.InvitationURL(token), Status: StatusIssued}, nil
}

// InvitationURL is the link of an operator's invitation.
func (s *Service) InvitationURL(token string) string {
	return s.opts.WebOrigin + "/invite?token=" + url.QueryEscape(token)
}

// wellFormed reports whether a token has the shape account.NewToken makes.
func wellFormed(token string) bool {
	if len(token) != 43 {
		return false
	}
	for _, c := range token {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// TokenQuery is the query of GET /api/toolkit/invite/accept.
type TokenQuery struct {
	Token string `query:"token" required:"true" description:"The invitation's token, from its link."`
}

// InvitedEmail answers GET /api/toolkit/invite/accept.
type InvitedEmail struct {
	Email string `json:"email" description:"The address the invitation was issued for."`
}

// Look reads an invitation by its token: the address it is for. A missing
// or malformed token is 400 BAD_TOKEN, an unknown one 404, an accepted one
// 410 INVITE_ACCEPTED.
func (s *Service) Look(ctx context.Context, token string) (InvitedEmail, error) {
	d, err := s.byToken(ctx, token)
	if err != nil {
		return InvitedEmail{}, err
	}
	if d.Status == StatusAccepted {
		return InvitedEmail{}, ErrAccepted
	}
	return InvitedEmail{Email: d.Email}, nil
}

func (s *Service) byToken(ctx context.Context, token string) (Door, error) {
	token = strings.TrimSpace(token)
	if !wellFormed(token) {
		return Door{}, errToken
	}
	return s.store.InvitationByToken(ctx, account.Hash(token))
}

// AcceptRequest is the body of POST /api/toolkit/invite/accept.
type AcceptRequest struct {
	Token string `json:"token" required:"true" description:"The invitation's token, from its link."`
}

// AcceptAnswer answers POST /api/toolkit/invite/accept.
type AcceptAnswer struct {
	OK              bool `json:"ok"`
	AlreadyAccepted bool `json:"alreadyAccepted" description:"The caller had accepted it before; nothing changed."`
}

// Accept marks an invitation accepted by the signed-in person it was
// issued to (403 EMAIL_MISMATCH for anyone else). Accepting again is a
// no-op answering alreadyAccepted.
func (s *Service) Accept(ctx context.Context, p auth.Principal, in AcceptRequest) (AcceptAnswer, error) {
	d, err := s.byToken(ctx, in.Token)
	if err != nil {
		return AcceptAnswer{}, err
	}
	email := p.Email
	if email == "" {
		if email, err = s.store.UserEmail(ctx, p.UserID); err != nil {
			return AcceptAnswer{}, err
		}
	}
	if d.Email != email {
		return AcceptAnswer{}, errs.EmailMismatch
	}
	if d.Status == StatusAccepted {
		return AcceptAnswer{OK: true, AlreadyAccepted: true}, nil
	}
	err = s.store.AcceptInvitation(ctx, d.ID, p.UserID, s.opts.Now().UnixMilli())
	if errors.Is(err, errs.NotFound) { // accepted meanwhile by a concurrent request
		return AcceptAnswer{OK: true, AlreadyAccepted: true}, nil
	}
	if err != nil {
		return AcceptAnswer{}, err
	}
	return AcceptAnswer{OK: true}, nil
}
