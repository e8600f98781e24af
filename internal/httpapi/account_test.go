package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"strings"
	"testing"
	"time"

	"studio/internal/account"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/blob"
	"studio/internal/ledger"
)

// accountWalk is the account area's part of the route walk (walk_test.go).
var accountWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/account": static("/api/account?days=7", nil),
		"POST /api/account/avatar": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
			return request{"/api/account/avatar", avatarForm(t, pngOf(t, 16, 16))}
		},
		"DELETE /api/account/avatar": static("/api/account/avatar", nil),
		"GET /api/account/avatar/{userId}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			if res := a.Do(t, "POST", "/api/account/avatar", u.Session(), avatarForm(t, pngOf(t, 16, 16))); res.Status != 200 {
				t.Fatalf("avatar: %d %s", res.Status, res.Body)
			}
			return request{"/api/account/avatar/" + u.ID, nil}
		},
	},
}

func avatarForm(t testing.TB, data []byte) apptest.Form {
	return apptest.Multipart(t, apptest.Part{Name: "file", Filename: "me.png", Data: data})
}

// accountView reads GET /api/account.
func accountView(t testing.TB, a *apptest.App, c apptest.Cred, query string) account.View {
	t.Helper()
	res := a.Do(t, "GET", "/api/account"+query, c, nil)
	if res.Status != 200 {
		t.Fatalf("account: %d %s", res.Status, res.Body)
	}
	var v account.View
	res.JSON(t, &v)
	return v
}

