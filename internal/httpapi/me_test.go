package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"studio/internal/account"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/blob"
)

// meWalk is the part of the route walk for a user's own data (walk_test.go).
var meWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /me":        static("/me", nil),
		"GET /me/export": static("/me/export", nil),
		// The walk would erase whoever it walks with: it confirms with an
		// address no one has (400); the tests below erase for real.
		"POST /me/delete": static("/me/delete", map[string]string{"email": "not-mine@studio.test"}),
	},
}

func testMe(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	guest := seated(t, a, owner.HouseID, auth.Viewer)
	c := inHouse(t, a, guest, owner.HouseID)
	var me account.Me
	if res := a.Do(t, "GET", "/me", c, nil); res.Status != 200 {
		t.Fatalf("me: %d %s", res.Status, res.Body)
	} else {
		res.JSON(t, &me)
	}
	if me.User.ID != guest.ID || me.User.Email != guest.Email || me.ActiveOrganizationID != owner.HouseID ||
		len(me.Organizations) != 2 || me.Organizations[0].ID != guest.HouseID || me.Organizations[1].Role != auth.Viewer {
		t.Errorf("me %+v", me)
	}
}

func testMeExport(t *testing.T, a *apptest.App) {
	owner := a.SignUp(t, "owner")
	u := seated(t, a, owner.HouseID, auth.Member)
	c := inHouse(t, a, u, owner.HouseID)
	key := a.KeyIn(t, c, "member")
	a.Do(t, "POST", "/api/account/avatar", c, avatarForm(t, pngOf(t, 8, 8)))
	a.Do(t, "POST", "/api/toolkit/org/seats/invite", owner.Session(), map[string]string{"email": "friend@maison.test"})
	a.Do(t, "POST", "/api/toolkit/invite/request", apptest.Anonymous, map[string]string{"name": "U", "email": u.Email, "house": "U & co"})
	a.Do(t, "GET", "/api/toolkit/invites/mine", c, nil)
	other := a.SignUp(t, "other")
	a.Do(t, "POST", "/api/toolkit/org/seats/invite", other.Session(), map[string]string{"email": u.Email, "role": "viewer"})
	// Personal memories, a corrected one with its history; the house's and
	// a colleague's personal memory are not the caller's data.
	first := writeMemory(t, a, c, map[string]any{"statement": "I frame at the knee.", "scope": "user", "memoryClass": "preference"}, 201)
	writeMemory(t, a, c, map[string]any{"statement": "I frame at mid-thigh.", "scope": "user", "memoryClass": "preference", "replacesMemoryId": first.ID}, 200)
	writeMemory(t, a, c, houseMemory("The house shoots on linen."), 201)
	writeMemory(t, a, owner.Session(), map[string]any{"statement": "The owner's own.", "scope": "user", "memoryClass": "fact"}, 201)

	res := a.Do(t, "GET", "/me/export", c, nil)
	if res.Status != 200 || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("export: %d %s", res.Status, res.Body)
	}
	var x account.Export
	res.JSON(t, &x)
	if x.Profile.ID != u.ID || x.Profile.Image == nil || len(x.Seats) != 2 || len(x.Sessions) < 2 || len(x.Keys) != 1 ||
		x.Keys[0].OrganizationID != owner.HouseID || len(x.Memories) != 2 || x.Application == nil || x.Application.House != "U & co" ||
		x.ReferralCode == nil || len(x.Invitations) != 1 || x.Invitations[0].Kind != "seat" || *x.Invitations[0].OrganizationID != other.HouseID ||
		len(x.Emails) < 2 {
		t.Errorf("export %s", res.Body)
	}
	if len(x.Memories) == 2 {
		m0, m1 := x.Memories[0], x.Memories[1]
		if m0.ID != first.ID || m0.Statement != "I frame at the knee." || m0.Status != "superseded" || m0.OrganizationID != owner.HouseID ||
			m1.Statement != "I frame at mid-thigh." || m1.Status != "active" || m1.Kind != "told" || m1.MemoryClass != "preference" {
			t.Errorf("exported memories = %+v", x.Memories)
		}
	}
	current := 0
	for _, s := range x.Sessions {
		if s.Current {
			current++
		}
	}
	if current != 1 {
		t.Errorf("%d sessions marked current; want 1", current)
	}
	// No secret of any kind: the key, the session tokens, the password hash.
	for _, secret := range []string{key.Key, key.Key[len("fis_sk_"):], c.Cookie, u.Cookie, "argon2", "password", "token_hash", "key_hash"} {
		if strings.Contains(string(res.Body), secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	if res := a.Do(t, "GET", "/me/export", key, nil); res.Status != 401 {
		t.Errorf("export by key: %d; want 401 (a key is not a person)", res.Status)
	}
}

func testMeDelete(t *testing.T, a *apptest.App) {
	ctx := context.Background()
	erase := func(c apptest.Cred, email string) apptest.Resp {
		return a.Do(t, "POST", "/me/delete", c, map[string]string{"email": email})
	}
	owner := a.SignUp(t, "owner")
	u := seated(t, a, owner.HouseID, auth.Member)
	c := inHouse(t, a, u, owner.HouseID)
	if res := erase(c, "someone@else.test"); res.Status != 400 || res.Code != "CONFIRM_EMAIL" {
		t.Errorf("unconfirmed: %d %s; want 400 CONFIRM_EMAIL", res.Status, res.Body)
	}
	// The owner of a house with another seat must hand it over first.
	res := erase(owner.Session(), owner.Email)
	if res.Status != 409 || res.Code != "SOLE_OWNER" || !strings.Contains(string(res.Body), owner.HouseID) {
		t.Errorf("sole owner: %d %s; want 409 SOLE_OWNER naming the house", res.Status, res.Body)
	}

	// U's work in the owner's house, and in U's own house; U's picture.
	key := a.KeyIn(t, c, "member")
	upload(t, a, key, pngOf(t, 24, 24))
	submitJob(t, a, key, "upscale")
	a.Do(t, "POST", "/posts", key, map[string]string{"title": "Note", "body": "Kept."})
	piece := upload(t, a, key, pngOf(t, 30, 30))
	shared := a.Do(t, "POST", "/api/share", key, map[string]any{"assetIds": []string{piece.ID}, "recipientLabel": "Buyer"})
	if shared.Status != 200 {
		t.Fatalf("share: %d %s", shared.Status, shared.Body)
	}
	shareToken := shared.Map(t)["token"].(string)
	ownKey := a.Key(t, u, "member")
	mine := upload(t, a, ownKey, pngOf(t, 20, 20))
	submitJob(t, a, ownKey, "upscale") // queued: its hold is pending when the house closes
	a.Do(t, "POST", "/api/account/avatar", c, avatarForm(t, pngOf(t, 8, 8)))
	a.Do(t, "GET", "/api/toolkit/invites/mine", c, nil)
	// The owner sends the house's billing letters to U.
	if res := a.Do(t, "PATCH", "/api/account/billing-email", owner.Session(), map[string]string{"email": u.Email}); res.Status != 200 {
		t.Fatalf("billing e-mail: %d %s", res.Status, res.Body)
	}
	before := assetCount(t, a, owner.Session())

	res = erase(c, strings.ToUpper(u.Email))
	if res.Status != 200 {
		t.Fatalf("erase: %d %s", res.Status, res.Body)
	}
	var out account.Erased
	res.JSON(t, &out)
	if !out.Deleted || out.UserID != u.ID || len(out.LeftOrganizations) != 1 || out.LeftOrganizations[0] != owner.HouseID ||
		len(out.ClosedOrganizations) != 1 || out.ClosedOrganizations[0] != u.HouseID {
		t.Errorf("erased %s", res.Body)
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("the cookie is not cleared: %q", res.Header.Get("Set-Cookie"))
	}
	// Sessions and keys are gone.
	for name, cred := range map[string]apptest.Cred{"session": c, "first session": u.Session(), "key": key, "own key": ownKey} {
		if res := a.Do(t, "GET", "/api/toolkit/assets", cred, nil); res.Status != http.StatusUnauthorized {
			t.Errorf("%s after the erasure: %d; want 401", name, res.Status)
		}
	}
	// The house's billing letters go to its owner again: U's address is not kept.
	var view struct{ Billing struct{ Email string } }
	a.Do(t, "GET", "/api/account", owner.Session(), nil).JSON(t, &view)
	if view.Billing.Email != owner.Email {
		t.Errorf("billing e-mail after the erasure %q; want the owner's %q", view.Billing.Email, owner.Email)
	}
	// The house keeps every frame and note; the attribution is null.
	if got := assetCount(t, a, owner.Session()); got != before {
		t.Errorf("the house has %d assets; want all %d", got, before)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM jobs WHERE organization_id = '` + owner.HouseID + `' AND user_id IS NULL`,
		`SELECT COUNT(*) FROM assets WHERE organization_id = '` + owner.HouseID + `' AND created_by_user_id IS NULL`,
		`SELECT COUNT(*) FROM posts WHERE organization_id = '` + owner.HouseID + `' AND author_id IS NULL`,
		`SELECT COUNT(*) FROM ledger_holds WHERE organization_id = '` + owner.HouseID + `' AND user_id IS NULL`,
		`SELECT COUNT(*) FROM shares WHERE organization_id = '` + owner.HouseID + `' AND created_by_user_id IS NULL`,
	} {
		var n int
		if err := a.DB.QueryTest(ctx, q, &n); err != nil || n == 0 {
			t.Errorf("%s: %d %v; want the house's rows kept with a null attribution", q, n, err)
		}
	}
	// The link U minted stays with the house and still takes its reviewer's marks.
	if res := a.Do(t, "GET", "/api/share", owner.Session(), nil); res.Status != 200 || !strings.Contains(string(res.Body), "Buyer") {
		t.Errorf("the house's links after the minter left: %d %s", res.Status, res.Body)
	}
	markFrame(t, a, shareToken, map[string]any{"i": 0, "verdict": "keep"})
	if res := a.Do(t, "POST", "/api/share/"+shareToken+"/finish", apptest.Anonymous, nil); res.Status != 200 {
		t.Errorf("finishing a link whose minter left: %d %s", res.Status, res.Body)
	}
	var posts []struct{ AuthorID *string }
	a.Do(t, "GET", "/posts", owner.Session(), nil).JSON(t, &posts)
	if len(posts) != 1 || posts[0].AuthorID != nil {
		t.Errorf("posts %+v; want the note with a null author", posts)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM users WHERE id = '` + u.ID + `'`,
		`SELECT COUNT(*) FROM seats WHERE user_id = '` + u.ID + `'`,
		`SELECT COUNT(*) FROM email_log WHERE to_addr = '` + u.Email + `'`,
		`SELECT COUNT(*) FROM invite_codes WHERE owner_user_id = '` + u.ID + `'`,
	} {
		var n int
		if err := a.DB.QueryTest(ctx, q, &n); err != nil || n != 0 {
			t.Errorf("%s: %d %v; want nothing left", q, n, err)
		}
	}
	// The personal house is closed: no row and no byte left.
	rows, err := a.DB.HouseRows(ctx, u.HouseID)
	if err != nil {
		t.Fatal(err)
	}
	for table, n := range rows {
		if n != 0 {
			t.Errorf("%s keeps %d rows of the closed house", table, n)
		}
	}
	for _, k := range []string{"assets/" + u.HouseID + "/" + mine.ID, account.AvatarKey(u.ID)} {
		if _, err := a.Blobs.Stat(ctx, k); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("%s after the erasure: %v; want removed", k, err)
		}
	}
	// The address is free again.
	again := a.SignUpAs(t, &apptest.User{Name: "Again", Email: u.Email, Password: "correct horse battery"})
	if again.ID == u.ID || again.HouseID == u.HouseID {
		t.Errorf("a new sign-up reuses the erased ids")
	}

	// A co-owner may leave: the house stays with the other owner.
	co := seated(t, a, owner.HouseID, auth.Owner)
	if res := erase(inHouse(t, a, co, owner.HouseID), co.Email); res.Status != 200 {
		t.Errorf("a co-owner erases: %d %s", res.Status, res.Body)
	}
	if got := seatOf(t, a, owner.HouseID, owner.ID); got != auth.Owner {
		t.Errorf("the owner after a co-owner left: %q", got)
	}
}

// TestMeAndMyData runs its tests on one app per engine: starting an app (and its
// migrations) is most of a small test's time under -race.
func TestMeAndMyData(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		for _, tc := range []struct {
			name string
			fn   func(*testing.T, *apptest.App)
		}{
			{"Me", testMe},
			{"MeExport", testMeExport},
			{"MeDelete", testMeDelete},
		} {
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, a) })
		}
	})
}
