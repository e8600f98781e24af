package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/invite"
	"studio/internal/ops"
	"studio/internal/ts"
)

// applicantsWalk is the applicant list's part of the route walk.
var applicantsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/admin/applicants": static("/api/toolkit/admin/applicants", nil),
		"POST /api/toolkit/admin/applicants/{id}/decline": func(t *testing.T, a *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/admin/applicants/" + walkApplicant(t, a) + "/decline", map[string]any{"reason": "Not a house."}}
		},
	},
}

// walkApplicant puts a fresh address on the applicant list straight in the
// store (the request route allows 5 an hour per address; the walk asks
// more often).
func walkApplicant(t *testing.T, a *apptest.App) string {
	t.Helper()
	ap := invite.Applicant{ID: uuid.Must(uuid.NewV7()).String(), Email: freshEmail("walk-applicant"), Name: "Walk", Details: "{}",
		Status: "pending", CreatedAt: ts.Of(time.Now())}
	if ok, err := a.DB.AddApplicant(context.Background(), ap); !ok || err != nil {
		t.Fatal(ok, err)
	}
	return ap.ID
}

// applicantID asks to be let in as email and answers the applicant's id.
func applicantID(t *testing.T, a *apptest.App, email string) string {
	t.Helper()
	if res := a.Do(t, "POST", "/api/toolkit/invite/request", apptest.Anonymous, map[string]string{"name": "Ines", "email": email}); res.Status != 200 {
		t.Fatalf("request: %d %s", res.Status, res.Body)
	}
	var id string
	if err := a.DB.QueryTest(context.Background(), `SELECT id FROM invite_requests WHERE email = '`+email+`'`, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDeclineApplicant: an operator reads the pending applicants and
// declines one with a reason; the address is told by e-mail, without the
// reason; a second decline changes nothing; asking again answers
// already_requested and leaves the decision; an invited applicant cannot be
// declined. On each engine.
func TestDeclineApplicant(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		adm := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"}).Session()
		id := applicantID(t, a, "ines@maison.test")
		invited := applicantID(t, a, "paul@maison.test")
		if ok, err := a.DB.DecideApplicant(context.Background(), invited, "pending", "invited", "", time.Now()); !ok || err != nil {
			t.Fatal(ok, err)
		}

		var list struct{ Applicants []ops.Applicant }
		a.Do(t, "GET", "/api/toolkit/admin/applicants", adm, nil).JSON(t, &list)
		if len(list.Applicants) != 1 || list.Applicants[0].ID != id || list.Applicants[0].Email != "ines@maison.test" {
			t.Fatalf("pending %+v", list.Applicants)
		}
		path := "/api/toolkit/admin/applicants/" + id + "/decline"
		want(t, a.Do(t, "POST", path, adm, map[string]any{"reason": "  "}), 400, "REASON_REQUIRED")
		var d ops.Declined
		res := a.Do(t, "POST", path, adm, map[string]any{"reason": "A reseller, not a house."})
		want(t, res, 200, "")
		res.JSON(t, &d)
		if d.Status != "declined" || d.AlreadyDeclined || d.Emailed != "logged" {
			t.Errorf("declined %+v", d)
		}
		letters := a.Outbox.To("ines@maison.test")
		if len(letters) != 1 || letters[0].Template != ops.TemplateDeclined || strings.Contains(letters[0].Text, "reseller") {
			t.Errorf("letters %+v; want one, without the reason", letters)
		}
		a.Do(t, "POST", path, adm, map[string]any{"reason": "Again."}).JSON(t, &d)
		if !d.AlreadyDeclined || d.Emailed != "none" {
			t.Errorf("declined twice %+v", d)
		}
		// Asking again: already_requested, still declined, no letter.
		res = a.Do(t, "POST", "/api/toolkit/invite/request", apptest.Anonymous, map[string]string{"name": "Ines", "email": "ines@maison.test"})
		if res.Status != 200 || res.Map(t)["status"] != "already_requested" {
			t.Errorf("asked again: %d %s", res.Status, res.Body)
		}
		a.Do(t, "GET", "/api/toolkit/admin/applicants?status=declined", adm, nil).JSON(t, &list)
		if len(list.Applicants) != 1 || list.Applicants[0].DecisionReason == nil || *list.Applicants[0].DecisionReason != "A reseller, not a house." ||
			list.Applicants[0].DecidedAt == nil || len(a.Outbox.To("ines@maison.test")) != 1 {
			t.Errorf("declined list %+v", list.Applicants)
		}
		want(t, a.Do(t, "POST", "/api/toolkit/admin/applicants/"+invited+"/decline", adm, map[string]any{"reason": "Too late."}), 409, "NOT_PENDING")
		want(t, a.Do(t, "POST", "/api/toolkit/admin/applicants/0190a1c2-0000-7000-8000-000000000000/decline", adm, map[string]any{"reason": "x"}), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/applicants?status=lost", adm, nil), 400, "BAD_STATUS")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/applicants?limit=0", adm, nil), 400, "BAD_LIMIT")
		a.Do(t, "GET", "/api/toolkit/admin/applicants?status=all", adm, nil).JSON(t, &list)
		if len(list.Applicants) != 2 {
			t.Errorf("all %+v", list.Applicants)
		}
	})
}