func testAccountView(t *testing.T, a *apptest.App) {
	ctx := context.Background()
	owner := a.SignUp(t, "owner")
	member := seated(t, a, owner.HouseID, auth.Member)
	memberC := inHouse(t, a, member, owner.HouseID)
	k := a.Key(t, owner, "member")
	// One develop settles through the worker (its hold names its tool);
	// the others are holds settled directly, as a lane's would be.
	submitJob(t, a, k, "upscale")
	develop(t, a)
	settle := func(workflow string, tokens int64) string {
		h := ledger.NewHold("", tokens)
		h.Workflow = workflow
		if err := a.DB.TakeHold(ctx, owner.HouseID, h); err != nil {
			t.Fatal(err)
		}
		if err := a.DB.PostHold(ctx, owner.HouseID, h.ID); err != nil {
			t.Fatal(err)
		}
		return h.ID
	}
	settle("upscale", 2)
	settle("iron", 3)
	// A top-up of a catalog pack.
	if err := a.DB.AddCredit(ctx, owner.HouseID, ledger.NewTopUp(100, "pay_123")); err != nil {
		t.Fatal(err)
	}
	// An old settled hold: in the 90-day window only.
	old := settle("upscale", 2)
	forty := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
	if _, err := a.DB.RawExec(ctx, `UPDATE ledger_holds SET resolved_at = ? WHERE id = ?`, forty, old); err != nil {
		t.Fatal(err)
	}

	v := accountView(t, a, owner.Session(), "?days=7")
	if v.Profile.ID != owner.ID || v.Profile.Email != owner.Email || v.Profile.Image != nil || v.Profile.JoinedAt.IsZero() {
		t.Errorf("profile %+v", v.Profile)
	}
	if v.Plan.Tier != "trial" || v.Plan.Status != "trialing" || v.Plan.Name != "Trial" || v.Plan.MonthlyTokens != 60 || v.Plan.RenewsAt == nil {
		t.Errorf("plan %+v", v.Plan)
	}
	spent := int64(2+2+3) + 2
	if v.Tokens.Balance != 60+100-spent || v.Tokens.Grant != 60-spent || v.Tokens.Topup != 100 || v.Tokens.Held != 0 || v.Tokens.Days != 7 {
		t.Errorf("tokens %+v", v.Tokens)
	}
	byTool := map[string]account.WorkflowSpend{}
	for _, w := range v.Tokens.ByWorkflow {
		byTool[w.Workflow] = w
	}
	if byTool["upscale"].Tokens != 4 || byTool["upscale"].Runs != 2 || byTool["iron"].Tokens != 3 || byTool["iron"].Runs != 1 ||
		len(v.Tokens.ByWorkflow) != 2 || byTool["upscale"].LastAt.IsZero() {
		t.Errorf("7 days by workflow %+v", v.Tokens.ByWorkflow)
	}
	if v90 := accountView(t, a, owner.Session(), "?days=90"); len(v90.Tokens.ByWorkflow) != 2 || v90.Tokens.ByWorkflow[0].Runs != 3 ||
		v90.Tokens.ByWorkflow[0].Tokens != 6 || v90.Tokens.Days != 90 {
		t.Errorf("90 days by workflow %+v", v90.Tokens.ByWorkflow)
	}
	if res := a.Do(t, "GET", "/api/account?days=7&days=90", owner.Session(), nil); res.Status != 400 || res.Code != "BAD_DAYS" {
		t.Errorf("days given twice: %d %s; want 400 BAD_DAYS", res.Status, res.Body)
	}
	for _, q := range []string{"", "?days=31", "?days=abc"} {
		if v := accountView(t, a, owner.Session(), q); v.Tokens.Days != 30 || len(v.Tokens.ByWorkflow) != 2 {
			t.Errorf("%q: days %d; want the 30-day window", q, v.Tokens.Days)
		}
	}
	if len(v.Invoices) != 2 || v.Invoices[0].Kind != "topup" || v.Invoices[0].AmountUSD == nil || *v.Invoices[0].AmountUSD != 12 ||
		v.Invoices[0].Reference == nil || *v.Invoices[0].Reference != "pay_123" || v.Invoices[0].Tokens != 100 ||
		v.Invoices[1].Kind != "signup_grant" || v.Invoices[1].Tokens != 60 || *v.Invoices[1].AmountUSD != 0 {
		t.Errorf("invoices %+v", v.Invoices)
	}
	if !v.Billing.CanManage || v.Billing.CardOnFile || v.Billing.Email != owner.Email {
		t.Errorf("owner's billing %+v", v.Billing)
	}
	// A member sees the house's account with their own profile and cannot manage money.
	mv := accountView(t, a, memberC, "")
	if mv.Profile.ID != member.ID || mv.Billing.CanManage || mv.Billing.Email != owner.Email || mv.Tokens.Balance != v.Tokens.Balance {
		t.Errorf("member's view %+v", mv)
	}
	// A key shows the house and the person who minted it.
	if kv := accountView(t, a, k, ""); kv.Profile.ID != owner.ID || kv.Billing.CanManage {
		t.Errorf("key's view: profile %s canManage %v", kv.Profile.ID, kv.Billing.CanManage)
	}
}

