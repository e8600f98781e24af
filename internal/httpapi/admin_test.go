package httpapi_test

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/mail"
	"studio/internal/ops"
)

var adminWalk = walkArea{
	samples: map[string]sampleFunc{
		// The operators' console: a platform admin's session only.
		"POST /api/toolkit/admin/access": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/access", map[string]any{"action": "grant_tool", "userId": u.ID, "toolId": "upscale"}}
		},
		"GET /api/toolkit/admin/ai-costs":             static("/api/toolkit/admin/ai-costs", nil),
		"GET /api/toolkit/admin/develops":             static("/api/toolkit/admin/develops", nil),
		"POST /api/toolkit/admin/develops/action":     static("/api/toolkit/admin/develops/action", map[string]any{"action": "cancel", "jobIds": []string{uuid.NewString()}}),
		"GET /api/toolkit/admin/emails":               static("/api/toolkit/admin/emails", nil),
		"GET /api/toolkit/admin/failures":             static("/api/toolkit/admin/failures", nil),
		"GET /api/toolkit/admin/frames":               static("/api/toolkit/admin/frames", nil),
		"GET /api/toolkit/admin/entitlements":         static("/api/toolkit/admin/entitlements", nil),
		"POST /api/toolkit/admin/entitlements/revoke": static("/api/toolkit/admin/entitlements/revoke", map[string]any{"entitlementId": uuid.NewString()}),
		"POST /api/toolkit/admin/invite":              static("/api/toolkit/admin/invite", map[string]any{"email": "walked@maison.test"}),
		"GET /api/toolkit/admin/invite-codes":         static("/api/toolkit/admin/invite-codes", nil),
		"POST /api/toolkit/admin/invite-codes":        static("/api/toolkit/admin/invite-codes", map[string]any{"label": "walk"}),
		"POST /api/toolkit/admin/invite-codes/{id}/revoke": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/invite-codes/" + mintCode(t, a, "WALK", 0, 1).ID + "/revoke", nil}
		},
		"GET /api/toolkit/admin/frames/{id}/file": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/frames/" + assetID(t, a, u) + "/file", nil}
		},
	},
}

