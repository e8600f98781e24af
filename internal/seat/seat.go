// Package seat is a house's people (SPEC §1 roles and rule 1, §4.13): a
// seat offered to an e-mail address and accepted by the person who signs
// in with it, a seat's role changed, a seat removed, and the house handed
// to another owner.
//
// # Who may do what
//
//   - Offer a seat: an owner or an admin. Only an owner offers an owner
//     seat. An address that already holds a seat in the house is refused
//     (ALREADY_MEMBER); a second offer to an address replaces the pending
//     one, whose id then answers 404. A house offers at most 20 seats a
//     week (a fixed window), then 429 RATE_LIMITED with Retry-After.
//   - Accept: the person whose e-mail address the offer names, within 7
//     days; the house becomes the session's active house. Accepting again
//     is a no-op that answers the same.
//   - Change a role: an owner sets admin, member or viewer on any seat; an
//     admin only on a member's or a viewer's seat, and never owner (owner
//     is given only by an offer or a transfer). A house keeps one owner at
//     least.
//   - Remove a seat: an owner removes anyone, an admin removes members and
//     viewers, and anyone removes themselves; the founder of a personal
//     house cannot be removed, nor the last owner. Only the seat goes: the
//     person's frames, looks, collections and every other piece of work
//     stay with the house (workStaysWithHouse). Their API keys for the
//     house are revoked and their sessions in it move to another house of
//     theirs, in the same write.
//   - Transfer: an owner hands the house to another seat; the new owner's
//     seat becomes owner and the outgoing owner's admin in one write.
//
// API keys never pass these rules: a key is a viewer or a member.
package seat

import (
	"context"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mail"
	"studio/internal/ratelimit"
	"studio/internal/ts"
)

// Limits of seat offers.
const (
	// InviteLife is how long an offer stays open.
	InviteLife = 7 * 24 * time.Hour
	// WeeklyInvites is how many seats a house may offer in a week.
	WeeklyInvites = 20
)

// Codes raised by seats.
var (
	ErrAlreadyMember = errs.New(errs.KindInvalid, "ALREADY_MEMBER", "This address already holds a seat in the house.")
	errOwnerOffer    = errs.Msg(errs.Forbidden, "Only an owner may offer an owner seat.")
	errAdminReach    = errs.Msg(errs.Forbidden, "An admin may only change or remove the seats of members and viewers.")
	errOwnerOnly     = errs.Msg(errs.Forbidden, "Only an owner may hand the house over.")
	errFounder       = errs.Msg(errs.Forbidden, "The founder of a personal house cannot be removed from it.")
	errLastOwner     = errs.Msg(errs.Forbidden, "A house keeps at least one owner: hand the house over first.")
	errOwnerRole     = errs.Msg(errs.BadRole, "A seat's role here is admin, member or viewer; owner is given by an offer or a transfer.")
	errSelfTransfer  = errs.Msg(errs.BadBody, "You already own this house; name another seat.")
)

// Invitation is an offer of a seat, as the invite route answers it.
type Invitation struct {
	ID               string    `json:"id" description:"The offer's id; the invitee accepts it with POST /api/toolkit/org/seats/accept."`
	Email            string    `json:"email"`
	Role             auth.Role `json:"role" enum:"owner,admin,member,viewer"`
	OrganizationID   string    `json:"organizationId"`
	OrganizationName string    `json:"organizationName"`
	ExpiresAt        ts.Time   `json:"expiresAt" description:"The offer lapses after 7 days."`
	URL              string    `json:"url" description:"The accept link the letter carries: the web app's join page with the offer's id."`
}

// Offer is a seat offer as the store keeps it.
type Offer struct {
	ID          string
	HouseID     string
	HouseName   string
	Email       string
	Role        auth.Role
	Status      string // pending, accepted, superseded
	InvitedBy   string
	ExpiresAt   ts.Time
	CreatedAt   ts.Time
	AcceptedBy  string // the user holding the seat, once accepted
	AcceptedRol auth.Role
}

