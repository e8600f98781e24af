package account

import (
	"context"
	"errors"
	"strings"

	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/errs"
	"studio/internal/ts"
)

// ErrSoleOwner refuses to erase an account that is the only owner of a
// house with other seats: the house would be left without an owner.
var ErrSoleOwner = errs.New(errs.KindConflict, "SOLE_OWNER", "You are the only owner of a house with other seats: hand it over (or remove the other seats) first.")

// ErrConfirm refuses an erasure not confirmed with the caller's own address.
var ErrConfirm = errs.New(errs.KindInvalid, "CONFIRM_EMAIL", "Send your own e-mail address to confirm the erasure.")

// DeleteRequest is the body of POST /me/delete: the caller's own address,
// typed again, so no stray request erases an account.
type DeleteRequest struct {
	Email string `json:"email" required:"true" description:"Your own e-mail address, to confirm."`
}

// Me is the body of GET /me: the signed-in person and their houses.
type Me struct {
	User                 Profile      `json:"user"`
	Organizations        []Membership `json:"organizations" description:"Houses where the user holds a seat, personal house first."`
	ActiveOrganizationID string       `json:"activeOrganizationId"`
}

// profile renders a user for the wire, the picture's URL made absolute.
func (s *Service) profile(u User) Profile {
	p := Profile{ID: u.ID, Name: u.Name, Email: u.Email, EmailVerified: u.EmailVerified, JoinedAt: u.CreatedAt}
	if u.Image != nil && *u.Image != "" {
		img := *u.Image
		if strings.HasPrefix(img, "/") {
			img = s.opts.PublicURL + img
		}
		p.Image = &img
	}
	return p
}

// present makes a user's picture URL absolute.
func (s *Service) present(u User) User {
	u.Image = s.profile(u).Image
	return u
}

// Me describes the signed-in person.
func (s *Service) Me(ctx context.Context, p auth.Principal) (Me, error) {
	u, err := s.store.User(ctx, p.UserID)
	if err != nil {
		return Me{}, err
	}
	ms, err := s.store.Memberships(ctx, p.UserID)
	if err != nil {
		return Me{}, err
	}
	return Me{User: s.profile(u), Organizations: ms, ActiveOrganizationID: p.HouseID}, nil
}

// Export is the body of GET /me/export: every row of the caller's own,
// without secrets (docs/people.md, "A user's own data").
type Export struct {
	ExportedAt      ts.Time            `json:"exportedAt"`
	Profile         Profile            `json:"profile"`
	Seats           []ExportSeat       `json:"seats"`
	Sessions        []ExportSession    `json:"sessions" description:"Signed-in browsers; never the token."`
	Keys            []ExportKey        `json:"keys" description:"API keys the user minted, in every house; never the secret."`
	Memories        []ExportMemory     `json:"memories" description:"Your personal memories, every status (retired and superseded ones too)."`
	Invitations     []ExportInvitation `json:"invitations" description:"Seat offers, operators' invitations and redeemed codes addressed to the user's e-mail address."`
	InvitationsSent []ExportSentOffer  `json:"invitationsSent" description:"Seat offers the user made."`
	Application     *ExportApplication `json:"application" nullable:"true" description:"The user's request to be let in, if they made one."`
	ReferralCode    *ExportCode        `json:"referralCode" nullable:"true" description:"The user's own invite code, once minted."`
	Emails          []ExportEmail      `json:"emails" description:"Letters sent to the user's address (the e-mail log)."`
}

// ExportSeat is a seat the user holds.
type ExportSeat struct {
	OrganizationID   string    `json:"organizationId"`
	OrganizationName string    `json:"organizationName"`
	Role             auth.Role `json:"role" enum:"owner,admin,member,viewer"`
	Founder          bool      `json:"founder" description:"The user founded this personal house."`
	Since            ts.Time   `json:"since"`
}

