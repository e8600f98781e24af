package httpapi

import (
	"net/http"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/seat"
)

func (s *Server) listSeats(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Seats.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) inviteSeat(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[seat.InviteRequest](w, r)
	if err != nil {
		return err
	}
	inv, err := s.svc.Seats.Invite(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, inv)
}

func (s *Server) acceptSeat(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[seat.AcceptRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Seats.Accept(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) setSeatRole(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[seat.RoleRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Seats.SetRole(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) removeSeat(w http.ResponseWriter, r *http.Request) error {
	out, err := s.svc.Seats.Remove(r.Context(), auth.From(r.Context()), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

func (s *Server) transferHouse(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[seat.TransferRequest](w, r)
	if err != nil {
		return err
	}
	out, err := s.svc.Seats.Transfer(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, out)
}

// seatsRoutes are the routes of a house's seats and its transfer (SPEC §4.13).
func (s *Server) seatsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/org/seats", Class: KeyOrSession, Tag: "seats", Extension: true,
			Summary: "List the house's seats (any seat) and its open offers (owner or admin), each seat with what you may do to it",
			Description: "SPEC §4.13 changes, removes and hands over seats by user id; this list is where those ids come from. " +
				"Seats and offers are newest first. `mayChangeRole`, `mayRemove` and `mayTransfer` are decided by the same rules " +
				"as the change routes, for the caller as they are now. `invitations` is empty unless the caller is an owner or an admin.",
			Out: []Out{{Status: 200, Body: seat.List{}}}, Handler: s.listSeats},
		{Method: "POST", Path: "/api/toolkit/org/seats/invite", Class: KeyOrSession, Tag: "seats",
			Summary: "Offer a seat in the house to an e-mail address (owner or admin; only an owner offers owner; 20 a week)",
			In:      seat.InviteRequest{}, Out: []Out{{Status: 200, Body: seat.Invitation{}}},
			Errors: []*errs.Error{account.ErrBadEmail, errs.BadRole, seat.ErrAlreadyMember, errs.Forbidden, errs.RateLimited}, Handler: s.inviteSeat},
		{Method: "POST", Path: "/api/toolkit/org/seats/accept", Class: KeyOrSession, Tag: "seats",
			Summary: "Accept a seat offered to your address; the house becomes the session's active house",
			In:      seat.AcceptRequest{}, Out: []Out{{Status: 200, Body: seat.Accepted{}}},
			Errors: []*errs.Error{errs.EmailMismatch, errs.NotFound}, Handler: s.acceptSeat},
		{Method: "POST", Path: "/api/toolkit/org/seats/role", Class: KeyOrSession, Tag: "seats",
			Summary: "Change a seat's role (owner or admin; an admin only re-seats members and viewers; never owner)",
			In:      seat.RoleRequest{}, Out: []Out{{Status: 200, Body: seat.RoleChanged{}}},
			Errors: []*errs.Error{errs.BadRole, errs.Forbidden, errs.NotFound}, Handler: s.setSeatRole},
		{Method: "DELETE", Path: "/api/toolkit/org/seats/{userId}", Class: KeyOrSession, Tag: "seats",
			Summary: "Remove a seat (owner or admin, or your own); every piece of work stays with the house",
			Out:     []Out{{Status: 200, Body: seat.Removed{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.removeSeat},
		{Method: "POST", Path: "/api/toolkit/org/transfer", Class: KeyOrSession, Tag: "seats",
			Summary: "Hand the house to another seat (owner only); you become an admin in the same write",
			In:      seat.TransferRequest{}, Out: []Out{{Status: 200, Body: seat.Transferred{}}},
			Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.transferHouse},
	}
}