// InviteRequest is the body of POST /api/toolkit/org/seats/invite.
type InviteRequest struct {
	Email string    `json:"email" required:"true" minLength:"3" maxLength:"254"`
	Role  auth.Role `json:"role,omitempty" enum:"owner,admin,member,viewer" default:"member"`
}

// Validate normalises the address and the role.
func (r *InviteRequest) Validate() error {
	e, err := account.NormalEmail(r.Email)
	if err != nil {
		return err
	}
	r.Email = e
	if r.Role == "" {
		r.Role = auth.Member
	}
	if !r.Role.Valid() {
		return errs.With(errs.BadRole, "legal", auth.Roles)
	}
	return nil
}

// AcceptRequest is the body of POST /api/toolkit/org/seats/accept.
type AcceptRequest struct {
	InvitationID string `json:"invitationId" required:"true" minLength:"1"`
}

// Validate checks the id is present.
func (r *AcceptRequest) Validate() error {
	if strings.TrimSpace(r.InvitationID) == "" {
		return errs.Msg(errs.BadBody, "invitationId is required.")
	}
	return nil
}

// Accepted answers an accepted offer.
type Accepted struct {
	OrganizationID   string    `json:"organizationId"`
	OrganizationName string    `json:"organizationName"`
	Role             auth.Role `json:"role" enum:"owner,admin,member,viewer"`
}

// RoleRequest is the body of POST /api/toolkit/org/seats/role.
type RoleRequest struct {
	UserID string    `json:"userId" required:"true" minLength:"1"`
	Role   auth.Role `json:"role" required:"true" enum:"admin,member,viewer"`
}

// Validate checks the fields; owner is not settable here.
func (r *RoleRequest) Validate() error {
	if strings.TrimSpace(r.UserID) == "" {
		return errs.Msg(errs.BadBody, "userId and role are required.")
	}
	if r.Role == auth.Owner {
		return errs.With(errOwnerRole, "legal", Settable)
	}
	if !r.Role.Valid() {
		return errs.With(errs.BadRole, "legal", Settable)
	}
	return nil
}

// Settable are the roles a seat's role change may set (owner comes only
// by an offer or a transfer).
var Settable = []auth.Role{auth.Viewer, auth.Member, auth.Admin}

// RoleChanged answers a role change.
type RoleChanged struct {
	UserID string    `json:"userId"`
	Role   auth.Role `json:"role" enum:"admin,member,viewer"`
	Email  string    `json:"email"`
}

// Removed answers a removed seat.
type Removed struct {
	UserID             string `json:"userId"`
	Email              string `json:"email"`
	WorkStaysWithHouse bool   `json:"workStaysWithHouse" description:"Always true: only the seat was removed; every frame, look and collection stays with the house."`
}

// TransferRequest is the body of POST /api/toolkit/org/transfer.
type TransferRequest struct {
	UserID string `json:"userId" required:"true" minLength:"1"`
}

// Validate checks the id is present.
func (r *TransferRequest) Validate() error {
	if strings.TrimSpace(r.UserID) == "" {
		return errs.Msg(errs.BadBody, "userId is required.")
	}
	return nil
}

// Transferred answers a transfer.
type Transferred struct {
	OrganizationID    string    `json:"organizationId"`
	UserID            string    `json:"userId" description:"The new owner."`
	Email             string    `json:"email" description:"The new owner's e-mail address."`
	PreviousOwnerRole auth.Role `json:"previousOwnerRole" enum:"admin" description:"The role the outgoing owner holds now: admin."`
}

// Holder is a seat and the person holding it, read inside a change.
type Holder struct {
	UserID  string
	Email   string
	Role    auth.Role
	Founder bool // founded this personal house
}

// Change is what a role change, removal or transfer sees, read under the
// house's lock: the actor's seat (empty Role when they hold none), the
// target's, and how many owners the house has.
type Change struct {
	Actor  Holder
	Target Holder
	Owners int
}

