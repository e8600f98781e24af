package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/support"
)

// supportWalk is the desk's part of the route walk (walk_test.go). The
// walk's app has no bridge secret: escalations answer 503 to everyone.
var supportWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/support/escalations": static("/api/support/escalations", map[string]any{"reason": "handoff", "sessionId": "s-1"}),
		"POST /api/toolkit/support/screenshots": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/support/screenshots", uploadForm(t, "shot.png", pngOf(t, 8, 8))}
		},
		"GET /api/toolkit/support/screenshots/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{shotPath(t, a, shotLink(t, a, u.Session(), pngOf(t, 8, 8)).URL), nil}
		},
		"GET /api/toolkit/support/tickets":  static("/api/toolkit/support/tickets", nil),
		"POST /api/toolkit/support/tickets": static("/api/toolkit/support/tickets", ticketBody("Frames stuck", "My develop has been queued for an hour.")),
		"GET /api/toolkit/support/tickets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/support/tickets/" + openTicket(t, a, u.Session(), ticketBody("Walk", "A ticket for the walk of every route.")).id(t), nil}
		},
	},
	unconfigured: map[string]string{"POST /api/support/escalations": "SUPPORT_BRIDGE_NOT_CONFIGURED"},
	signed:       []string{"GET /api/toolkit/support/screenshots/{id}"},
}

func ticketBody(subject, body string) map[string]any {
	return map[string]any{"subject": subject, "body": body, "topic": "develop"}
}

type wireTicket struct {
	ID                        *string
	Status, Summary           string
	MessageCount, UnreadCount int
}

func (w wireTicket) id(t testing.TB) string {
	t.Helper()
	if w.ID == nil {
		t.Fatal("the ticket has no id")
	}
	return *w.ID
}

func openTicket(t testing.TB, a *apptest.App, c apptest.Cred, body any) wireTicket {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/support/tickets", c, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("ticket: %d %s", res.Status, res.Body)
	}
	var out wireTicket
	res.JSON(t, &out)
	return out
}

func shotLink(t testing.TB, a *apptest.App, c apptest.Cred, data []byte) support.ShotLink {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/support/screenshots", c, uploadForm(t, "shot.png", data))
	if res.Status != http.StatusCreated {
		t.Fatalf("screenshot: %d %s", res.Status, res.Body)
	}
	var out support.ShotLink
	res.JSON(t, &out)
	return out
}

// shotPath is a signed link's path and query on this app.
func shotPath(t testing.TB, a *apptest.App, url string) string {
	t.Helper()
	p, ok := strings.CutPrefix(url, a.URL)
	if !ok {
		t.Fatalf("link %s is not on %s", url, a.URL)
	}
	return p
}

