package account

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mail"
	"studio/internal/ts"
)

// Store is what identity needs from persistence.
type Store interface {
	// CreateUser writes the user, a personal house, the owner seat and the
	// house's opening balance in one transaction; ErrRegistered on a taken address.
	CreateUser(ctx context.Context, u User, passwordHash string, h House) error
	CountUsers(ctx context.Context) (int, error)
	UserCredentials(ctx context.Context, email string) (User, string, error)
	User(ctx context.Context, id string) (User, error)
	CreateSession(ctx context.Context, s Session, userID, tokenHash string) error
	DeleteSession(ctx context.Context, id string) error
	// SessionByToken resolves a session token hash to the session, its user
	// and the user's seat in the active house.
	SessionByToken(ctx context.Context, tokenHash string) (SessionInfo, error)
	RenewSession(ctx context.Context, id string, expiresAt int64) error
	Memberships(ctx context.Context, userID string) ([]Membership, error)
	SetActive(ctx context.Context, sessionID, userID, houseID string) error
	CreateVerification(ctx context.Context, userID, tokenHash string, expiresAt int64) error
	VerifyEmail(ctx context.Context, tokenHash string, now int64) error
	// Hit counts one event in the fixed window starting at windowStart (ms)
	// for key and returns the count; Hits reads the count.
	Hit(ctx context.Context, key string, windowStart int64) (int64, error)
	Hits(ctx context.Context, key string, windowStart int64) (int64, error)
}

// SessionInfo is a resolved session.
type SessionInfo struct {
	Session Session
	UserID  string
	Email   string
	Role    auth.Role // the seat in the active house; empty when the seat is gone
}

// Options configure the service.
type Options struct {
	PublicURL   string
	AdminEmails []string
	InviteOnly  bool
	Hash        HashParams
	Now         func() time.Time
}

// Service runs the identity use cases.
type Service struct {
	store  Store
	mailer mail.Sender
	opts   Options
	hashes chan struct{} // bounds concurrent argon2 work on small hosts
}

// NewService returns the identity service.
func NewService(store Store, mailer mail.Sender, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Hash == (HashParams{}) {
		opts.Hash = OWASP
	}
	return &Service{store: store, mailer: mailer, opts: opts, hashes: make(chan struct{}, 2)}
}

// SignInLimit is the number of failed sign-in tries a minute per client
// address and e-mail; past it even the right password waits for the window.
const SignInLimit = 10

func (s *Service) hash(ctx context.Context, pw string) (string, error) {
	select {
	case s.hashes <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.hashes }()
	return hashPassword(pw, s.opts.Hash), nil
}

func (s *Service) check(ctx context.Context, pw, phc string) (bool, error) {
	select {
	case s.hashes <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashes }()
	return checkPassword(pw, phc), nil
}

// SignedIn is the outcome of sign-up and sign-in: the user and the raw
// session token for the cookie.
type SignedIn struct {
	User    User
	Session Session
	Token   string
}

// SignUp creates the user, a personal house with the user as founder and
// owner, and a session.
func (s *Service) SignUp(ctx context.Context, in SignUpRequest) (SignedIn, error) {
	if s.opts.InviteOnly {
		n, err := s.store.CountUsers(ctx)
		if err != nil {
			return SignedIn{}, err
		}
		if n > 0 {
			return SignedIn{}, ErrInviteNeeded
		}
	}
	pw, err := s.hash(ctx, in.Password)
	if err != nil {
		return SignedIn{}, err
	}
	now := ts.Of(s.opts.Now())
	u := User{ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name, Email: in.Email, CreatedAt: now}
	h := House{ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name + "'s house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := s.store.CreateUser(ctx, u, pw, h); err != nil {
		return SignedIn{}, err
	}
	// The account exists now; a letter that cannot be delivered must not
	// turn the sign-up into an error the client would retry into
	// ALREADY_REGISTERED. The mailer records it as failed in the e-mail log.
	_ = s.sendVerification(ctx, u)
	return s.startSession(ctx, u, h.ID)
}

func (s *Service) sendVerification(ctx context.Context, u User) error {
	token := NewToken()
	exp := s.opts.Now().Add(24 * time.Hour).UnixMilli()
	if err := s.store.CreateVerification(ctx, u.ID, Hash(token), exp); err != nil {
		return err
	}
	link := s.opts.PublicURL + "/api/auth/verify-email?token=" + url.QueryEscape(token)
	return s.mailer.Send(ctx, mail.Message{
		UserID: u.ID, To: u.Email, Template: "verify-email",
		Subject: "Confirm your e-mail address",
		Text:    "Hello " + u.Name + ",\n\nConfirm your e-mail address for the studio:\n" + link + "\n\nThe link works for 24 hours.\n",
	})
}

func (s *Service) startSession(ctx context.Context, u User, houseID string) (SignedIn, error) {
	token := NewToken()
	sess := Session{
		ID:                   uuid.Must(uuid.NewV7()).String(),
		ExpiresAt:            ts.Of(s.opts.Now().Add(SessionTTL)),
		ActiveOrganizationID: houseID,
	}
	if err := s.store.CreateSession(ctx, sess, u.ID, Hash(token)); err != nil {
		return SignedIn{}, err
	}
	return SignedIn{User: u, Session: sess, Token: token}, nil
}

