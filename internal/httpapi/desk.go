package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/support"
)

// DeskTicketsBody lists tickets of every house for the desk.
type DeskTicketsBody struct {
	Tickets []support.DeskTicket `json:"tickets"`
}

// DeskTicketBody is one ticket after a close or reopen.
type DeskTicketBody struct {
	Ticket support.DeskTicket `json:"ticket"`
}

func (s *Server) deskTickets(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.svc.Support.DeskList(r.Context(), auth.From(r.Context()), queryOf[support.DeskQuery](r))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DeskTicketsBody{Tickets: ts})
}

func (s *Server) deskThread(w http.ResponseWriter, r *http.Request) error {
	th, err := s.svc.Support.DeskRead(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, th)
}

func (s *Server) deskReply(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[support.ReplyRequest](w, r)
	if err != nil {
		return err
	}
	th, err := s.svc.Support.Reply(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, th)
}

func (s *Server) deskNote(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[support.ReplyRequest](w, r)
	if err != nil {
		return err
	}
	th, err := s.svc.Support.Note(r.Context(), auth.From(r.Context()), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, th)
}

func (s *Server) deskClose(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.Support.Close(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DeskTicketBody{Ticket: t})
}

func (s *Server) deskReopen(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.Support.Reopen(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, DeskTicketBody{Ticket: t})
}

// deskRoutes are the operators' side of the help desk (issue 28): a
// platform administrator's session lists the tickets of every house,
// reads whole threads with their internal notes, replies (the member
// reads it in the thread and by e-mail), adds notes, closes and reopens.
func (s *Server) deskRoutes() []Route {
	byID := []*errs.Error{errs.NotFound}
	noted := []*errs.Error{errs.NotFound, support.ErrNoted}
	return []Route{
		{Method: "GET", Path: "/api/toolkit/admin/support/tickets", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "Tickets of every house, the latest message first (status open by default)",
			Query:   support.DeskQuery{}, Out: []Out{{Status: 200, Body: DeskTicketsBody{}}},
			Errors: []*errs.Error{support.ErrBadDeskStatus, errs.BadLimit}, Handler: s.deskTickets},
		{Method: "GET", Path: "/api/toolkit/admin/support/tickets/{id}", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "A ticket with its whole thread, internal notes included, oldest first",
			Out:     []Out{{Status: 200, Body: support.DeskThread{}}}, Errors: byID, Handler: s.deskThread},
		{Method: "POST", Path: "/api/toolkit/admin/support/tickets/{id}/reply", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary:     "Answer a ticket as the desk: the member reads it in the thread and by e-mail; a closed ticket opens again",
			Description: "A noted report asked for no reply: 409 TICKET_NOTED (add a note instead).",
			In:          support.ReplyRequest{}, Out: []Out{{Status: 201, Body: support.DeskThread{}}},
			Errors: append(noted, support.ErrNoContent), Handler: s.deskReply},
		{Method: "POST", Path: "/api/toolkit/admin/support/tickets/{id}/notes", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "Add an internal note: operators read it, the member never does",
			In:      support.ReplyRequest{}, Out: []Out{{Status: 201, Body: support.DeskThread{}}},
			Errors: append(byID, support.ErrNoContent), Handler: s.deskNote},
		{Method: "POST", Path: "/api/toolkit/admin/support/tickets/{id}/close", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "Close a ticket; the member still reads the thread, and a reply from either side opens it again",
			Out:     []Out{{Status: 200, Body: DeskTicketBody{}}}, Errors: noted, Handler: s.deskClose},
		{Method: "POST", Path: "/api/toolkit/admin/support/tickets/{id}/reopen", Class: PlatformAdmin, Tag: "admin", Extension: true,
			Summary: "Open a closed ticket again",
			Out:     []Out{{Status: 200, Body: DeskTicketBody{}}}, Errors: noted, Handler: s.deskReopen},
	}
}
