package httpapi_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// seatsWalk is the seats area's part of the route walk (walk_test.go).
var seatsWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/org/seats": static("/api/toolkit/org/seats", nil),
		"POST /api/toolkit/org/seats/invite": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/org/seats/invite", map[string]string{"email": freshEmail("invitee"), "role": "viewer"}}
		},
		// Accepting needs the invitee's own session; the walk sends an id
		// no offer has (404), the seat tests accept for real.
		"POST /api/toolkit/org/seats/accept": func(*testing.T, *apptest.App, *apptest.User) request {
			return request{"/api/toolkit/org/seats/accept", map[string]string{"invitationId": uuid.NewString()}}
		},
		"POST /api/toolkit/org/seats/role": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			m := seated(t, a, u.HouseID, auth.Member)
			return request{"/api/toolkit/org/seats/role", map[string]string{"userId": m.ID, "role": "viewer"}}
		},
		"DELETE /api/toolkit/org/seats/{userId}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/org/seats/" + seated(t, a, u.HouseID, auth.Member).ID, nil}
		},
		// A transfer would hand the walk's house away: the walk names
		// someone without a seat there (404); the seat tests transfer.
		"POST /api/toolkit/org/transfer": func(*testing.T, *apptest.App, *apptest.User) request {
			return request{"/api/toolkit/org/transfer", map[string]string{"userId": uuid.NewString()}}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/org/seats/invite":     auth.Admin,
		"POST /api/toolkit/org/seats/role":       auth.Admin,
		"DELETE /api/toolkit/org/seats/{userId}": auth.Admin,
		"POST /api/toolkit/org/transfer":         auth.Owner,
	},
}

// freshEmail is an address no test used before.
func freshEmail(name string) string {
	return fmt.Sprintf("%s-%s@studio.test", name, uuid.NewString()[:13])
}

// seated signs up a fresh user and seats them in the house with role.
func seated(t testing.TB, a *apptest.App, house string, role auth.Role) *apptest.User {
	t.Helper()
	u := a.SignUp(t, string(role)+"-seat")
	if err := a.DB.AddSeat(context.Background(), house, u.ID, role); err != nil {
		t.Fatal(err)
	}
	return u
}

// inHouse signs u in afresh with the house active.
func inHouse(t *testing.T, a *apptest.App, u *apptest.User, house string) apptest.Cred {
	t.Helper()
	c := signIn(t, a, u)
	if res := a.Do(t, "POST", "/api/auth/organization/set-active", c, map[string]string{"organizationId": house}); res.Status != 200 {
		t.Fatalf("set-active: %d %s", res.Status, res.Body)
	}
	return c
}

// seatOf reads the role u holds in the house, "" for none.
func seatOf(t testing.TB, a *apptest.App, house, user string) auth.Role {
	t.Helper()
	var role string
	err := a.DB.QueryTest(context.Background(), `SELECT COALESCE((SELECT role FROM seats WHERE organization_id = '`+house+`' AND user_id = '`+user+`'), '')`, &role)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Role(role)
}