func testAvatar(t *testing.T, a *apptest.App) {
	ctx := context.Background()
	owner := a.SignUp(t, "owner")
	mate := seated(t, a, owner.HouseID, auth.Viewer)
	mateC := inHouse(t, a, mate, owner.HouseID)
	stranger := a.SignUp(t, "stranger")
	set := func(c apptest.Cred, data []byte) apptest.Resp {
		return a.Do(t, "POST", "/api/account/avatar", c, avatarForm(t, data))
	}
	read := func(c apptest.Cred, user string) apptest.Resp {
		return a.Do(t, "GET", "/api/account/avatar/"+user, c, nil)
	}
	if res := read(owner.Session(), owner.ID); res.Status != 404 {
		t.Errorf("no picture yet: %d; want 404", res.Status)
	}
	first := pngOf(t, 48, 48)
	res := set(owner.Session(), first)
	if res.Status != 200 {
		t.Fatalf("set: %d %s", res.Status, res.Body)
	}
	img1 := res.Map(t)["image"].(string)
	if !strings.HasPrefix(img1, a.URL+"/api/account/avatar/"+owner.ID+"?v=") {
		t.Errorf("image %s", img1)
	}
	for name, c := range map[string]apptest.Cred{"self": owner.Session(), "a seat-mate": mateC} {
		if res := read(c, owner.ID); res.Status != 200 || !bytes.Equal(res.Body, first) || res.Header.Get("Content-Type") != "image/png" {
			t.Errorf("%s reads: %d %s", name, res.Status, res.Header.Get("Content-Type"))
		}
	}
	if res := read(stranger.Session(), owner.ID); res.Status != 404 {
		t.Errorf("a stranger reads: %d; want 404", res.Status)
	}
	// The profile carries the same URL; new bytes change the stamp.
	var sess struct{ User struct{ Image *string } }
	a.Do(t, "GET", "/api/auth/get-session", owner.Session(), nil).JSON(t, &sess)
	if sess.User.Image == nil || *sess.User.Image != img1 {
		t.Errorf("session user image %v; want %s", sess.User.Image, img1)
	}
	res = set(a.Key(t, owner, "viewer"), webp1x1) // a key sets its minter's picture
	if res.Status != 200 || res.Map(t)["image"] == img1 {
		t.Fatalf("new bytes: %d %s; want a new stamp", res.Status, res.Body)
	}
	if v := accountView(t, a, owner.Session(), ""); v.Profile.Image == nil || *v.Profile.Image != res.Map(t)["image"] {
		t.Errorf("account profile image %v", v.Profile.Image)
	}
	if res := read(mateC, owner.ID); res.Header.Get("Content-Type") != "image/webp" || !bytes.Equal(res.Body, webp1x1) {
		t.Errorf("after the change: %s", res.Header.Get("Content-Type"))
	}
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, image.NewPaletted(image.Rect(0, 0, 8, 8), []color.Color{color.Black}), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		body   apptest.Form
		status int
		code   string
	}{
		{"not square", avatarForm(t, pngOf(t, 40, 30)), 400, "NOT_SQUARE"},
		{"a gif", avatarForm(t, gifBuf.Bytes()), 400, "BAD_FORM"},
		{"not an image", avatarForm(t, []byte("hello there")), 400, "BAD_FORM"},
		{"a broken png", avatarForm(t, pngOf(t, 40, 40)[:60]), 400, "BAD_FORM"},
		{"empty", avatarForm(t, nil), 400, "EMPTY_IMAGE"},
		{"no file", apptest.Multipart(t, apptest.Part{Name: "note", Value: "hi"}), 400, "NO_IMAGE"},
		{"not a form", apptest.Form{Body: []byte("{}"), ContentType: "application/json"}, 400, "BAD_FORM"},
		{"over 512 KB", avatarForm(t, noisePNG(t, 420, 420)), 413, "AVATAR_TOO_LARGE"},
		{"over 2048 pixels a side", avatarForm(t, pngOf(t, 2050, 2050)), 413, "AVATAR_TOO_LARGE"},
	} {
		if res := a.Do(t, "POST", "/api/account/avatar", owner.Session(), tc.body); res.Status != tc.status || res.Code != tc.code {
			t.Errorf("%s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
		}
	}
	// Delete: the URL and the bytes go.
	res = a.Do(t, "DELETE", "/api/account/avatar", owner.Session(), nil)
	if res.Status != 200 || !strings.Contains(string(res.Body), `"image":null`) {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if _, err := a.Blobs.Stat(ctx, account.AvatarKey(owner.ID)); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("the bytes after delete: %v; want gone", err)
	}
	if res := read(owner.Session(), owner.ID); res.Status != 404 {
		t.Errorf("read after delete: %d; want 404", res.Status)
	}
	if v := accountView(t, a, owner.Session(), ""); v.Profile.Image != nil {
		t.Errorf("profile image after delete: %v", *v.Profile.Image)
	}
}

// TestAccount runs its tests on one app per engine: starting an app (and its
// migrations) is most of a small test's time under -race.
func TestAccount(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		for _, tc := range []struct {
			name string
			fn   func(*testing.T, *apptest.App)
		}{
			{"AccountView", testAccountView},
			{"Avatar", testAvatar},
		} {
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, a) })
		}
	})
}
