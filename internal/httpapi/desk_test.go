package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/support"
)

// deskWalk is the operators' desk's part of the route walk (walk_test.go).
var deskWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/admin/support/tickets": static("/api/toolkit/admin/support/tickets", nil),
		"GET /api/toolkit/admin/support/tickets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/support/tickets/" + walkTicket(t, a, u), nil}
		},
		"POST /api/toolkit/admin/support/tickets/{id}/reply": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/support/tickets/" + walkTicket(t, a, u) + "/reply", map[string]any{"content": "We are on it."}}
		},
		"POST /api/toolkit/admin/support/tickets/{id}/notes": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/support/tickets/" + walkTicket(t, a, u) + "/notes", map[string]any{"content": "Queue was stuck."}}
		},
		"POST /api/toolkit/admin/support/tickets/{id}/close": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/support/tickets/" + walkTicket(t, a, u) + "/close", nil}
		},
		"POST /api/toolkit/admin/support/tickets/{id}/reopen": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/support/tickets/" + walkTicket(t, a, u) + "/reopen", nil}
		},
	},
}

func walkTicket(t *testing.T, a *apptest.App, u *apptest.User) string {
	return openTicket(t, a, u.Session(), ticketBody("Walk", "A ticket for the walk of every route.")).id(t)
}

type deskThread struct {
	Ticket   support.DeskTicket
	Messages []support.DeskMessage
}

type memberThread struct {
	Status   string
	Messages []support.Message
}