func TestSupport(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.BridgeSecret = "bridge-secret"; c.ShotDays = 1 })
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		s, viewer := owner.Session(), a.Key(t, owner, "viewer")
		ctx := context.Background()

		// Screenshots: kept, read through the signed link, refused otherwise.
		img := pngOf(t, 12, 9)
		link := shotLink(t, a, s, img)
		path := shotPath(t, a, link.URL)
		if res := a.Do(t, "GET", path, apptest.Anonymous, nil); res.Status != 200 || !bytes.Equal(res.Body, img) ||
			res.Header.Get("Content-Type") != "image/png" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("read: %d %v", res.Status, res.Header)
		}
		if until := time.Until(link.ExpiresAt.Time); until < 23*time.Hour || until > 25*time.Hour {
			t.Errorf("the link lives %v; want a day", until)
		}
		// The link's rules (expiry, signature, screenshot) are the desk's
		// (internal/support); here, that a refused link is 403 on the wire.
		refused := map[string]string{
			"tampered":      strings.Replace(path, "&s=", "&s=x", 1),
			"another house": strings.Replace(path, "o="+owner.HouseID, "o="+other.HouseID, 1),
		}
		for name, p := range refused {
			if res := a.Do(t, "GET", p, apptest.Anonymous, nil); res.Status != 403 || res.Code != "BAD_LINK" {
				t.Errorf("%s: %d %s; want 403 BAD_LINK", name, res.Status, res.Body)
			}
		}
		for name, tc := range map[string]struct {
			body   any
			status int
			code   string
		}{
			"not an image": {uploadForm(t, "shot.png", []byte("GIF89a not what we take")), 415, "UNSUPPORTED_TYPE"},
			"too large":    {uploadForm(t, "shot.png", make([]byte, 13<<20)), 413, "IMAGE_TOO_LARGE"},
			"no file":      {apptest.Multipart(t, apptest.Part{Name: "note", Value: "x"}), 400, "BAD_FORM"},
		} {
			if res := a.Do(t, "POST", "/api/toolkit/support/screenshots", s, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("%s: %d %s; want %d %s", name, res.Status, res.Body, tc.status, tc.code)
			}
		}
		if res := a.Do(t, "POST", "/api/toolkit/support/screenshots", viewer, uploadForm(t, "shot.png", img)); res.Status != 401 {
			t.Errorf("a key uploads: %d %s; want 401 (session only)", res.Status, res.Body)
		}

		// Tickets: opened by any role, with the screenshot; a noted report; a reply.
		first := openTicket(t, a, viewer, map[string]any{"subject": "Frames stuck", "body": "My develop has been queued for an hour now.",
			"topic": "develop", "screenshots": []string{link.URL}, "currentUrl": "https://studio.example/looks", "rating": 2})
		if first.Status != "open" || first.MessageCount != 1 {
			t.Fatalf("ticket = %+v", first)
		}
		noted := openTicket(t, a, s, map[string]any{"subject": "Small thing", "body": "The grid jumps when frames land.", "needsReply": false})
		if noted.ID != nil || noted.Status != "noted" {
			t.Fatalf("noted report = %+v; want a null id", noted)
		}
		second := openTicket(t, a, s, ticketBody("Billing", "The invoice names the wrong month for us."))
		reply := openTicket(t, a, s, map[string]any{"subject": "Re: Frames stuck", "body": "Still queued after two hours, please look.", "ticketId": first.id(t)})
		if reply.id(t) != first.id(t) || reply.MessageCount != 2 {
			t.Fatalf("reply = %+v", reply)
		}
		// The desk answers, and keeps an internal note the customer never sees.
		for _, m := range []struct{ author, content string }{{"note", "Customer on the old plan."}, {"support", "We requeued your develop."}} {
			if _, err := a.DB.RawExec(ctx, `INSERT INTO support_messages (id, ticket_id, author, author_name, content, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
				uuid.Must(uuid.NewV7()).String(), first.id(t), m.author, "Desk", m.content, time.Now().UnixMilli()+1); err != nil {
				t.Fatal(err)
			}
		}
		var list struct{ Tickets []wireTicket }
		a.Do(t, "GET", "/api/toolkit/support/tickets", viewer, nil).JSON(t, &list)
		if len(list.Tickets) != 2 || list.Tickets[0].id(t) != first.id(t) || list.Tickets[1].id(t) != second.id(t) ||
			list.Tickets[0].UnreadCount != 1 || list.Tickets[0].MessageCount != 3 {
			t.Fatalf("tickets = %+v", list.Tickets)
		}
		var thread struct {
			Status   string
			Messages []struct{ Content, Author string }
		}
		a.Do(t, "GET", "/api/toolkit/support/tickets/"+first.id(t), s, nil).JSON(t, &thread)
		if thread.Status != "open" || len(thread.Messages) != 3 || thread.Messages[0].Author != "customer" || thread.Messages[2].Author != "support" {
			t.Fatalf("thread = %+v", thread)
		}
		for _, m := range thread.Messages {
			if strings.Contains(m.Content, "old plan") {
				t.Errorf("the thread shows an internal note")
			}
		}
		a.Do(t, "GET", "/api/toolkit/support/tickets", s, nil).JSON(t, &list)
		if list.Tickets[0].UnreadCount != 0 {
			t.Errorf("unread after reading = %d", list.Tickets[0].UnreadCount)
		}
		theirs := openTicket(t, a, other.Session(), ticketBody("Theirs", "Another house's ticket with its words."))
		never := a.Do(t, "GET", "/api/toolkit/support/tickets/"+uuid.Must(uuid.NewV7()).String(), s, nil)
		foreign := a.Do(t, "GET", "/api/toolkit/support/tickets/"+theirs.id(t), s, nil)
		if foreign.Status != 503 || foreign.Code != "SUPPORT_UNAVAILABLE" || !bytes.Equal(foreign.Body, never.Body) {
			t.Errorf("another house's thread: %d %s; never existed: %d %s; want the same 503", foreign.Status, foreign.Body, never.Status, never.Body)
		}
		for name, tc := range map[string]struct {
			body   any
			status int
			code   string
		}{
			"a body too short":        {ticketBody("Help", "Broken."), 400, "SUPPORT_DETAIL_NEEDED"},
			"a bad topic":             {map[string]any{"subject": "Help", "body": "A body long enough to be a few words.", "topic": "gossip"}, 400, "BAD_BODY"},
			"a foreign screenshot":    {map[string]any{"subject": "Help", "body": "A body long enough to be a few words.", "screenshots": []string{"https://x.example/a.png"}}, 400, "BAD_BODY"},
			"a reply to another's":    {map[string]any{"subject": "Help", "body": "A body long enough to be a few words.", "ticketId": theirs.id(t)}, 503, "SUPPORT_UNAVAILABLE"},
			"a reply to a noted one?": {map[string]any{"subject": "Help", "body": "A body long enough to be a few words.", "ticketId": uuid.Must(uuid.NewV7()).String()}, 503, "SUPPORT_UNAVAILABLE"},
		} {
			if res := a.Do(t, "POST", "/api/toolkit/support/tickets", s, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("%s: %d %s; want %d %s", name, res.Status, res.Body, tc.status, tc.code)
			}
		}

		// Escalations from the support bridge.
		esc := map[string]any{"reason": "turn_limit", "sessionId": "bridge-42", "organizationId": owner.HouseID, "contactEmail": owner.Email,
			"transcript": []map[string]string{{"role": "customer", "text": "My frames never land."}, {"role": "assistant", "text": "Let me get a person."}}}
		bridge := func(secret string, body any) apptest.Resp {
			var raw []byte
			switch b := body.(type) {
			case string:
				raw = []byte(b)
			default:
				raw = jsonBytes(t, b)
			}
			req, _ := http.NewRequest("POST", a.URL+"/api/support/escalations", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			if secret != "" {
				req.Header.Set(httpapiBridgeHeader, secret)
			}
			return a.Send(t, req)
		}
		for name, tc := range map[string]struct {
			secret string
			body   any
			status int
			code   string
		}{
			"no secret":     {"", esc, 401, "UNAUTHORIZED"},
			"a bad reason":  {"bridge-secret", map[string]any{"reason": "bored", "sessionId": "s"}, 400, "BAD_REASON"},
			"broken json":   {"bridge-secret", "{", 400, "BAD_JSON"},
			"not an object": {"bridge-secret", "[]", 400, "BAD_BODY"},
			"too large":     {"bridge-secret", `{"x":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "BODY_TOO_LARGE"},
		} {
			if res := bridge(tc.secret, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("escalation %s: %d %s; want %d %s", name, res.Status, res.Body, tc.status, tc.code)
			}
		}
		res := bridge("bridge-secret", esc)
		var escalated wireTicket
		res.JSON(t, &escalated)
		if res.Status != 201 || escalated.Status != "open" || !strings.Contains(escalated.Summary, "turn limit") {
			t.Fatalf("escalation: %d %s", res.Status, res.Body)
		}
		a.Do(t, "GET", "/api/toolkit/support/tickets/"+escalated.id(t), s, nil).JSON(t, &thread)
		if len(thread.Messages) != 1 || !strings.Contains(thread.Messages[0].Content, "customer: My frames never land.") {
			t.Errorf("escalated thread = %+v", thread)
		}
		if res := bridge("bridge-secret", map[string]any{"reason": "ai_down", "sessionId": "anon"}); res.Status != 201 {
			t.Errorf("an escalation naming no house: %d %s", res.Status, res.Body)
		}

		// The sweep removes screenshots past the retention (1 day here).
		if _, err := a.DB.RawExec(ctx, `UPDATE support_shots SET created_at = ? WHERE id = ?`, time.Now().Add(-49*time.Hour).UnixMilli(), link.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := a.Desk.Sweep(ctx); err != nil || n != 1 {
			t.Fatalf("sweep: %d %v; want 1", n, err)
		}
		if res := a.Do(t, "GET", path, apptest.Anonymous, nil); res.Status != 404 {
			t.Errorf("a swept screenshot: %d %s; want 404", res.Status, res.Body)
		}
	})
}

const httpapiBridgeHeader = "x-support-bridge-secret"

func jsonBytes(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