// ExportSession is a session of the user's.
type ExportSession struct {
	ID                   string  `json:"id"`
	ActiveOrganizationID string  `json:"activeOrganizationId"`
	CreatedAt            ts.Time `json:"createdAt"`
	ExpiresAt            ts.Time `json:"expiresAt"`
	Current              bool    `json:"current" description:"The session the export was asked with."`
}

// ExportKey is an API key the user minted.
type ExportKey struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Role           auth.Role `json:"role" enum:"viewer,member"`
	Prefix         string    `json:"prefix"`
	LastUsedAt     *ts.Time  `json:"lastUsedAt"`
	RevokedAt      *ts.Time  `json:"revokedAt"`
	CreatedAt      ts.Time   `json:"createdAt"`
}

// ExportMemory is one of the user's personal memories.
type ExportMemory struct {
	ID             string  `json:"id"`
	OrganizationID string  `json:"organizationId" description:"The house the memory was kept in."`
	MemoryClass    string  `json:"memoryClass"`
	Kind           string  `json:"kind" enum:"told,observed"`
	Statement      string  `json:"statement"`
	Status         string  `json:"status" enum:"candidate,active,retired,superseded"`
	CreatedAt      ts.Time `json:"createdAt"`
}

// ExportInvitation is an invitation addressed to the user.
type ExportInvitation struct {
	Kind             string   `json:"kind" enum:"seat,admin,code" description:"seat: a house's seat offer; admin: an operator's invitation; code: a redeemed invite code."`
	ID               string   `json:"id"`
	Status           string   `json:"status" enum:"pending,accepted,superseded,issued,opened"`
	OrganizationID   *string  `json:"organizationId" description:"The house, for a seat offer."`
	OrganizationName *string  `json:"organizationName"`
	Role             *string  `json:"role" description:"The role offered, for a seat offer."`
	GrantTokens      int64    `json:"grantTokens"`
	CreatedAt        ts.Time  `json:"createdAt"`
	AcceptedAt       *ts.Time `json:"acceptedAt"`
}

// ExportSentOffer is a seat offer the user made.
type ExportSentOffer struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Email          string    `json:"email"`
	Role           auth.Role `json:"role" enum:"owner,admin,member,viewer"`
	Status         string    `json:"status" enum:"pending,accepted,superseded"`
	CreatedAt      ts.Time   `json:"createdAt"`
}

// ExportApplication is the user's request to be let in.
type ExportApplication struct {
	Name      string  `json:"name"`
	House     string  `json:"house"`
	Website   string  `json:"website"`
	Details   string  `json:"details" description:"The rest of the request as it was sent, JSON."`
	Status    string  `json:"status" enum:"pending,invited,declined"`
	CreatedAt ts.Time `json:"createdAt"`
}

// ExportCode is the user's own invite code.
type ExportCode struct {
	Code      string  `json:"code"`
	UsedCount int64   `json:"usedCount"`
	MaxUses   int64   `json:"maxUses"`
	CreatedAt ts.Time `json:"createdAt"`
}

// ExportEmail is a letter sent to the user's address.
type ExportEmail struct {
	Template  string  `json:"template"`
	Subject   string  `json:"subject"`
	Text      string  `json:"text"`
	Status    string  `json:"status"`
	CreatedAt ts.Time `json:"createdAt"`
}

// meStore is what a user's own data needs from persistence.
type meStore interface {
	// ExportUser reads every row of the user's own (Profile and ExportedAt
	// are the service's).
	ExportUser(ctx context.Context, userID, email string) (Export, error)
	// EraseUser erases the user in one transaction (docs/people.md,
	// "Erasure"): decide sees every house where they hold a seat and may
	// refuse; houses left with no seat are closed and their rows removed.
	// It returns the houses left and closed.
	EraseUser(ctx context.Context, userID, email string, decide func([]Standing) error) (Erasure, error)
}

// Standing is a house as an erasure sees it.
type Standing struct {
	HouseID string
	Role    auth.Role
	Owners  int // owner seats, the user's included
	Seats   int // every seat, the user's included
}