// TestDeskAnswers: a member opens a ticket; the operator finds it among
// the tickets of every house, reads it, adds an internal note and
// replies; the member reads the reply (and not the note) in the thread and
// gets it by e-mail. Closing shows in the member's thread; the member's
// next message opens it again. A noted report is not answered; bad
// filters, empty replies and unknown tickets are refused. On each engine.
func TestDeskAnswers(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		op := a.SignUpAs(t, &apptest.User{Name: "Operator Ola", Email: "admin@studio.test", Password: "correct horse battery"})
		adm := op.Session()
		member := a.SignUp(t, "asker")
		other := a.SignUp(t, "bystander")
		id := openTicket(t, a, member.Session(), ticketBody("Frames stuck", "My develop has been queued for an hour now.")).id(t)
		openTicket(t, a, other.Session(), map[string]any{"subject": "Nice tool", "body": "Just saying the reframe tool is lovely.", "needsReply": false})

		var list struct{ Tickets []support.DeskTicket }
		a.Do(t, "GET", "/api/toolkit/admin/support/tickets", adm, nil).JSON(t, &list)
		if len(list.Tickets) != 1 || list.Tickets[0].ID != id || !list.Tickets[0].AwaitingReply || list.Tickets[0].HouseID == nil ||
			*list.Tickets[0].HouseID != member.HouseID || list.Tickets[0].ContactEmail == nil || *list.Tickets[0].ContactEmail != member.Email {
			t.Fatalf("open tickets %+v; want the member's, awaiting a reply", list.Tickets)
		}
		a.Do(t, "GET", "/api/toolkit/admin/support/tickets?status=noted", adm, nil).JSON(t, &list)
		if len(list.Tickets) != 1 || list.Tickets[0].Status != "noted" {
			t.Fatalf("noted %+v", list.Tickets)
		}
		noted := list.Tickets[0].ID

		path := "/api/toolkit/admin/support/tickets/" + id
		want(t, a.Do(t, "POST", path+"/notes", adm, map[string]any{"content": "Their queue lease lapsed at 10:02."}), 201, "")
		res := a.Do(t, "POST", path+"/reply", adm, map[string]any{"content": "  Sorry: it was our queue. It runs again now.  "})
		want(t, res, 201, "")
		var th deskThread
		res.JSON(t, &th)
		if len(th.Messages) != 3 || th.Messages[1].Author != "note" || th.Messages[1].AuthorName != "Operator Ola" ||
			th.Messages[2].Author != "support" || th.Messages[2].Content != "Sorry: it was our queue. It runs again now." || th.Ticket.AwaitingReply {
			t.Fatalf("desk thread %+v", th)
		}

		// The member: one unread answer, the reply in the thread, no note.
		var mine struct{ Tickets []wireTicket }
		a.Do(t, "GET", "/api/toolkit/support/tickets", member.Session(), nil).JSON(t, &mine)
		if len(mine.Tickets) != 1 || mine.Tickets[0].UnreadCount != 1 || mine.Tickets[0].MessageCount != 2 {
			t.Errorf("member's list %+v", mine.Tickets)
		}
		var mt memberThread
		a.Do(t, "GET", "/api/toolkit/support/tickets/"+id, member.Session(), nil).JSON(t, &mt)
		if mt.Status != "open" || len(mt.Messages) != 2 || mt.Messages[1].Author != "support" || mt.Messages[1].AuthorName != support.DeskName {
			t.Errorf("member's thread %+v", mt)
		}
		body := string(a.Do(t, "GET", "/api/toolkit/support/tickets/"+id, member.Session(), nil).Body)
		if strings.Contains(body, "lease lapsed") {
			t.Error("the internal note reached the member")
		}
		letters := a.Outbox.To(member.Email)
		if len(letters) == 0 || letters[0].Template != support.TemplateReply || !strings.Contains(letters[0].Text, "It runs again now.") ||
			strings.Contains(letters[0].Text, "lease lapsed") || letters[0].Subject != "Re: Frames stuck" {
			t.Errorf("reply letter %+v", letters)
		}
		a.Do(t, "GET", path, adm, nil).JSON(t, &th)
		if th.Messages[2].ReadAt == nil {
			t.Error("the desk does not see that the member read the reply")
		}

		// Close: the member reads the thread, closed; their next message opens it.
		var closed struct{ Ticket support.DeskTicket }
		a.Do(t, "POST", path+"/close", adm, nil).JSON(t, &closed)
		if closed.Ticket.Status != "closed" || closed.Ticket.ClosedAt == nil {
			t.Fatalf("closed %+v", closed)
		}
		a.Do(t, "POST", path+"/close", adm, nil).JSON(t, &closed) // again: the first time stays
		a.Do(t, "GET", "/api/toolkit/support/tickets/"+id, member.Session(), nil).JSON(t, &mt)
		if mt.Status != "closed" || len(mt.Messages) != 2 {
			t.Errorf("member's closed thread %+v", mt)
		}
		a.Do(t, "GET", "/api/toolkit/admin/support/tickets?status=closed", adm, nil).JSON(t, &list)
		if len(list.Tickets) != 1 || list.Tickets[0].ID != id {
			t.Errorf("closed list %+v", list.Tickets)
		}
		want(t, a.Do(t, "POST", "/api/toolkit/support/tickets", member.Session(), map[string]any{"subject": "Still stuck", "body": "It is stuck again, sadly, since noon.", "ticketId": id}), 201, "")
		a.Do(t, "GET", "/api/toolkit/support/tickets/"+id, member.Session(), nil).JSON(t, &mt)
		if mt.Status != "open" || len(mt.Messages) != 3 {
			t.Errorf("after the member's message %+v; want open again", mt)
		}
		a.Do(t, "POST", path+"/close", adm, nil)
		a.Do(t, "POST", path+"/reopen", adm, nil).JSON(t, &closed)
		if closed.Ticket.Status != "open" || closed.Ticket.ClosedAt != nil || !closed.Ticket.AwaitingReply {
			t.Errorf("reopened %+v", closed.Ticket)
		}

		// Refusals.
		for _, p := range []string{"/reply", "/close", "/reopen"} {
			var body any
			if p == "/reply" {
				body = map[string]any{"content": "Thanks!"}
			}
			want(t, a.Do(t, "POST", "/api/toolkit/admin/support/tickets/"+noted+p, adm, body), 409, "TICKET_NOTED")
		}
		want(t, a.Do(t, "POST", "/api/toolkit/admin/support/tickets/"+noted+"/notes", adm, map[string]any{"content": "Forwarded to design."}), 201, "")
		want(t, a.Do(t, "POST", path+"/reply", adm, map[string]any{"content": "   "}), 400, "BAD_BODY")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/support/tickets?status=lost", adm, nil), 400, "BAD_STATUS")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/support/tickets?limit=0", adm, nil), 400, "BAD_LIMIT")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/support/tickets", member.Session(), nil), 403, "FORBIDDEN")
		want(t, a.Do(t, "POST", path+"/reply", a.Key(t, op, "member"), map[string]any{"content": "A key is no operator."}), 403, "FORBIDDEN")
		var n int
		_ = a.DB.QueryTest(context.Background(), `SELECT COUNT(*) FROM support_messages WHERE content = 'A key is no operator.'`, &n)
		if n != 0 {
			t.Error("a refused reply was written")
		}
	})
}