// Store is what seats need from persistence. The Change methods read the
// two seats under the house's lock, call decide, and write only when it
// returns nil, all in one transaction; a target without a seat in the
// house is errs.NotFound.
type Store interface {
	HouseName(ctx context.Context, house string) (string, error)
	UserEmail(ctx context.Context, userID string) (string, error)
	UserName(ctx context.Context, userID string) (name, email string, err error)
	// SeatedEmail reports whether the address holds a seat in the house.
	SeatedEmail(ctx context.Context, house, email string) (bool, error)
	// OfferSeat writes the offer, superseding a pending offer to the same
	// address in the same house.
	OfferSeat(ctx context.Context, o Offer) error
	// SeatOffer reads an offer by id (any house: the invitee is not seated yet).
	SeatOffer(ctx context.Context, id string) (Offer, error)
	// AcceptSeat marks a pending, unexpired offer accepted, seats the user
	// with its role (a seat already held is kept) and, when sessionID is
	// set, makes the house that session's active house. errs.NotFound when
	// the offer is no longer pending or has lapsed.
	AcceptSeat(ctx context.Context, id, userID, sessionID string, now int64) (auth.Role, error)
	// SetActive points a session at a house where its user holds a seat.
	SetActive(ctx context.Context, sessionID, userID, houseID string) error
	ChangeRole(ctx context.Context, house, actor, target string, decide func(Change) (auth.Role, error)) (Holder, error)
	RemoveSeat(ctx context.Context, house, actor, target string, decide func(Change) error, now int64) (Holder, error)
	Transfer(ctx context.Context, house, actor, target string, decide func(Change) error) (Holder, error)
	Lister
}

