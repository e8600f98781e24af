package httpapi

import (
	"io"
	"net/http"
	"time"

	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/support"
)

// TicketsBody lists tickets.
type TicketsBody struct {
	Tickets []support.Ticket `json:"tickets"`
}

// ShotForm documents the screenshot upload's form.
type ShotForm struct {
	File []byte `formData:"file" format:"binary" required:"true" description:"A PNG, JPEG or WebP image, at most 12 MB."`
}

// ShotQuery is the signed query of a screenshot link.
type ShotQuery struct {
	O string `query:"o" required:"true" refuse:"BAD_LINK" description:"The house the screenshot belongs to."`
	E string `query:"e" required:"true" refuse:"BAD_LINK" description:"When the link expires, in Unix seconds."`
	S string `query:"s" required:"true" refuse:"BAD_LINK" description:"The signature."`
}

// BridgeHeader names the support bridge's shared secret header.
const BridgeHeader = "x-support-bridge-secret"

var shotForm = formSpec{maxBody: maxUploadBody, files: map[string]int{"file": 1}, named: true, maxFiles: 1, texts: []string{}, maxText: maxFormField}

func (s *Server) uploadShot(w http.ResponseWriter, r *http.Request) error {
	f, err := readForm(w, r, shotForm)
	if err != nil {
		return err
	}
	if len(f.files) == 0 || len(f.files[0].data) == 0 {
		return errs.Msg(errs.BadForm, "The form needs a file.")
	}
	link, err := s.svc.Support.Upload(r.Context(), auth.From(r.Context()), f.files[0].data)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, link)
}

func (s *Server) readShot(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[ShotQuery](r)
	sh, obj, err := s.svc.Support.OpenShot(r.Context(), r.PathValue("id"), q.O, q.E, q.S)
	if err != nil {
		return err
	}
	defer obj.Close()
	h := w.Header()
	h.Set("Content-Type", sh.Mime)
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", assetCSP)
	http.ServeContent(w, r, "", time.Time{}, obj)
	return nil
}

func (s *Server) listTickets(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.svc.Support.List(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, TicketsBody{Tickets: ts})
}

func (s *Server) openTicket(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[support.TicketRequest](w, r)
	if err != nil {
		return err
	}
	t, err := s.svc.Support.Open(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, t)
}

func (s *Server) ticketThread(w http.ResponseWriter, r *http.Request) error {
	th, err := s.svc.Support.Thread(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, th)
}

func (s *Server) escalate(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Support.CheckBridge(r.Header.Get(BridgeHeader)); err != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxJSON))
		return err
	}
	in, err := decode[support.EscalationRequest](w, r)
	if err != nil {
		return err
	}
	t, err := s.svc.Support.Escalate(r.Context(), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, t)
}

// supportRoutes are the routes of the help desk (SPEC §4.14).
func (s *Server) supportRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/support/escalations", Class: SharedSecret, Tag: "support", Summary: "The support bridge hands a conversation to the desk (header x-support-bridge-secret)",
			In: support.EscalationRequest{}, Out: []Out{{Status: 201, Body: support.Ticket{}}},
			Errors: []*errs.Error{errs.Unauthorized, support.ErrBridgeOff, support.ErrBadReason}, Handler: s.escalate},
		{Method: "POST", Path: "/api/toolkit/support/screenshots", Class: SessionOnly, Tag: "support", Summary: "Keep a screenshot for a ticket; answers a signed link that expires",
			In: Multipart{Form: ShotForm{}}, Out: []Out{{Status: 201, Body: support.ShotLink{}}},
			Errors: []*errs.Error{asset.ErrTooLarge, support.ErrBadShotType}, Handler: s.uploadShot},
		{Method: "GET", Path: "/api/toolkit/support/screenshots/{id}", Class: Public, Tag: "support", Summary: "A screenshot, through its signed link",
			Query: ShotQuery{}, Out: imageOut(http.StatusOK), Errors: []*errs.Error{support.ErrBadLink, errs.NotFound}, Handler: s.readShot},
		{Method: "GET", Path: "/api/toolkit/support/tickets", Class: KeyOrSession, Tag: "support", Summary: "The house's open tickets, the latest message first",
			Out: []Out{{Status: 200, Body: TicketsBody{}}}, Handler: s.listTickets},
		{Method: "POST", Path: "/api/toolkit/support/tickets", Class: KeyOrSession, Tag: "support", Summary: "Open a ticket, note a report (needsReply false) or reply (ticketId); any role",
			In: support.TicketRequest{}, Out: []Out{{Status: 201, Body: support.Ticket{}}},
			Errors: []*errs.Error{support.ErrNeedsDetail, support.ErrDeskNoThread}, Handler: s.openTicket},
		{Method: "GET", Path: "/api/toolkit/support/tickets/{id}", Class: KeyOrSession, Tag: "support", Summary: "A ticket's thread, oldest first, without internal notes",
			Out: []Out{{Status: 200, Body: support.Thread{}}}, Errors: []*errs.Error{support.ErrDeskNoThread}, NotFound: support.ErrDeskNoThread,
			Handler: s.ticketThread},
	}
}