// offerFromLetter reads the invitation id from the latest seat letter to an address.
func offerFromLetter(t testing.TB, a *apptest.App, email string) string {
	t.Helper()
	letters, err := a.DB.Emails(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range letters {
		if l.Template != "seat-invite" {
			continue
		}
		if !strings.Contains(l.HTML, "Accept the invitation") || !strings.Contains(l.HTML, "invitation=") {
			t.Errorf("the seat offer's letter has no HTML part with its link: %q", l.HTML)
		}
		for _, word := range strings.Fields(l.Text) {
			if u, err := url.Parse(word); err == nil && u.Query().Get("invitation") != "" {
				return u.Query().Get("invitation")
			}
		}
	}
	t.Fatalf("no seat letter with an accept link to %s in %+v", email, letters)
	return ""
}

func testSeatInvite(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	admin := inHouse(t, a, seated(t, a, owner.HouseID, auth.Admin), owner.HouseID)
	member := inHouse(t, a, seated(t, a, owner.HouseID, auth.Member), owner.HouseID)
	viewer := seated(t, a, owner.HouseID, auth.Viewer)
	key := a.Key(t, owner, "member")
	tests := []struct {
		name       string
		cred       apptest.Cred
		body       any
		wantStatus int
		wantCode   string
	}{
		{"owner offers owner", owner.Session(), map[string]string{"email": freshEmail("co-owner"), "role": "owner"}, 200, ""},
		{"admin offers admin", admin, map[string]string{"email": freshEmail("admin2"), "role": "admin"}, 200, ""},
		{"role defaults to member", admin, map[string]string{"email": freshEmail("plain")}, 200, ""},
		{"admin offers owner", admin, map[string]string{"email": freshEmail("x"), "role": "owner"}, 403, "FORBIDDEN"},
		{"member may not invite", member, map[string]string{"email": freshEmail("x")}, 403, "FORBIDDEN"},
		{"a key may not invite", key, map[string]string{"email": freshEmail("x")}, 403, "FORBIDDEN"},
		{"bad address", owner.Session(), map[string]string{"email": "not an address"}, 400, "BAD_EMAIL"},
		{"bad role", owner.Session(), map[string]string{"email": freshEmail("x"), "role": "boss"}, 400, "BAD_ROLE"},
		{"already seated", owner.Session(), map[string]string{"email": viewer.Email}, 400, "ALREADY_MEMBER"},
		{"already seated, other case", owner.Session(), map[string]string{"email": strings.ToUpper(viewer.Email)}, 400, "ALREADY_MEMBER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", tt.cred, tt.body)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode {
				t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
			}
			if res.Status != 200 {
				return
			}
			m := res.Map(t)
			email := tt.body.(map[string]string)["email"]
			if m["organizationId"] != owner.HouseID || m["email"] != email || m["id"] == "" || m["expiresAt"] == "" {
				t.Errorf("answer %s", res.Body)
			}
			if got := offerFromLetter(t, a, email); got != m["id"] {
				t.Errorf("the letter carries %s; want the offer %s", got, m["id"])
			}
			if !strings.Contains(m["url"].(string), m["id"].(string)) {
				t.Errorf("url %s lacks the offer id", m["url"])
			}
		})
	}
}

func testSeatInviteWeeklyLimit(t *testing.T, a *apptest.App) {
	owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
	// Refusals before the count take no slot.
	for range 3 {
		a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": "nope"})
	}
	for i := range 20 {
		if res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": freshEmail("bulk")}); res.Status != 200 {
			t.Fatalf("invite %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": freshEmail("one-more")})
	if res.Status != 429 || res.Code != "RATE_LIMITED" || res.Header.Get("Retry-After") == "" {
		t.Fatalf("21st invite: %d %s (Retry-After %q); want 429 with Retry-After", res.Status, res.Body, res.Header.Get("Retry-After"))
	}
	if res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", other.Session(), map[string]string{"email": freshEmail("elsewhere")}); res.Status != 200 {
		t.Errorf("another house is not limited by this one: %d %s", res.Status, res.Body)
	}
}