// Limiter counts events per key in fixed windows (ratelimit.Limiter).
type Limiter interface {
	Take(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// Options configure the service.
type Options struct {
	WebOrigin string // where the accept link points (the web app's join page)
	Now       func() time.Time
}

// Service runs the seat use cases.
type Service struct {
	store  Store
	mailer mail.Sender
	limits Limiter
	opts   Options
}

// NewService returns the seat service.
func NewService(store Store, mailer mail.Sender, limits Limiter, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{store: store, mailer: mailer, limits: limits, opts: opts}
}

// AcceptURL is the link an offer's letter carries.
func (s *Service) AcceptURL(id string) string {
	return s.opts.WebOrigin + "/join?invitation=" + url.QueryEscape(id)
}

// Invite offers a seat in the caller's house and mails the accept link.
// A letter that cannot be delivered does not undo the offer: the e-mail log
// records it as failed and the answer carries the link.
func (s *Service) Invite(ctx context.Context, p auth.Principal, in InviteRequest) (Invitation, error) {
	if err := p.Role.MayManage(); err != nil {
		return Invitation{}, err
	}
	if in.Role == auth.Owner && p.Role != auth.Owner {
		return Invitation{}, errOwnerOffer
	}
	seated, err := s.store.SeatedEmail(ctx, p.HouseID, in.Email)
	if err != nil {
		return Invitation{}, err
	}
	if seated {
		return Invitation{}, ErrAlreadyMember
	}
	name, err := s.store.HouseName(ctx, p.HouseID)
	if err != nil {
		return Invitation{}, err
	}
	ok, wait, err := s.limits.Take(ctx, "seat-invite:"+p.HouseID, WeeklyInvites, 7*24*time.Hour)
	if err != nil {
		return Invitation{}, err
	}
	if !ok {
		return Invitation{}, ratelimit.Refused(wait)
	}
	now := s.opts.Now()
	o := Offer{
		ID: uuid.Must(uuid.NewV7()).String(), HouseID: p.HouseID, HouseName: name, Email: in.Email, Role: in.Role,
		Status: "pending", InvitedBy: p.UserID, ExpiresAt: ts.Of(now.Add(InviteLife)), CreatedAt: ts.Of(now),
	}
	if err := s.store.OfferSeat(ctx, o); err != nil {
		return Invitation{}, err
	}
	inv := Invitation{ID: o.ID, Email: o.Email, Role: o.Role, OrganizationID: o.HouseID, OrganizationName: name,
		ExpiresAt: o.ExpiresAt, URL: s.AcceptURL(o.ID)}
	inviter, _, _ := s.store.UserName(ctx, p.UserID)
	_ = s.mailer.Send(ctx, inviteLetter(inv, inviter))
	return inv, nil
}

// inviteLetter is the letter of a seat offer.
func inviteLetter(inv Invitation, inviter string) mail.Message {
	who := inviter
	if who == "" {
		who = "Someone"
	}
	until := inv.ExpiresAt.Format("2 January 2006")
	var h strings.Builder
	if err := inviteHTML.Execute(&h, map[string]any{"Who": who, "House": inv.OrganizationName, "Role": inv.Role,
		"URL": inv.URL, "Email": inv.Email, "Until": until}); err != nil {
		h.Reset() // the template is fixed and its data are strings: it cannot fail; the plain part stands alone if it did
	}
	return mail.Message{
		To: inv.Email, Template: "seat-invite",
		Subject: fmt.Sprintf("%s invites you to %s", who, inv.OrganizationName),
		Text: fmt.Sprintf("Hello,\n\n%s invites you to join %s in the studio as %s.\n\nAccept the invitation:\n%s\n\n"+
			"Sign in (or sign up) with this address, %s, to accept. The invitation lasts until %s.\n",
			who, inv.OrganizationName, inv.Role, inv.URL, inv.Email, until),
		HTML: h.String(),
	}
}

// inviteHTML is the seat offer's HTML part: the plain part's words, with
// the accept link as a button-like anchor. html/template escapes the
// house's and the inviter's names.
var inviteHTML = template.Must(template.New("seat-invite").Parse(`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Hello,</p>
<p>{{.Who}} invites you to join <b>{{.House}}</b> in the studio as {{.Role}}.</p>
<p><a href="{{.URL}}" style="display:inline-block;padding:8px 16px;background:#111;color:#fff;text-decoration:none">Accept the invitation</a></p>
<p style="color:#666">Sign in (or sign up) with this address, {{.Email}}, to accept. The invitation lasts until {{.Until}}.</p>
</body></html>`))

// Accept seats the caller with an offer made to their address and makes
// the house active for a session. Unknown, superseded and lapsed offers
// are 404; an offer to another address is 403 EMAIL_MISMATCH.
func (s *Service) Accept(ctx context.Context, p auth.Principal, in AcceptRequest) (Accepted, error) {
	o, err := s.store.SeatOffer(ctx, strings.TrimSpace(in.InvitationID))
	if err != nil {
		return Accepted{}, err
	}
	email := p.Email
	if email == "" {
		if email, err = s.store.UserEmail(ctx, p.UserID); err != nil {
			return Accepted{}, err
		}
	}
	now := s.opts.Now()
	switch {
	case o.Status == "accepted" && o.AcceptedBy == p.UserID: // a replay: the same answer again
		if p.SessionID != "" {
			if err := s.store.SetActive(ctx, p.SessionID, p.UserID, o.HouseID); err != nil {
				return Accepted{}, err
			}
		}
		return Accepted{OrganizationID: o.HouseID, OrganizationName: o.HouseName, Role: o.AcceptedRol}, nil
	case o.Status != "pending" || !o.ExpiresAt.After(now):
		return Accepted{}, errs.NotFound
	case o.Email != email:
		return Accepted{}, errs.EmailMismatch
	}
	role, err := s.store.AcceptSeat(ctx, o.ID, p.UserID, p.SessionID, now.UnixMilli())
	if err != nil {
		return Accepted{}, err
	}
	return Accepted{OrganizationID: o.HouseID, OrganizationName: o.HouseName, Role: role}, nil
}

// authority is what the caller may do in this change: the weaker of the
// principal's role and the seat they hold now (a key carries its own role).
func authority(p auth.Principal, actor Holder) auth.Role {
	if !actor.Role.AtLeast(p.Role) {
		return actor.Role
	}
	return p.Role
}

// reaches refuses a change of another's seat by role by: it takes an owner
// or an admin, and an admin reaches only members and viewers.
func reaches(by auth.Role, target Holder) error {
	if err := by.MayManage(); err != nil {
		return err
	}
	if by == auth.Admin && target.Role.AtLeast(auth.Admin) {
		return errAdminReach
	}
	return nil
}

// keepsOwner refuses a change that would leave the house without an owner.
func keepsOwner(c Change) error {
	if c.Target.Role == auth.Owner && c.Owners <= 1 {
		return errLastOwner
	}
	return nil
}

// mayChangeRole refuses a role change the caller may not make: it takes
// an owner or an admin reaching the seat, and leaves the house an owner.
func mayChangeRole(p auth.Principal, c Change) error {
	if err := reaches(authority(p, c.Actor), c.Target); err != nil {
		return err
	}
	return keepsOwner(c)
}

// mayRemove refuses a removal the caller may not make: anyone leaves
// their own seat, an owner or an admin removes the seats they reach; never
// the founder of a personal house, nor the last owner.
func mayRemove(p auth.Principal, c Change) error {
	if c.Target.UserID != p.UserID {
		if err := reaches(authority(p, c.Actor), c.Target); err != nil {
			return err
		}
	}
	if c.Target.Founder {
		return errFounder
	}
	return keepsOwner(c)
}

// mayTransfer refuses a transfer by anyone but the house's owner.
func mayTransfer(p auth.Principal, c Change) error {
	if p.Role != auth.Owner || authority(p, c.Actor) != auth.Owner {
		return errOwnerOnly
	}
	return nil
}

// SetRole changes a seat's role.
func (s *Service) SetRole(ctx context.Context, p auth.Principal, in RoleRequest) (RoleChanged, error) {
	if err := p.Role.MayManage(); err != nil {
		return RoleChanged{}, err
	}
	h, err := s.store.ChangeRole(ctx, p.HouseID, p.UserID, strings.TrimSpace(in.UserID), func(c Change) (auth.Role, error) {
		if err := mayChangeRole(p, c); err != nil {
			return "", err
		}
		return in.Role, nil
	})
	if err != nil {
		return RoleChanged{}, err
	}
	return RoleChanged{UserID: h.UserID, Role: in.Role, Email: h.Email}, nil
}

// Remove removes a seat: the caller's own, or as an owner or admin
// another's. Only the seat goes.
func (s *Service) Remove(ctx context.Context, p auth.Principal, userID string) (Removed, error) {
	// The seat is looked up before the role is weighed: an id that holds no
	// seat in the caller's house is the one 404, whoever asks.
	h, err := s.store.RemoveSeat(ctx, p.HouseID, p.UserID, userID, func(c Change) error {
		return mayRemove(p, c)
	}, s.opts.Now().UnixMilli())
	if err != nil {
		return Removed{}, err
	}
	return Removed{UserID: h.UserID, Email: h.Email, WorkStaysWithHouse: true}, nil
}

// Transfer hands the house to another seat: it becomes owner and the
// caller admin, in one write.
func (s *Service) Transfer(ctx context.Context, p auth.Principal, in TransferRequest) (Transferred, error) {
	if p.Role != auth.Owner {
		return Transferred{}, errOwnerOnly
	}
	target := strings.TrimSpace(in.UserID)
	if target == p.UserID {
		return Transferred{}, errSelfTransfer
	}
	h, err := s.store.Transfer(ctx, p.HouseID, p.UserID, target, func(c Change) error {
		return mayTransfer(p, c)
	})
	if err != nil {
		return Transferred{}, err
	}
	return Transferred{OrganizationID: p.HouseID, UserID: h.UserID, Email: h.Email, PreviousOwnerRole: auth.Admin}, nil
}