// Erasure is what an erasure did.
type Erasure struct {
	Left   []string // houses whose seat was removed
	Closed []string // houses closed and emptied
	Blobs  []string // the closed houses' stored bytes the rows named, to remove after the write
}

// Erased answers POST /me/delete.
type Erased struct {
	Deleted             bool     `json:"deleted"`
	UserID              string   `json:"userId"`
	LeftOrganizations   []string `json:"leftOrganizations" description:"Houses that keep their work without the user's seat (attribution on it is now null)."`
	ClosedOrganizations []string `json:"closedOrganizations" description:"Houses left with no seat: closed, every row and stored byte removed."`
}

// Export returns the caller's own rows.
func (s *Service) Export(ctx context.Context, p auth.Principal) (Export, error) {
	u, err := s.store.User(ctx, p.UserID)
	if err != nil {
		return Export{}, err
	}
	x, err := s.store.ExportUser(ctx, p.UserID, u.Email)
	if err != nil {
		return Export{}, err
	}
	x.ExportedAt, x.Profile = ts.Of(s.opts.Now()), s.profile(u)
	for i := range x.Sessions {
		x.Sessions[i].Current = x.Sessions[i].ID == p.SessionID
	}
	return x, nil
}

// Delete erases the caller's account once confirmed with their address
// (400 CONFIRM_EMAIL otherwise): refused with 409 SOLE_OWNER while
// they are the only owner of a house that has other seats. The picture's
// bytes and every stored byte of a closed house are removed after the
// write; a byte that cannot be removed then is logged (the sweeper removes
// bytes no row names).
func (s *Service) Delete(ctx context.Context, p auth.Principal, in DeleteRequest) (Erased, error) {
	u, err := s.store.User(ctx, p.UserID)
	if err != nil {
		return Erased{}, err
	}
	if !strings.EqualFold(strings.TrimSpace(in.Email), u.Email) {
		return Erased{}, ErrConfirm
	}
	e, err := s.store.EraseUser(ctx, p.UserID, u.Email, func(hs []Standing) error {
		var stuck []string
		for _, h := range hs {
			if h.Role == auth.Owner && h.Owners == 1 && h.Seats > 1 {
				stuck = append(stuck, h.HouseID)
			}
		}
		if len(stuck) > 0 {
			return errs.With(ErrSoleOwner, "organizations", stuck)
		}
		return nil
	})
	if err != nil {
		return Erased{}, err
	}
	bg := context.WithoutCancel(ctx)
	var failed []error
	if err := s.opts.Blobs.Delete(bg, AvatarKey(p.UserID)); err != nil {
		failed = append(failed, err)
	}
	for _, k := range e.Blobs {
		if err := s.opts.Blobs.Delete(bg, k); err != nil {
			failed = append(failed, err)
		}
	}
	for _, h := range e.Closed {
		failed = append(failed, s.removeHouseBytes(bg, h)...)
	}
	if len(failed) > 0 && s.opts.Log != nil {
		s.opts.Log.ErrorContext(ctx, "erase: stored bytes left behind", "user", p.UserID, "err", errors.Join(failed...))
	}
	return Erased{Deleted: true, UserID: p.UserID, LeftOrganizations: nonNil(e.Left), ClosedOrganizations: nonNil(e.Closed)}, nil
}

// houseFolders are the blob folders that hold a house's bytes, each
// followed by the house id.
var houseFolders = []string{"assets/", "packs/"}

// removeHouseBytes removes every stored byte left in a closed house's
// folders, rows or none.
func (s *Service) removeHouseBytes(ctx context.Context, house string) []error {
	var failed []error
	for _, folder := range houseFolders {
		var keys []string
		err := s.opts.Blobs.Walk(ctx, folder+house+"/", func(key string, _ blob.Info) error {
			keys = append(keys, key)
			return nil
		})
		if err != nil {
			failed = append(failed, err)
		}
		for _, k := range keys {
			if err := s.opts.Blobs.Delete(ctx, k); err != nil {
				failed = append(failed, err)
			}
		}
	}
	return failed
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}