func testSeatAccept(t *testing.T, a *apptest.App) {
	ctx := context.Background()
	owner := a.SignUp(t, "owner")
	invitee := a.SignUp(t, "invitee")
	stranger := a.SignUp(t, "stranger")
	offer := func(email, role string) string {
		res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": email, "role": role})
		if res.Status != 200 {
			t.Fatalf("invite: %d %s", res.Status, res.Body)
		}
		return res.Map(t)["id"].(string)
	}
	accept := func(c apptest.Cred, id string) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/org/seats/accept", c, map[string]string{"invitationId": id})
	}
	first := offer(invitee.Email, "viewer")
	second := offer(invitee.Email, "member") // supersedes the first
	if res := accept(invitee.Session(), first); res.Status != 404 || res.Code != "NOT_FOUND" {
		t.Errorf("a superseded offer: %d %s; want 404", res.Status, res.Body)
	}
	if res := accept(stranger.Session(), second); res.Status != 403 || res.Code != "EMAIL_MISMATCH" {
		t.Errorf("someone else's offer: %d %s; want 403 EMAIL_MISMATCH", res.Status, res.Body)
	}
	if res := accept(invitee.Session(), uuid.NewString()); res.Status != 404 {
		t.Errorf("an unknown offer: %d %s; want 404", res.Status, res.Body)
	}
	res := accept(invitee.Session(), second)
	if res.Status != 200 || res.Map(t)["role"] != "member" || res.Map(t)["organizationId"] != owner.HouseID {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	// The house is the session's active house now.
	var sess struct {
		Session struct{ ActiveOrganizationID string }
	}
	a.Do(t, "GET", "/api/auth/get-session", invitee.Session(), nil).JSON(t, &sess)
	if sess.Session.ActiveOrganizationID != owner.HouseID {
		t.Errorf("active house %s; want %s", sess.Session.ActiveOrganizationID, owner.HouseID)
	}
	if again := accept(invitee.Session(), second); again.Status != 200 || again.Map(t)["role"] != "member" {
		t.Errorf("accepting again: %d %s; want the same 200", again.Status, again.Body)
	}
	// A lapsed offer is 404.
	lapsing := offer(stranger.Email, "viewer")
	if _, err := a.DB.RawExec(ctx, `UPDATE seat_invitations SET expires_at = 1 WHERE id = ?`, lapsing); err != nil {
		t.Fatal(err)
	}
	if res := accept(stranger.Session(), lapsing); res.Status != 404 {
		t.Errorf("a lapsed offer: %d %s; want 404", res.Status, res.Body)
	}
	// A key accepts for the person who minted it; the key's house stays.
	fresh := offer(stranger.Email, "viewer")
	if res := accept(a.Key(t, stranger, "member"), fresh); res.Status != 200 {
		t.Errorf("accept with a key: %d %s", res.Status, res.Body)
	}
	if seatOf(t, a, owner.HouseID, stranger.ID) != auth.Viewer {
		t.Errorf("the stranger holds no viewer seat")
	}
}

func testSeatRole(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	admin := seated(t, a, owner.HouseID, auth.Admin)
	adminC := inHouse(t, a, admin, owner.HouseID)
	admin2 := seated(t, a, owner.HouseID, auth.Admin)
	member := seated(t, a, owner.HouseID, auth.Member)
	memberC := inHouse(t, a, member, owner.HouseID)
	viewer := seated(t, a, owner.HouseID, auth.Viewer)
	outsider := a.SignUp(t, "outsider")
	set := func(c apptest.Cred, user, role string) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/org/seats/role", c, map[string]string{"userId": user, "role": role})
	}
	tests := []struct {
		name       string
		cred       apptest.Cred
		user, role string
		wantStatus int
		wantCode   string
		wantRole   auth.Role
	}{
		{"admin promotes a viewer", adminC, viewer.ID, "member", 200, "", auth.Member},
		{"admin demotes a member", adminC, member.ID, "viewer", 200, "", auth.Viewer},
		{"admin may not touch an admin", adminC, admin2.ID, "viewer", 403, "FORBIDDEN", auth.Admin},
		{"admin may not touch the owner", adminC, owner.ID, "viewer", 403, "FORBIDDEN", auth.Owner},
		{"owner re-seats an admin", owner.Session(), admin2.ID, "member", 200, "", auth.Member},
		{"owner is not settable", owner.Session(), member.ID, "owner", 400, "BAD_ROLE", auth.Viewer},
		{"no such role", owner.Session(), member.ID, "boss", 400, "BAD_ROLE", auth.Viewer},
		{"the last owner stays", owner.Session(), owner.ID, "admin", 403, "FORBIDDEN", auth.Owner},
		{"a member may not", memberC, viewer.ID, "viewer", 403, "FORBIDDEN", auth.Member},
		{"not seated here", owner.Session(), outsider.ID, "viewer", 404, "NOT_FOUND", ""},
		{"never existed", owner.Session(), uuid.NewString(), "viewer", 404, "NOT_FOUND", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := set(tt.cred, tt.user, tt.role)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode {
				t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
			}
			if tt.wantRole != "" {
				if got := seatOf(t, a, owner.HouseID, tt.user); got != tt.wantRole {
					t.Errorf("seat is %s; want %s", got, tt.wantRole)
				}
			}
			if res.Status == 200 && (res.Map(t)["role"] != tt.role || res.Map(t)["userId"] != tt.user || res.Map(t)["email"] == "") {
				t.Errorf("answer %s", res.Body)
			}
		})
	}
	// A member key of someone re-seated as a viewer reads only.
	key := a.KeyIn(t, inHouse(t, a, viewer, owner.HouseID), "member") // viewer is a member by now
	if res := set(owner.Session(), viewer.ID, "viewer"); res.Status != 200 {
		t.Fatal(res.Status)
	}
	if res := a.Do(t, "POST", "/api/toolkit/jobs/submit", key, submitForm(t, "upscale", "image", pngOf(t, 32, 32))); res.Status != 403 {
		t.Errorf("a member key of a viewer seat submits: %d %s; want 403", res.Status, res.Body)
	}
}