// runJob claims the oldest queued job and lands it (reason empty) or fails it.
func runJob(t *testing.T, a *apptest.App, wantID, reason string) {
	t.Helper()
	ctx := context.Background()
	j, ok, err := a.DB.Claim(ctx, "ops", time.Now().Add(time.Minute))
	if err != nil || !ok || j.ID != wantID {
		t.Fatalf("claim: %v %v %s; want %s", ok, err, j.ID, wantID)
	}
	if reason != "" {
		_, err = a.DB.Fail(ctx, j, "ops", job.Failure{Reason: reason})
	} else {
		id := uuid.Must(uuid.NewV7()).String()
		_, err = a.DB.Finish(ctx, j, "ops", job.Frame{AssetID: id, Name: "frame", BlobKey: "assets/" + j.HouseID + "/" + id,
			Mime: "image/png", Width: 1, Height: 1, Size: 1, SHA256: "00"})
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestAdmin(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx := context.Background()
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		h1, h2 := a.SignUp(t, "linen"), a.SignUp(t, "wool")
		k1, k2 := a.Key(t, h1, "member"), a.Key(t, h2, "member")
		adm := op.Session()

		done := submitJob(t, a, k1, "upscale")
		runJob(t, a, done, "")
		failed1 := submitJob(t, a, k1, "upscale")
		runJob(t, a, failed1, "fal: timeout after 30 s for request "+uuid.NewString())
		failed2 := submitJob(t, a, k2, "upscale")
		runJob(t, a, failed2, "fal:  timeout after 12 s for request "+uuid.NewString())
		queued := submitJob(t, a, k1, "upscale")

		t.Run("a key, even an admin's, is 403; another session 403", func(t *testing.T) {
			want(t, a.Do(t, "GET", "/api/toolkit/admin/ai-costs", a.Key(t, op, "member"), nil), 403, "FORBIDDEN")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/ai-costs", h1.Session(), nil), 403, "FORBIDDEN")
		})

		t.Run("ai-costs", func(t *testing.T) {
			var c ops.Costs
			res := a.Do(t, "GET", "/api/toolkit/admin/ai-costs", adm, nil)
			res.JSON(t, &c)
			if c.TotalTokensSettled != 2 || len(c.ByTool) != 1 || c.ByTool[0] != (ops.ToolCost{Tool: "upscale", Tokens: 2, N: 1}) ||
				len(c.Daily) != 1 || c.Daily[0].Day != time.Now().UTC().Format(time.DateOnly) || c.Daily[0].Tokens != 2 || c.Days != 30 {
				t.Errorf("costs %s; want the one settled upscale (2 tokens) today", res.Body)
			}
			want(t, a.Do(t, "GET", "/api/toolkit/admin/ai-costs?days=0", adm, nil), 400, "BAD_DAYS")
		})

		t.Run("develops across houses", func(t *testing.T) {
			var body struct {
				Runs []struct {
					House ops.House
					Run   job.Run
				}
			}
			a.Do(t, "GET", "/api/toolkit/admin/develops", adm, nil).JSON(t, &body)
			houses := map[string]string{}
			for _, r := range body.Runs {
				houses[r.House.ID] = r.House.Name
			}
			if len(houses) != 2 || houses[h1.HouseID] == "" || houses[h2.HouseID] == "" {
				t.Errorf("houses of the runs %v; want both, named", houses)
			}
			a.Do(t, "GET", "/api/toolkit/admin/develops?state=failed&limit=1", adm, nil).JSON(t, &body)
			if len(body.Runs) != 1 || body.Runs[0].Run.Counts.Failed != 1 {
				t.Errorf("failed runs %+v", body.Runs)
			}
			want(t, a.Do(t, "GET", "/api/toolkit/admin/develops?state=lost", adm, nil), 400, "BAD_STATE")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/develops?limit=201", adm, nil), 400, "BAD_LIMIT")
		})

		t.Run("develops action", func(t *testing.T) {
			before1, before2 := houseBalance(t, a, h1.HouseID), houseBalance(t, a, h2.HouseID)
			var tally ops.Tally
			res := a.Do(t, "POST", "/api/toolkit/admin/develops/action", adm, map[string]any{"action": "cancel", "jobIds": []string{queued, done, queued, uuid.NewString()}})
			res.JSON(t, &tally)
			if tally.Requested != 3 || tally.Done != 1 || tally.Skipped != 2 || tally.TokensReleased != 2 ||
				*tally.Results[1].Reason != "ALREADY_SETTLED" || *tally.Results[2].Reason != "NOT_FOUND" {
				t.Errorf("cancel tally %s", res.Body)
			}
			if b := houseBalance(t, a, h1.HouseID); b.Held != before1.Held-2 || b.Balance != before1.Balance+2 {
				t.Errorf("house 1 after the cancel %+v; before %+v", b, before1)
			}
			res = a.Do(t, "POST", "/api/toolkit/admin/develops/action", adm, map[string]any{"action": "retry", "jobIds": []string{failed2, done}})
			res.JSON(t, &tally)
			if tally.Done != 1 || tally.TokensHeld != 2 || tally.Results[0].NewJobID == nil || *tally.Results[1].Reason != "NOT_RETRYABLE" {
				t.Errorf("retry tally %s", res.Body)
			}
			if b := houseBalance(t, a, h2.HouseID); b.Held != before2.Held+2 || len(b.Holds) != 1 || *b.Holds[0].JobID != *tally.Results[0].NewJobID {
				t.Errorf("house 2 after the retry %+v", b)
			}
			want(t, a.Do(t, "POST", "/api/toolkit/admin/develops/action", adm, map[string]any{"action": "redo", "jobIds": []string{done}}), 400, "BAD_ACTION")
			want(t, a.Do(t, "POST", "/api/toolkit/admin/develops/action", adm, map[string]any{"action": "retry", "jobIds": []string{}}), 400, "JOB_IDS_REQUIRED")
		})

		htmlID, plainID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
		for _, l := range []mail.Entry{
			{ID: htmlID, To: "buyer@example.com", Template: "share-finished", Subject: "Marked", Text: "t", HTML: "<p>Marked</p>", Status: "sent", CreatedAt: time.Now()},
			{ID: plainID, To: "gone@example.com", Template: "seat-invite", Subject: "Join", Text: "t", Status: "failed", CreatedAt: time.Now()},
		} {
			if err := a.DB.LogEmail(ctx, l); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("emails", func(t *testing.T) {
			res := a.Do(t, "GET", "/api/toolkit/admin/emails", adm, nil)
			if strings.Contains(string(res.Body), "<p>Marked</p>") || !strings.Contains(string(res.Body), htmlID) {
				t.Errorf("the list %s; want letters without HTML", res.Body)
			}
			var one struct{ Letter ops.Letter }
			a.Do(t, "GET", "/api/toolkit/admin/emails?id="+htmlID, adm, nil).JSON(t, &one)
			if one.Letter.HTML == nil || *one.Letter.HTML != "<p>Marked</p>" || !one.Letter.HasHTML {
				t.Errorf("one letter %+v; want its archived HTML", one.Letter)
			}
			var plain struct{ Letter ops.Letter }
			a.Do(t, "GET", "/api/toolkit/admin/emails?id="+plainID, adm, nil).JSON(t, &plain)
			if plain.Letter.HTML != nil || plain.Letter.HasHTML || plain.Letter.ID != plainID {
				t.Errorf("a plain letter %+v", plain.Letter)
			}
			want(t, a.Do(t, "GET", "/api/toolkit/admin/emails?id="+uuid.NewString(), adm, nil), 404, "NOT_FOUND")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/emails?limit=0", adm, nil), 400, "BAD_LIMIT")
		})

		t.Run("failures", func(t *testing.T) {
			// A person's report reaches the operators beside the machines' failures.
			stuck := openTicket(t, a, h2.Session(), ticketBody("Frames stuck", "Two develops failed with a timeout, please look."))
			var f ops.Failures
			res := a.Do(t, "GET", "/api/toolkit/admin/failures", adm, nil)
			res.JSON(t, &f)
			if len(f.Groups) != 1 || f.Groups[0].Count != 2 || f.Groups[0].Houses != 2 ||
				f.Groups[0].Error != "fal: timeout after <n> s for request <id>" || len(f.RefusedEmails) != 1 || f.RefusedEmails[0].ID != plainID {
				t.Errorf("failures %s", res.Body)
			}
			if len(f.Tickets) != 1 || f.Tickets[0].ID != stuck.id(t) || f.Tickets[0].House == nil || f.Tickets[0].House.ID != h2.HouseID ||
				f.Tickets[0].Subject != "Frames stuck" || f.Tickets[0].Messages != 1 || !f.Tickets[0].AwaitingDesk || f.Tickets[0].Source != "app" {
				t.Errorf("tickets in the failures view %+v", f.Tickets)
			}
			want(t, a.Do(t, "GET", "/api/toolkit/admin/failures?hours=0", adm, nil), 400, "BAD_HOURS")
		})

		t.Run("frames", func(t *testing.T) {
			img := jpegOf(t, 16, 12)
			brought := upload(t, a, h1.Session(), img, "kind", "clothes").ID
			var fr ops.Frames
			a.Do(t, "GET", "/api/toolkit/admin/frames?house="+h1.HouseID, adm, nil).JSON(t, &fr)
			made := 0
			for _, f := range fr.Frames {
				if f.House.ID != h1.HouseID {
					t.Errorf("a frame of another house: %+v", f)
				}
				if f.Origin == "made" {
					made++
				}
			}
			// House 1's three submits brought one input (the same bytes are
			// one asset), the upload one more; one develop landed.
			if len(fr.Frames) != 3 || fr.Frames[0].ID != brought || made != 1 ||
				len(fr.Filters.Houses) != 2 || len(fr.Filters.Tools) != 1 || fr.Filters.Tools[0] != "upscale" {
				t.Errorf("house 1's frames %+v", fr)
			}
			a.Do(t, "GET", "/api/toolkit/admin/frames?origin=made&tool=upscale&age=1", adm, nil).JSON(t, &fr)
			if len(fr.Frames) != 1 || fr.Frames[0].Tool == nil || *fr.Frames[0].Tool != "upscale" {
				t.Errorf("made frames %+v", fr.Frames)
			}
			res := a.Do(t, "GET", "/api/toolkit/admin/frames/"+brought+"/file", adm, nil)
			if res.Status != 200 || !bytes.Equal(res.Body, img) {
				t.Errorf("frame file %d", res.Status)
			}
			a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k1, map[string]any{"assetIds": []string{brought}})
			want(t, a.Do(t, "GET", "/api/toolkit/admin/frames/"+brought+"/file", adm, nil), 404, "NOT_FOUND")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/frames?origin=found", adm, nil), 400, "BAD_FRAME_ORIGIN")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/frames?age=0", adm, nil), 400, "BAD_AGE")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/frames?tool="+strings.Repeat("t", 101), adm, nil), 400, "BAD_FILTER")
			want(t, a.Do(t, "GET", "/api/toolkit/admin/frames?limit=501", adm, nil), 400, "BAD_LIMIT")
		})

		t.Run("access", func(t *testing.T) {
			access := func(body map[string]any, status int, code string, count int) {
				t.Helper()
				res := a.Do(t, "POST", "/api/toolkit/admin/access", adm, body)
				want(t, res, status, code)
				if status == 200 && res.Map(t)["count"] != float64(count) {
					t.Errorf("%v: %s; want count %d", body, res.Body, count)
				}
			}
			access(map[string]any{"action": "grant_toolkit", "userId": h1.ID, "toolkitId": "lookbook"}, 200, "", 1)
			access(map[string]any{"action": "grant_toolkit", "userId": h1.ID, "toolkitId": "lookbook"}, 200, "", 0)
			access(map[string]any{"action": "grant_tool", "email": strings.ToUpper(h1.Email), "toolId": "tryon"}, 200, "", 1)
			kits, tools, err := a.DB.AccessOf(ctx, h1.ID)
			if err != nil || len(kits) != 1 || kits[0] != "lookbook" || len(tools) != 1 || tools[0] != "tryon" {
				t.Errorf("access of the user %v %v %v", kits, tools, err)
			}
			access(map[string]any{"action": "revoke_tool", "email": h1.Email, "toolId": "tryon"}, 200, "", 1)
			access(map[string]any{"action": "revoke_tool", "email": h1.Email, "toolId": "tryon"}, 200, "", 0)
			access(map[string]any{"userId": h1.ID, "toolId": "tryon"}, 400, "BAD_ACTION", 0)
			access(map[string]any{"action": "grant_tool", "userId": h1.ID, "toolkitId": "lookbook"}, 400, "ITEM_REQUIRED", 0)
			access(map[string]any{"action": "grant_tool", "userId": h1.ID, "toolId": "levitate"}, 400, "UNKNOWN_ITEM", 0)
			access(map[string]any{"action": "grant_toolkit", "toolkitId": "brand"}, 400, "TARGET_REQUIRED", 0)
			access(map[string]any{"action": "grant_toolkit", "userId": uuid.NewString(), "toolkitId": "brand"}, 404, "USER_NOT_FOUND", 0)
			access(map[string]any{"action": "grant_toolkit", "email": "nobody@example.com", "toolkitId": "brand"}, 404, "USER_NOT_FOUND", 0)
		})
	})
}