// SignIn checks the password and starts a session in the user's personal
// house (or the first house holding a seat). Unknown address and wrong
// password are the same answer; tries are limited per address and e-mail.
func (s *Service) SignIn(ctx context.Context, in SignInRequest, remoteAddr string) (SignedIn, error) {
	now := s.opts.Now().UnixMilli()
	window := now - now%60_000
	limitKey := "signin|" + remoteAddr + "|" + in.Email
	n, err := s.store.Hits(ctx, limitKey, window)
	if err != nil {
		return SignedIn{}, err
	}
	if n >= SignInLimit {
		retry := (window + 60_000 - now + 999) / 1000
		return SignedIn{}, errs.With(errs.RateLimited, "retryAfter", retry)
	}
	fail := func() (SignedIn, error) {
		if _, err := s.store.Hit(ctx, limitKey, window); err != nil {
			return SignedIn{}, err
		}
		return SignedIn{}, ErrInvalidCreds
	}
	u, phc, err := s.store.UserCredentials(ctx, in.Email)
	if errors.Is(err, errs.NotFound) {
		// Spend the same work as a real check so timing does not tell.
		_, _ = s.check(ctx, in.Password, dummyPHC)
		return fail()
	}
	if err != nil {
		return SignedIn{}, err
	}
	ok, err := s.check(ctx, in.Password, phc)
	if err != nil {
		return SignedIn{}, err
	}
	if !ok {
		return fail()
	}
	ms, err := s.store.Memberships(ctx, u.ID)
	if err != nil {
		return SignedIn{}, err
	}
	if len(ms) == 0 {
		return SignedIn{}, ErrInvalidCreds
	}
	return s.startSession(ctx, u, ms[0].ID)
}

var dummyPHC = hashPassword("not a password of anyone", OWASP)

// SignOut ends the session.
func (s *Service) SignOut(ctx context.Context, p auth.Principal) error {
	return s.store.DeleteSession(ctx, p.SessionID)
}

// Resolve turns a raw session token into a principal. It reports whether
// the session was renewed, so the caller can refresh the cookie.
func (s *Service) Resolve(ctx context.Context, token string) (auth.Principal, Session, bool, error) {
	info, err := s.store.SessionByToken(ctx, Hash(token))
	if err != nil {
		if errors.Is(err, errs.NotFound) {
			return auth.Principal{}, Session{}, false, errs.Unauthorized
		}
		return auth.Principal{}, Session{}, false, err
	}
	now := s.opts.Now()
	if !info.Session.ExpiresAt.After(now) {
		return auth.Principal{}, Session{}, false, errs.Unauthorized
	}
	renewed := false
	// Renew on use, at most once a day, so the cookie keeps a 30-day life.
	if info.Session.ExpiresAt.Sub(now) < SessionTTL-24*time.Hour {
		exp := ts.Of(now.Add(SessionTTL))
		if err := s.store.RenewSession(ctx, info.Session.ID, exp.UnixMilli()); err != nil {
			return auth.Principal{}, Session{}, false, err
		}
		info.Session.ExpiresAt = exp
		renewed = true
	}
	admin := slices.Contains(s.opts.AdminEmails, info.Email)
	return info.Session.principal(info.UserID, info.Email, info.Role, admin), info.Session, renewed, nil
}

// SessionView is the body of GET /api/auth/get-session.
type SessionView struct {
	Session Session `json:"session"`
	User    User    `json:"user"`
}

// GetSession describes the caller's session.
func (s *Service) GetSession(ctx context.Context, p auth.Principal, sess Session) (SessionView, error) {
	u, err := s.store.User(ctx, p.UserID)
	if err != nil {
		return SessionView{}, err
	}
	return SessionView{Session: sess, User: u}, nil
}

// Houses lists the houses where the user holds a seat.
func (s *Service) Houses(ctx context.Context, p auth.Principal) ([]Membership, error) {
	return s.store.Memberships(ctx, p.UserID)
}

// SetActive switches the session's active house; NOT_FOUND when the user
// holds no seat there.
func (s *Service) SetActive(ctx context.Context, p auth.Principal, houseID string) error {
	return s.store.SetActive(ctx, p.SessionID, p.UserID, houseID)
}

// VerifyEmail marks the address behind a verification token as verified.
func (s *Service) VerifyEmail(ctx context.Context, token string) error {
	if token == "" {
		return ErrBadToken
	}
	return s.store.VerifyEmail(ctx, Hash(token), s.opts.Now().UnixMilli())
}

// RetryAfter reads the seconds to wait from a RATE_LIMITED error.
func RetryAfter(e *errs.Error) string {
	if v, ok := e.Fields["retryAfter"].(int64); ok {
		return strconv.FormatInt(v, 10)
	}
	return "60"
}