func testSeatRemove(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	admin := seated(t, a, owner.HouseID, auth.Admin)
	adminC := inHouse(t, a, admin, owner.HouseID)
	admin2 := seated(t, a, owner.HouseID, auth.Admin)
	member := seated(t, a, owner.HouseID, auth.Member)
	memberC := inHouse(t, a, member, owner.HouseID)
	viewer := seated(t, a, owner.HouseID, auth.Viewer)
	viewerC := inHouse(t, a, viewer, owner.HouseID)
	remove := func(c apptest.Cred, user string) apptest.Resp {
		return a.Do(t, "DELETE", "/api/toolkit/org/seats/"+user, c, nil)
	}
	// The member's work and key in the house.
	memberKey := a.KeyIn(t, memberC, "member")
	upload(t, a, memberKey, pngOf(t, 40, 40))
	submitJob(t, a, memberKey, "upscale") // its input is an asset of the house too
	memberLook := lookID(t, a, memberKey)
	res := a.Do(t, "POST", "/api/toolkit/folders", memberKey, map[string]string{"name": "The member's edit"})
	if res.Status != 201 {
		t.Fatalf("collection: %d %s", res.Status, res.Body)
	}
	var folder struct{ Folder struct{ ID string } }
	res.JSON(t, &folder)
	before := assetCount(t, a, owner.Session())

	tests := []struct {
		name       string
		cred       apptest.Cred
		user       string
		wantStatus int
		wantCode   string
	}{
		{"a viewer may not remove others", viewerC, member.ID, 403, "FORBIDDEN"},
		{"an admin may not remove an admin", adminC, admin2.ID, 403, "FORBIDDEN"},
		{"the founder stays", adminC, owner.ID, 403, "FORBIDDEN"},
		{"the founder stays even for an owner", owner.Session(), owner.ID, 403, "FORBIDDEN"},
		{"not seated", owner.Session(), a.SignUp(t, "outsider").ID, 404, "NOT_FOUND"},
		{"a member removes themselves", memberC, member.ID, 200, ""},
		{"an admin removes a viewer", adminC, viewer.ID, 200, ""},
		{"the owner removes an admin", owner.Session(), admin2.ID, 200, ""},
		{"gone already", owner.Session(), admin2.ID, 404, "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := remove(tt.cred, tt.user)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode {
				t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
			}
			if res.Status == 200 && (res.Map(t)["workStaysWithHouse"] != true || res.Map(t)["userId"] != tt.user) {
				t.Errorf("answer %s", res.Body)
			}
		})
	}
	if got := assetCount(t, a, owner.Session()); got != before || before < 2 {
		t.Errorf("the house has %d assets after the member left; want all %d (upload and frame)", got, before)
	}
	// Their look and their collection stay with the house too.
	var look struct{ Look wireLook }
	if res := a.Do(t, "GET", "/api/toolkit/lookbook/looks/"+memberLook, owner.Session(), nil); res.Status != 200 {
		t.Errorf("the member's look after they left: %d %s; want 200", res.Status, res.Body)
	} else if res.JSON(t, &look); look.Look.Name != "Spring look" || len(look.Look.ItemAssetIDs) != 1 {
		t.Errorf("the member's look after they left = %+v", look.Look)
	}
	if res := a.Do(t, "GET", "/api/toolkit/folders", owner.Session(), nil); res.Status != 200 ||
		!strings.Contains(string(res.Body), folder.Folder.ID) || !strings.Contains(string(res.Body), "The member's edit") {
		t.Errorf("the member's collection after they left: %d %s", res.Status, res.Body)
	}
	// The member's key is revoked and their session moved home.
	if res := a.Do(t, "GET", "/api/toolkit/assets", memberKey, nil); res.Status != 401 {
		t.Errorf("a removed member's key: %d; want 401", res.Status)
	}
	var sess struct {
		Session struct{ ActiveOrganizationID string }
	}
	a.Do(t, "GET", "/api/auth/get-session", memberC, nil).JSON(t, &sess)
	if sess.Session.ActiveOrganizationID != member.HouseID {
		t.Errorf("the removed member's session is in %s; want their own house %s", sess.Session.ActiveOrganizationID, member.HouseID)
	}
	if res := a.Do(t, "GET", "/api/toolkit/assets", memberC, nil); res.Status != 200 || strings.Contains(string(res.Body), "upscale") {
		t.Errorf("the removed member still reads the house's frames: %d %s", res.Status, res.Body)
	}

	// After a transfer the founder is an admin: still not removable, and
	// the last owner cannot leave.
	if res := a.Do(t, "POST", "/api/toolkit/org/transfer", owner.Session(), map[string]string{"userId": admin.ID}); res.Status != 200 {
		t.Fatalf("transfer: %d %s", res.Status, res.Body)
	}
	if res := remove(adminC, owner.ID); res.Status != 403 {
		t.Errorf("removing the founder after a transfer: %d; want 403", res.Status)
	}
	if res := remove(adminC, admin.ID); res.Status != 403 || res.Code != "FORBIDDEN" {
		t.Errorf("the last owner leaving: %d %s; want 403", res.Status, res.Body)
	}
}