// TestAdminCodes: an operator mints a code that a new address redeems
// at sign-up, lists and withdraws it, and invites an address by letter.
func TestAdminCodes(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.Signup = "invite" })
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		adm := op.Session()
		mint := func(body map[string]any, status int, code string) ops.CodeBody {
			t.Helper()
			res := a.Do(t, "POST", "/api/toolkit/admin/invite-codes", adm, body)
			want(t, res, status, code)
			var out ops.CodeBody
			if status == 201 {
				res.JSON(t, &out)
			}
			return out
		}
		c := mint(map[string]any{"label": " spring-27 ", "grantTokens": 40, "maxUses": 2, "expiresInDays": 30}, 201, "").Code
		if !regexp.MustCompile(`^SPRING-27-[0-9A-HJKMNP-TV-Z]{6}$`).MatchString(c.Code) || c.GrantTokens != 40 || c.MaxUses != 2 ||
			c.ExpiresAt == nil || time.Until(c.ExpiresAt.Time) < 29*24*time.Hour || c.RevokedAt != nil {
			t.Errorf("minted %+v", c)
		}
		if d := mint(map[string]any{"label": "solo"}, 201, "").Code; d.MaxUses != 1 || d.GrantTokens != 0 || d.ExpiresAt != nil {
			t.Errorf("defaults %+v", d)
		}
		mint(map[string]any{"label": "no spaces"}, 400, "BAD_LABEL")
		mint(map[string]any{"label": strings.Repeat("A", 25)}, 400, "BAD_LABEL")
		mint(map[string]any{"label": "x", "grantTokens": 100001}, 400, "BAD_GRANT")
		mint(map[string]any{"label": "x", "maxUses": 0}, 400, "BAD_MAX_USES")
		mint(map[string]any{"label": "x", "expiresInDays": 0}, 400, "BAD_EXPIRY")

		if res := a.Do(t, "POST", "/api/toolkit/invite/redeem", apptest.Anonymous, map[string]string{"code": strings.ToLower(c.Code), "email": "new@maison.test"}); res.Status != 200 {
			t.Fatalf("redeem: %d %s", res.Status, res.Body)
		}
		guest := a.SignUpAs(t, &apptest.User{Name: "Guest", Email: "new@maison.test", Password: "correct horse battery"})
		if b := houseBalance(t, a, guest.HouseID); b.Grant != 60+40 {
			t.Errorf("the new house's grant %d; want 60 + 40", b.Grant)
		}
		var list CodesBodyT
		a.Do(t, "GET", "/api/toolkit/admin/invite-codes", adm, nil).JSON(t, &list)
		if len(list.Codes) != 2 || list.Codes[1].ID != c.ID || list.Codes[1].UsedCount != 1 || list.Codes[1].JoinedCount != 1 {
			t.Errorf("codes %+v", list.Codes)
		}
		var first, again ops.CodeBody
		a.Do(t, "POST", "/api/toolkit/admin/invite-codes/"+c.ID+"/revoke", adm, nil).JSON(t, &first)
		a.Do(t, "POST", "/api/toolkit/admin/invite-codes/"+c.ID+"/revoke", adm, nil).JSON(t, &again)
		if first.Code.RevokedAt == nil || again.Code.RevokedAt == nil || !first.Code.RevokedAt.Equal(again.Code.RevokedAt.Time) {
			t.Errorf("revoke twice: %+v then %+v", first.Code.RevokedAt, again.Code.RevokedAt)
		}
		want(t, a.Do(t, "POST", "/api/toolkit/invite/redeem", apptest.Anonymous, map[string]string{"code": c.Code, "email": "late@maison.test"}), 400, "CODE_REVOKED")
		want(t, a.Do(t, "POST", "/api/toolkit/admin/invite-codes/"+uuid.NewString()+"/revoke", adm, nil), 404, "NOT_FOUND")

		var inv1, inv2 ops.Invited
		a.Do(t, "POST", "/api/toolkit/admin/invite", adm, map[string]any{"email": " Asked@Maison.test "}).JSON(t, &inv1)
		a.Do(t, "POST", "/api/toolkit/admin/invite", adm, map[string]any{"email": "asked@maison.test"}).JSON(t, &inv2)
		if inv1.Email != "asked@maison.test" || inv1.Status != "issued" || inv1.Token == "" || inv2.Token == inv1.Token ||
			inv1.Emailed != "logged" || len(inv1.ToolkitsOpened) != 5 || !strings.Contains(inv2.URL, "/invite?token=") {
			t.Errorf("invite twice: %+v then %+v", inv1, inv2)
		}
		sent := a.Outbox.To("asked@maison.test")
		if len(sent) != 2 || !strings.Contains(sent[0].Text, inv2.URL) ||
			!strings.Contains(sent[0].HTML, `href="`+html.EscapeString(inv2.URL)+`"`) {
			t.Errorf("letters %+v; want the second with the latest link", sent)
		}
		// The e-mail log, which operators read, keeps each letter with its
		// token cut to a hint; the first link died when the second was minted.
		letters, err := a.DB.Emails(context.Background(), "asked@maison.test")
		if err != nil || len(letters) != 2 {
			t.Fatalf("letters %+v %v", letters, err)
		}
		for i, tok := range []string{inv2.Token, inv1.Token} {
			if l := letters[i]; strings.Contains(l.Text+l.HTML+l.Subject, tok) || !strings.Contains(l.Text, "token="+tok[:8]+"…") {
				t.Errorf("logged letter %d keeps its token: %s", i, l.Text)
			}
		}
		res := a.Do(t, "GET", "/api/toolkit/invite/accept?token="+inv1.Token, apptest.Anonymous, nil)
		if res.Status == 200 {
			t.Errorf("the first invitation's link still opens after a second was minted: %s", res.Body)
		}
		a.SignUpAs(t, &apptest.User{Name: "Asked", Email: "asked@maison.test", Password: "correct horse battery"})
		want(t, a.Do(t, "POST", "/api/toolkit/admin/invite", adm, map[string]any{"email": "not an address"}), 400, "BAD_EMAIL")
	})
}

