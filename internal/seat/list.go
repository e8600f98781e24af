package seat

import (
	"context"

	"studio/internal/auth"
	"studio/internal/ts"
)

// The list of a house's seats (GET /api/toolkit/org/seats, an extension:
// SPEC §4.13 changes, removes and hands over seats by user id but names no
// route that tells a caller those ids). Every seat of the house may read
// who sits in it; the open offers are shown to those who make them (an
// owner or an admin). Each seat says what the caller may do to it, decided
// by the same rules the changes apply, so a page shows only the actions
// the service would accept.

// Seat is one person's seat in the house, as the list answers it.
type Seat struct {
	UserID   string    `json:"userId"`
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	Role     auth.Role `json:"role" enum:"owner,admin,member,viewer"`
	JoinedAt ts.Time   `json:"joinedAt" description:"When the person took the seat."`
	Founder  bool      `json:"founder" description:"The founder of this personal house: the seat cannot be removed."`
	You      bool      `json:"you" description:"The caller's own seat (a key's: its minter's)."`
	// What the caller may do to this seat, decided by the rules the
	// change routes apply (false is what that route would refuse with 403).
	MayChangeRole bool `json:"mayChangeRole" description:"POST /api/toolkit/org/seats/role would accept a change of this seat."`
	MayRemove     bool `json:"mayRemove" description:"DELETE /api/toolkit/org/seats/{userId} would remove this seat."`
	MayTransfer   bool `json:"mayTransfer" description:"POST /api/toolkit/org/transfer would hand the house to this seat."`
}

// PendingOffer is an open offer of a seat: not yet accepted, superseded or
// lapsed.
type PendingOffer struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      auth.Role `json:"role" enum:"owner,admin,member,viewer"`
	InvitedBy string    `json:"invitedBy" description:"The name of the person who made the offer; empty when their account is gone."`
	CreatedAt ts.Time   `json:"createdAt"`
	ExpiresAt ts.Time   `json:"expiresAt"`
	URL       string    `json:"url" description:"The accept link the offer's letter carries."`
}

// List answers GET /api/toolkit/org/seats.
type List struct {
	Seats       []Seat         `json:"seats" description:"Every seat of the house, newest first."`
	Invitations []PendingOffer `json:"invitations" description:"The open offers, newest first; empty unless the caller is an owner or an admin."`
}

// Lister is what the list needs from persistence (part of Store).
type Lister interface {
	// Seats reads every seat of the house with its holder, newest first
	// (Founder set; You and the May fields left to the service).
	Seats(ctx context.Context, house string) ([]Seat, error)
	// PendingOffers reads the house's offers still pending and unexpired
	// at now (Unix milliseconds), newest first, URL left to the service.
	PendingOffers(ctx context.Context, house string, now int64) ([]PendingOffer, error)
}

// List reads the seats of the caller's house and, for an owner or an
// admin, its open offers.
func (s *Service) List(ctx context.Context, p auth.Principal) (List, error) {
	seats, err := s.store.Seats(ctx, p.HouseID)
	if err != nil {
		return List{}, err
	}
	if seats == nil {
		seats = []Seat{}
	}
	c := Change{}
	for _, st := range seats {
		if st.Role == auth.Owner {
			c.Owners++
		}
		if st.UserID == p.UserID {
			c.Actor = Holder{UserID: st.UserID, Email: st.Email, Role: st.Role, Founder: st.Founder}
		}
	}
	for i := range seats {
		st := &seats[i]
		c.Target = Holder{UserID: st.UserID, Email: st.Email, Role: st.Role, Founder: st.Founder}
		self := st.UserID == p.UserID
		st.You = self
		st.MayChangeRole = mayChangeRole(p, c) == nil
		st.MayRemove = mayRemove(p, c) == nil
		st.MayTransfer = !self && mayTransfer(p, c) == nil
	}
	out := List{Seats: seats, Invitations: []PendingOffer{}}
	if authority(p, c.Actor).MayManage() != nil {
		return out, nil
	}
	offers, err := s.store.PendingOffers(ctx, p.HouseID, s.opts.Now().UnixMilli())
	if err != nil {
		return List{}, err
	}
	for i := range offers {
		offers[i].URL = s.AcceptURL(offers[i].ID)
	}
	if offers != nil {
		out.Invitations = offers
	}
	return out, nil
}