func testSeatTransfer(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	heir := seated(t, a, owner.HouseID, auth.Member)
	admin := seated(t, a, owner.HouseID, auth.Admin)
	adminC := inHouse(t, a, admin, owner.HouseID)
	transfer := func(c apptest.Cred, user string) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/org/transfer", c, map[string]string{"userId": user})
	}
	if res := transfer(adminC, heir.ID); res.Status != 403 || res.Code != "FORBIDDEN" {
		t.Errorf("an admin transfers: %d %s; want 403", res.Status, res.Body)
	}
	if res := transfer(owner.Session(), a.SignUp(t, "outsider").ID); res.Status != 404 {
		t.Errorf("to someone without a seat: %d %s; want 404", res.Status, res.Body)
	}
	if res := transfer(owner.Session(), owner.ID); res.Status != 400 || res.Code != "BAD_BODY" {
		t.Errorf("to yourself: %d %s; want 400 BAD_BODY", res.Status, res.Body)
	}
	res := transfer(owner.Session(), heir.ID)
	if res.Status != 200 || res.Map(t)["previousOwnerRole"] != "admin" || res.Map(t)["userId"] != heir.ID ||
		res.Map(t)["organizationId"] != owner.HouseID || res.Map(t)["email"] != heir.Email {
		t.Fatalf("transfer: %d %s", res.Status, res.Body)
	}
	if seatOf(t, a, owner.HouseID, heir.ID) != auth.Owner || seatOf(t, a, owner.HouseID, owner.ID) != auth.Admin {
		t.Errorf("after the transfer: heir %s, founder %s; want owner and admin",
			seatOf(t, a, owner.HouseID, heir.ID), seatOf(t, a, owner.HouseID, owner.ID))
	}
	// The founder, an admin now, can no longer transfer; the heir can.
	if res := transfer(owner.Session(), heir.ID); res.Status != 403 {
		t.Errorf("the former owner transfers again: %d; want 403", res.Status)
	}
	if res := transfer(inHouse(t, a, heir, owner.HouseID), owner.ID); res.Status != 200 {
		t.Errorf("the heir hands it back: %d %s", res.Status, res.Body)
	}
}

// TestSeats runs its tests on one app per engine: starting an app (and its
// migrations) is most of a small test's time under -race.
func TestSeats(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		for _, tc := range []struct {
			name string
			fn   func(*testing.T, *apptest.App)
		}{
			{"SeatInvite", testSeatInvite},
			{"SeatInviteWeeklyLimit", testSeatInviteWeeklyLimit},
			{"SeatAccept", testSeatAccept},
			{"SeatRole", testSeatRole},
			{"SeatRemove", testSeatRemove},
			{"SeatTransfer", testSeatTransfer},
			{"SeatList", testSeatList},
		} {
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, a) })
		}
	})
}
