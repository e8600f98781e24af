package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html"
	"log/slog"
	"net/netip"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/mail"
	"studio/internal/ratelimit"
	"studio/internal/ts"
)

// Store is what identity needs from persistence.
type Store interface {
	// CreateUser writes the user, a personal house, the owner seat and the
	// house's opening balance in one transaction; ErrRegistered on a taken
	// address. With gate set, an address without an open door (an
	// invitation, a redeemed code, a pending seat offer) is ErrInviteNeeded
	// unless no user exists yet; a door's grant comes with the house.
	CreateUser(ctx context.Context, u User, passwordHash string, h House, gate bool) error
	// Admitted is CreateUser's gate alone, read before the password is hashed.
	Admitted(ctx context.Context, email string, now int64) error
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
	viewStore
	avatarStore
	meStore
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
	// Limits counts sign-in tries; an in-process counter when nil.
	Limits *ratelimit.Limiter
	Prices ledger.Prices // the live price list: plan names and prices in the account view
	Blobs  blob.Store    // avatars; a closed house's bytes
	Log    *slog.Logger
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
	if opts.Limits == nil {
		opts.Limits = ratelimit.New(ratelimit.NewMemory(), opts.Now)
	}
	return &Service{store: store, mailer: mailer, opts: opts, hashes: make(chan struct{}, 2)}
}

// SignInLimit is the number of failed sign-in tries a minute per client
// address and per e-mail; past it even the right password waits for the
// window.
const SignInLimit = 10

// SignInWindow is the window of SignInLimit.
const SignInWindow = time.Minute

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
		if err := s.store.Admitted(ctx, in.Email, s.opts.Now().UnixMilli()); err != nil {
			return SignedIn{}, err
		}
	}
	pw, err := s.hash(ctx, in.Password)
	if err != nil {
		return SignedIn{}, err
	}
	now := ts.Of(s.opts.Now())
	u := User{ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name, Email: in.Email, CreatedAt: now}
	h := House{ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name + "'s house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := s.store.CreateUser(ctx, u, pw, h, s.opts.InviteOnly); err != nil {
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
		UserID: u.ID, To: u.Email, Template: "verify-email", Secrets: []string{token},
		Subject: "Confirm your e-mail address",
		Text:    "Hello " + u.Name + ",\n\nConfirm your e-mail address for the studio:\n" + link + "\n\nThe link works for 24 hours.\n",
		HTML: `<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;color:#111;line-height:1.5"><p>Hello ` +
			html.EscapeString(u.Name) + `,</p><p><a href="` + html.EscapeString(link) + `">Confirm your e-mail address for the studio</a>.</p>` +
			`<p>The link works for 24 hours.</p></body></html>`,
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
// password are the same answer. A try takes a slot of the client address's
// and of the e-mail's limit before the password is checked, so concurrent
// guesses cannot outrun the count; a successful sign-in gives both back.
func (s *Service) SignIn(ctx context.Context, in SignInRequest, remoteAddr string) (SignedIn, error) {
	slots, err := s.takeSignInSlots(ctx, remoteAddr, in.Email)
	if err != nil {
		return SignedIn{}, err
	}
	out, err := s.signIn(ctx, in)
	if err == nil {
		// Only failed tries count: a team behind one address is not locked
		// out by its own use.
		bg := context.WithoutCancel(ctx)
		for _, r := range slots {
			_ = r.Cancel(bg)
		}
	}
	return out, err
}

// takeSignInSlots takes one slot per address and per e-mail, or none.
func (s *Service) takeSignInSlots(ctx context.Context, remoteAddr, email string) ([]ratelimit.Reservation, error) {
	sum := sha256.Sum256([]byte(email))
	keys := []string{"signin:addr:" + ClientKey(remoteAddr), "signin:email:" + hex.EncodeToString(sum[:16])}
	slots := make([]ratelimit.Reservation, 0, len(keys))
	for _, k := range keys {
		r, err := s.opts.Limits.Reserve(ctx, k, SignInLimit, SignInWindow)
		if err == nil && !r.OK {
			err = ratelimit.Refused(r.RetryAfter)
		}
		if err != nil {
			// Nothing is checked: give back what was taken.
			for _, t := range slots {
				_ = t.Cancel(context.WithoutCancel(ctx))
			}
			return nil, err
		}
		slots = append(slots, r)
	}
	return slots, nil
}

func (s *Service) signIn(ctx context.Context, in SignInRequest) (SignedIn, error) {
	u, phc, err := s.store.UserCredentials(ctx, in.Email)
	if errors.Is(err, errs.NotFound) {
		// Spend the same work as a real check so timing does not tell.
		_, _ = s.check(ctx, in.Password, dummyPHC)
		return SignedIn{}, ErrInvalidCreds
	}
	if err != nil {
		return SignedIn{}, err
	}
	ok, err := s.check(ctx, in.Password, phc)
	if err != nil {
		return SignedIn{}, err
	}
	if !ok {
		return SignedIn{}, ErrInvalidCreds
	}
	ms, err := s.store.Memberships(ctx, u.ID)
	if err != nil {
		return SignedIn{}, err
	}
	if len(ms) == 0 {
		return SignedIn{}, ErrInvalidCreds
	}
	return s.startSession(ctx, s.present(u), ms[0].ID)
}

// ClientKey is the part of a client address that rate limits count by: the
// IPv4 address, or the /64 network of an IPv6 address (one host usually
// holds a whole /64).
func ClientKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
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
	// A session whose seat in its active house is gone stands for no one
	// there (removing a seat moves its sessions elsewhere in the same write;
	// this is the second line).
	if !info.Session.ExpiresAt.After(now) || !info.Role.Valid() {
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
	return info.Session.principal(info.UserID, info.Email, info.Role, s.PlatformAdmin(info.Email)), info.Session, renewed, nil
}

// PlatformAdmin reports whether an address is on the platform
// administrators' allowlist (STUDIO_ADMIN_EMAILS).
func (s *Service) PlatformAdmin(email string) bool { return slices.Contains(s.opts.AdminEmails, email) }

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
	return SessionView{Session: sess, User: s.present(u)}, nil
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