// CodesBodyT is the codes list as the tests read it.
type CodesBodyT struct{ Codes []invite.Code }

// TestAdminActionsActOnce: ten operators' presses at once, on each
// engine: retrying one cancelled develop makes one develop and holds its
// price once (the other nine name that retry, ALREADY_RETRIED); a later
// press does the same; cancelling one queued develop releases its hold
// once. The retry is the develop's member's.
func TestAdminActionsActOnce(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		member := a.SignUp(t, "linen")
		k := a.Key(t, member, "member")
		adm := op.Session()
		cancelled := submitJob(t, a, k, "upscale")
		want(t, a.Do(t, "POST", "/api/toolkit/jobs/"+cancelled+"/cancel", k, nil), 200, "")
		queued := submitJob(t, a, k, "upscale")
		before := houseBalance(t, a, member.HouseID)

		press := func(action, id string) []ops.Tally {
			var wg sync.WaitGroup
			tallies := make([]ops.Tally, 10)
			for i := range tallies {
				wg.Go(func() {
					res := a.Do(t, "POST", "/api/toolkit/admin/develops/action", adm, map[string]any{"action": action, "jobIds": []string{id}})
					if res.Status != 200 {
						t.Errorf("%s: %d %s", action, res.Status, res.Body)
					}
					res.JSON(t, &tallies[i])
				})
			}
			wg.Wait()
			return tallies
		}
		var retried, already int
		newJobs := map[string]bool{}
		for _, tl := range press("retry", cancelled) {
			r := tl.Results[0]
			switch {
			case r.Outcome == "retried" && tl.TokensHeld == 2:
				retried++
			case r.Outcome == "skipped" && *r.Reason == "ALREADY_RETRIED" && tl.TokensHeld == 0:
				already++
			default:
				t.Errorf("retry result %+v", tl)
			}
			newJobs[*r.NewJobID] = true
		}
		if retried != 1 || already != 9 || len(newJobs) != 1 {
			t.Errorf("retries: %d made, %d already, %d distinct new develops; want 1, 9, 1", retried, already, len(newJobs))
		}
		var develops int
		_ = a.DB.QueryTest(context.Background(), `SELECT COUNT(*) FROM jobs WHERE organization_id = '`+member.HouseID+`'`, &develops)
		if develops != 3 {
			t.Errorf("%d develops in the house; want 3 (the cancelled, the queued, one retry)", develops)
		}
		var cancels, settled int
		for _, tl := range press("cancel", queued) {
			switch r := tl.Results[0]; {
			case r.Outcome == "cancelled" && tl.TokensReleased == 2:
				cancels++
			case r.Outcome == "skipped" && *r.Reason == "ALREADY_SETTLED":
				settled++
			default:
				t.Errorf("cancel result %+v", tl)
			}
		}
		if cancels != 1 || settled != 9 {
			t.Errorf("cancels: %d done, %d already settled; want 1 and 9", cancels, settled)
		}
		after := houseBalance(t, a, member.HouseID)
		// One retry held 2, one cancel released 2: the house is where it was.
		if after.Held != before.Held || after.Balance != before.Balance {
			t.Errorf("balance %+v after; %+v before", after, before)
		}
		var retryUser string
		for id := range newJobs {
			_ = a.DB.QueryTest(context.Background(), `SELECT user_id FROM jobs WHERE id = '`+id+`'`, &retryUser)
		}
		if retryUser != member.ID {
			t.Errorf("the retry belongs to %q; want the develop's member %q", retryUser, member.ID)
		}
		if err := a.DB.CheckLedger(context.Background(), member.HouseID); err != nil {
			t.Error(err)
		}
	})
}
