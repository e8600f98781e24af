package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/invite"
	"studio/internal/ts"
	"studio/internal/urlguard"
)

// doorWalk is the door's part of the route walk (walk_test.go).
var doorWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/check-email": static("/api/toolkit/check-email", map[string]string{"email": "someone@studio.test"}),
		"GET /api/toolkit/invite/accept": func(t *testing.T, a *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/invite/accept?token=" + issue(t, a, freshEmail("guest")).Token, nil}
		},
		// Accepting needs the invitee's own session; the walk sends a token
		// no invitation has (404), the door tests accept for real.
		"POST /api/toolkit/invite/accept": static("/api/toolkit/invite/accept", map[string]string{"token": strings.Repeat("x", 43)}),
		"POST /api/toolkit/invite/request": func(*testing.T, *apptest.App, *apptest.User) request {
			return request{"/api/toolkit/invite/request", map[string]string{"name": "Ada", "email": freshEmail("applicant")}}
		},
		"POST /api/toolkit/invite/redeem": func(t *testing.T, a *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/invite/redeem", map[string]string{"code": mintCode(t, a, "WALK", 10, 100).Code, "email": freshEmail("guest")}}
		},
		"GET /api/toolkit/invites/mine":    static("/api/toolkit/invites/mine", nil),
		"POST /api/toolkit/invite/preview": static("/api/toolkit/invite/preview", map[string]any{"links": []string{"http://127.0.0.1:1/"}}),
	},
}

// issue issues an operator's invitation (issue 16 adds the admin route).
func issue(t testing.TB, a *apptest.App, email string) invite.Issued {
	t.Helper()
	iss, err := a.Door.Issue(context.Background(), email, "")
	if err != nil {
		t.Fatal(err)
	}
	return iss
}

// mintCode writes an operator's invite code (issue 16 adds the admin route).
func mintCode(t testing.TB, a *apptest.App, label string, grant, uses int64) invite.Code {
	t.Helper()
	c := invite.Code{ID: uuid.NewString(), Code: invite.NewCode(label), Label: label, GrantTokens: grant, MaxUses: uses,
		CreatedAt: ts.Of(time.Now())}
	if err := a.DB.InsertCode(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// windowStart is a clock that reads one second past the last whole hour
// when the test began, so the per-minute and per-hour windows the tests
// fill do not roll over under them.
func windowStart() func() time.Time {
	now := time.Now()
	offset := now.Truncate(time.Hour).Add(time.Second).Sub(now)
	return func() time.Time { return time.Now().Add(offset) }
}

func testCheckEmail(t *testing.T, a *apptest.App) {
	u := a.SignUp(t, "known")
	check := func(body any) map[string]any {
		res := a.Do(t, "POST", "/api/toolkit/check-email", apptest.Anonymous, body)
		if res.Status != 200 {
			t.Fatalf("check-email %v: %d %s; want 200 always", body, res.Status, res.Body)
		}
		return res.Map(t)
	}
	both := func(m map[string]any, want bool) bool { return m["exists"] == want && m["hasPassword"] == want }
	if m := check(map[string]string{"email": strings.ToUpper(u.Email)}); !both(m, true) {
		t.Errorf("a known address: %v", m)
	}
	for _, body := range []any{map[string]string{"email": "nobody@studio.test"}, map[string]string{}, "{", "[1,2]",
		`{"email": 7}`, map[string]string{"email": "not an address"}} {
		if m := check(body); !both(m, false) {
			t.Errorf("%v: %v; want both false", body, m)
		}
	}
	for range 3 {
		check(map[string]string{"email": u.Email})
	}
	// Ten a minute counted; the eleventh answers both false, even for a known address.
	if m := check(map[string]string{"email": u.Email}); !both(m, false) {
		t.Errorf("past the limit: %v; want both false", m)
	}
}

func testInvitationAccept(t *testing.T, a *apptest.App) {
	guest := a.SignUp(t, "guest")
	other := a.SignUp(t, "other")
	iss := issue(t, a, guest.Email)
	if iss.Status != "issued" || !strings.Contains(iss.URL, iss.Token) {
		t.Fatalf("issued %+v", iss)
	}
	look := func(token string) apptest.Resp {
		return a.Do(t, "GET", "/api/toolkit/invite/accept?token="+token, apptest.Anonymous, nil)
	}
	accept := func(c apptest.Cred, token string) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/invite/accept", c, map[string]string{"token": token})
	}
	if res := look(iss.Token); res.Status != 200 || res.Map(t)["email"] != guest.Email {
		t.Errorf("look: %d %s", res.Status, res.Body)
	}
	for name, tc := range map[string]struct {
		path string
		code string
	}{
		"missing":   {"/api/toolkit/invite/accept", "BAD_TOKEN"},
		"malformed": {"/api/toolkit/invite/accept?token=short", "BAD_TOKEN"},
		"unknown":   {"/api/toolkit/invite/accept?token=" + strings.Repeat("A", 43), "NOT_FOUND"},
	} {
		if res := a.Do(t, "GET", tc.path, apptest.Anonymous, nil); res.Code != tc.code {
			t.Errorf("look %s: %d %s; want %s", name, res.Status, res.Body, tc.code)
		}
	}
	if res := accept(guest.Session(), "short"); res.Status != 400 || res.Code != "BAD_TOKEN" {
		t.Errorf("accept a malformed token: %d %s", res.Status, res.Body)
	}
	if res := accept(guest.Session(), strings.Repeat("A", 43)); res.Status != 404 {
		t.Errorf("accept an unknown token: %d %s", res.Status, res.Body)
	}
	if res := accept(other.Session(), iss.Token); res.Status != 403 || res.Code != "EMAIL_MISMATCH" {
		t.Errorf("someone else accepts: %d %s; want 403", res.Status, res.Body)
	}
	if res := accept(guest.Session(), iss.Token); res.Status != 200 || res.Map(t)["ok"] != true || res.Map(t)["alreadyAccepted"] != false {
		t.Errorf("accept: %d %s", res.Status, res.Body)
	}
	if res := accept(a.Key(t, guest, "member"), iss.Token); res.Status != 200 || res.Map(t)["alreadyAccepted"] != true {
		t.Errorf("replay: %d %s; want a no-op 200", res.Status, res.Body)
	}
	if res := look(iss.Token); res.Status != 410 || res.Code != "INVITE_ACCEPTED" {
		t.Errorf("look once accepted: %d %s; want 410", res.Status, res.Body)
	}
	// Issuing again for an accepted address gives no new token.
	if again := issue(t, a, guest.Email); again.Status != "accepted" || again.Token != "" {
		t.Errorf("issue again: %+v", again)
	}
	// Issuing again for an address still invited rotates the token.
	first := issue(t, a, "later@studio.test")
	second := issue(t, a, "later@studio.test")
	if res := look(first.Token); res.Status != 404 {
		t.Errorf("the first link after a re-issue: %d; want 404", res.Status)
	}
	if res := look(second.Token); res.Status != 200 {
		t.Errorf("the new link: %d", res.Status)
	}
}

func testInviteRequest(t *testing.T, a *apptest.App) {
	req := func(body any) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/invite/request", apptest.Anonymous, body)
	}
	full := map[string]any{"name": "Ada", "email": "ada@maison.test", "house": "Maison Ada", "collection": "SS27",
		"intake": map[string]any{"audience": "women", "volume": "200 a month", "cost": []string{"studio", "models"}, "painText": "Slow."},
		"links":  []string{"https://maison.test/lookbook"}, "logoUrl": "https://maison.test/logo.png", "website": "maison.test"}
	if res := req(full); res.Status != 200 || res.Map(t)["status"] != "received" {
		t.Fatalf("request: %d %s", res.Status, res.Body)
	}
	full["email"] = "ADA@maison.test"
	if res := req(full); res.Status != 200 || res.Map(t)["status"] != "already_requested" {
		t.Errorf("duplicate: %d %s", res.Status, res.Body)
	}
	var status string
	if err := a.DB.QueryTest(context.Background(), `SELECT status FROM invite_requests WHERE email = 'ada@maison.test'`, &status); err != nil || status != "pending" {
		t.Errorf("applicant status %q %v; want pending", status, err)
	}
	for _, tc := range []struct {
		name string
		body any
		code string
	}{
		{"throwaway", map[string]string{"name": "X", "email": "x@mailinator.com"}, "DISPOSABLE_EMAIL"},
		{"throwaway subdomain", map[string]string{"name": "X", "email": "x@eu.yopmail.com"}, "DISPOSABLE_EMAIL"},
		{"bad address", map[string]string{"name": "X", "email": "x"}, "BAD_EMAIL"},
		{"no name", map[string]string{"email": "y@maison.test"}, "BAD_BODY"},
		{"bad link", map[string]any{"name": "X", "email": "y@maison.test", "links": []string{"javascript:alert(1)"}}, "BAD_BODY"},
		{"bad logo", map[string]any{"name": "X", "email": "y@maison.test", "logoUrl": "ftp://maison.test/x"}, "BAD_BODY"},
	} {
		if res := req(tc.body); res.Status != 400 || res.Code != tc.code {
			t.Errorf("%s: %d %s; want 400 %s", tc.name, res.Status, res.Body, tc.code)
		}
	}
	// Five an hour per client address: two counted above, three more, then 429.
	for i := range 3 {
		if res := req(map[string]string{"name": "N", "email": fmt.Sprintf("n%d@maison.test", i)}); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
	}
	if res := req(map[string]string{"name": "N", "email": "late@maison.test"}); res.Status != 429 || res.Header.Get("Retry-After") == "" {
		t.Errorf("the sixth request: %d %s; want 429 with Retry-After", res.Status, res.Body)
	}
}

func testInviteRedeem(t *testing.T, a *apptest.App) {
	ctx := context.Background()
	member := a.SignUp(t, "member")
	code := mintCode(t, a, "SPRING", 40, 2)
	redeem := func(code, email string) apptest.Resp {
		return a.Do(t, "POST", "/api/toolkit/invite/redeem", apptest.Anonymous, map[string]string{"code": code, "email": email})
	}
	used := func() (n int64) {
		if err := a.DB.QueryTest(ctx, `SELECT used_count FROM invite_codes WHERE id = '`+code.ID+`'`, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Typed loosely: lower case, O for 0, I and L for 1.
	loose := strings.ToLower(code.Code)
	loose = strings.NewReplacer("0", "o", "1", "l").Replace(loose[:7]) + loose[7:]
	res := redeem(" "+loose+" ", "guest@maison.test")
	if res.Status != 200 {
		t.Fatalf("redeem: %d %s", res.Status, res.Body)
	}
	if m := res.Map(t); m["status"] != "opened" || m["label"] != "SPRING" || m["grantTokens"] != 40.0 || m["looks"] != 40.0 ||
		m["frames"] != 10.0 || m["days"] != 14.0 {
		t.Errorf("opened %s", res.Body)
	}
	if used() != 1 {
		t.Errorf("used %d; want 1", used())
	}
	// An address already let in, or with an account, uses no use.
	for _, email := range []string{"guest@maison.test", member.Email} {
		if res := redeem(code.Code, email); res.Status != 200 {
			t.Errorf("again for %s: %d %s", email, res.Status, res.Body)
		}
	}
	if used() != 1 {
		t.Errorf("used %d after redeeming for addresses already in; want 1", used())
	}
	if res := redeem(code.Code, "second@maison.test"); res.Status != 200 {
		t.Fatalf("second: %d %s", res.Status, res.Body)
	}
	expired := mintCode(t, a, "OLD", 5, 5)
	if _, err := a.DB.RawExec(ctx, `UPDATE invite_codes SET expires_at = 1 WHERE id = ?`, expired.ID); err != nil {
		t.Fatal(err)
	}
	revoked := mintCode(t, a, "GONE", 5, 5)
	if _, err := a.DB.RawExec(ctx, `UPDATE invite_codes SET revoked_at = 1 WHERE id = ?`, revoked.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, code, email string
		status            int
		want              string
	}{
		{"spent", code.Code, "third@maison.test", 400, "CODE_SPENT"},
		{"expired", expired.Code, "x@maison.test", 400, "CODE_EXPIRED"},
		{"revoked", revoked.Code, "x@maison.test", 400, "CODE_REVOKED"},
		{"unknown", "SPRING-ZZZZZZ", "x@maison.test", 404, "NOT_FOUND"},
		{"not a code", "spring", "x@maison.test", 400, "BAD_CODE"},
		{"not a code either", "SPRING-12345U", "x@maison.test", 400, "BAD_CODE"},
		{"throwaway", code.Code, "x@guerrillamail.com", 400, "DISPOSABLE_EMAIL"},
		{"bad address", code.Code, "x@", 400, "BAD_EMAIL"},
	} {
		if res := redeem(tc.code, tc.email); res.Status != tc.status || res.Code != tc.want {
			t.Errorf("%s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.want)
		}
	}
	// Ten an hour per client address: eight counted above (four refusals
	// reached the code), so two more pass the limiter, then 429.
	fresh := mintCode(t, a, "MORE", 0, 100)
	var last apptest.Resp
	for i := range 4 {
		last = redeem(fresh.Code, fmt.Sprintf("r%d@maison.test", i))
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Errorf("past ten an hour: %d %s; want 429", last.Status, last.Body)
	}
}

func TestSignUpThroughTheDoor(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.Signup = "invite" })
		first := a.SignUp(t, "first") // the first account needs no door
		signUp := func(email string) apptest.Resp {
			return a.Do(t, "POST", "/api/auth/sign-up/email", apptest.Anonymous,
				map[string]string{"name": "Guest", "email": email, "password": "correct horse battery"})
		}
		if res := signUp("stranger@maison.test"); res.Status != 403 || res.Code != "INVITE_REQUIRED" {
			t.Errorf("no door: %d %s; want 403 INVITE_REQUIRED", res.Status, res.Body)
		}
		code := mintCode(t, a, "DOOR", 25, 3)
		if res := a.Do(t, "POST", "/api/toolkit/invite/redeem", apptest.Anonymous,
			map[string]string{"code": code.Code, "email": "coded@maison.test"}); res.Status != 200 {
			t.Fatalf("redeem: %d %s", res.Status, res.Body)
		}
		issue(t, a, "invited@maison.test")
		if res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", first.Session(), map[string]string{"email": "offered@maison.test"}); res.Status != 200 {
			t.Fatalf("seat offer: %d %s", res.Status, res.Body)
		}
		for email, grant := range map[string]int64{"coded@maison.test": 25, "invited@maison.test": 0, "offered@maison.test": 0} {
			u := a.SignUpAs(t, &apptest.User{Name: "Guest", Email: email, Password: "correct horse battery"})
			if b := houseBalance(t, a, u.HouseID); b.Grant != 60+grant {
				t.Errorf("%s starts with %d granted; want 60 + %d", email, b.Grant, grant)
			}
		}
		var joined int64
		if err := a.DB.QueryTest(context.Background(), `SELECT joined_count FROM invite_codes WHERE id = '`+code.ID+`'`, &joined); err != nil || joined != 1 {
			t.Errorf("joined %d %v; want 1", joined, err)
		}
	})
}

func testMyInvites(t *testing.T, a *apptest.App) {
	host := a.SignUpAs(t, &apptest.User{Name: "Céline Dion", Email: freshEmail("host"), Password: "correct horse battery"})
	res := a.Do(t, "GET", "/api/toolkit/invites/mine", host.Session(), nil)
	if res.Status != 200 {
		t.Fatalf("mine: %d %s", res.Status, res.Body)
	}
	var r invite.Referral
	res.JSON(t, &r)
	if !strings.HasPrefix(r.Code, "CLINE-") || len(r.Code) != len("CLINE-")+6 || r.MaxUses != 5 || r.BaseMaxUses != 5 ||
		r.InvitesLeft != 5 || r.GuestBonusTokens != 40 || r.GuestTokens != 100 || r.GuestLooks != 100 ||
		r.GuestValueUSD != 4.8 || r.GuestArrivalUSD != 12 || r.HostTokens != 100 || r.HostValueUSD != 12 || r.HoldDays != 14 ||
		len(r.Invitees) != 0 || !strings.HasSuffix(r.URL, "?code="+r.Code) {
		t.Errorf("referral %s", res.Body)
	}
	// The same code on every read, by key too; a guest shows up in it.
	// Redeemed from another client address: this one's hourly redemptions are spent.
	if _, err := a.Door.Redeem(context.Background(), "192.0.2.7", invite.RedeemRequest{Code: r.Code, Email: "friend@maison.test"}); err != nil {
		t.Fatal(err)
	}
	a.SignUpAs(t, &apptest.User{Name: "Friend", Email: "friend@maison.test", Password: "correct horse battery"})
	var again invite.Referral
	a.Do(t, "GET", "/api/toolkit/invites/mine", a.Key(t, host, "viewer"), nil).JSON(t, &again)
	if again.Code != r.Code || again.UsedCount != 1 || again.InvitesLeft != 4 || len(again.Invitees) != 1 ||
		again.Invitees[0].Email != "friend@maison.test" || !again.Invitees[0].SignedUp || again.Invitees[0].Subscribed {
		t.Errorf("after a guest joined: %+v", again)
	}
}

// previewSite serves the pages the preview tests read.
func previewSite(t *testing.T) (*httptest.Server, *urlguard.Guard) {
	t.Helper()
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>inside</title>")
	}))
	t.Cleanup(private.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Plain title</title>
			<meta property="og:title" content="Maison  Ada — SS27">
			<meta name="description" content="Tailoring, slow.">
			<meta property="og:image" content="/img/hero.jpg">
			<link rel="shortcut icon" href="/fav.png">
			</head><body><meta property="og:title" content="not read"></body></html>`)
	})
	mux.HandleFunc("/bare", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title> Just a title </title></head></html>`)
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/inside", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, private.URL+"/", http.StatusFound) })
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"title": "no"}`)
	})
	mux.HandleFunc("/missing", http.NotFound)
	// A long page: its title in the first bytes, an og:title (which would
	// win) past the 32 KiB prefix, then far more than the sockets hold.
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		n, err := fmt.Fprint(w, `<html><head><title>The top of a long page</title>`+"\n<!-- "+strings.Repeat("padding ", 5<<10)+
			` -->`+"\n"+`<meta property="og:title" content="Past the prefix">`)
		chunk := []byte(strings.Repeat("<p>more</p>", 6<<10))
		for err == nil && n < longPage {
			var k int
			k, err = w.Write(chunk)
			n += k
		}
		longRead <- n
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	g := invite.PreviewGuard(urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(site.Listener.Addr().String())))
	return site, g
}

// longPage is how many bytes the site's /long page would send: far more
// than loopback sockets buffer, so a reader that stops early leaves it unsent.
const longPage = 64 << 20

// longRead carries how many bytes of /long the site managed to write.
var longRead = make(chan int, 4)

func testInvitePreview(t *testing.T, a *apptest.App, site *httptest.Server) {
	// A long page: read only as far as its 32 KiB prefix.
	res := a.Do(t, "POST", "/api/toolkit/invite/preview", apptest.Anonymous, map[string]any{"links": []string{site.URL + "/long"}})
	var long invite.Cards
	res.JSON(t, &long)
	if res.Status != 200 || len(long.Cards) != 1 || !long.Cards[0].OK || long.Cards[0].Title != "The top of a long page" {
		t.Errorf("a long page: %d %s; want its title from the prefix, not the og:title past it", res.Status, res.Body)
	}
	select {
	case n := <-longRead:
		if n >= longPage {
			t.Errorf("the site wrote all %d bytes of the long page; the preview should stop reading at its prefix", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the long page is still being written 30 s after the preview answered: the reader did not hang up")
	}

	links := []string{site.URL + "/page", site.URL + "/bare", site.URL + "/hop", site.URL + "/inside", site.URL + "/json", site.URL + "/missing"}
	res = a.Do(t, "POST", "/api/toolkit/invite/preview", apptest.Anonymous, map[string]any{"links": links})
	if res.Status != 200 {
		t.Fatalf("preview: %d %s", res.Status, res.Body)
	}
	var got invite.Cards
	res.JSON(t, &got)
	page := invite.Card{Link: links[0], OK: true, Host: "127.0.0.1", Title: "Maison Ada — SS27", Description: "Tailoring, slow.",
		ImageURL: site.URL + "/img/hero.jpg", IconURL: site.URL + "/fav.png"}
	want := []invite.Card{
		page,
		{Link: links[1], OK: true, Host: "127.0.0.1", Title: "Just a title", IconURL: site.URL + "/favicon.ico"},
		{Link: links[2], OK: true, Host: page.Host, Title: page.Title, Description: page.Description, ImageURL: page.ImageURL, IconURL: page.IconURL},
		{Link: links[3], Host: "127.0.0.1"}, // the redirect into private space is not followed
		{Link: links[4], Host: "127.0.0.1"},
		{Link: links[5], Host: "127.0.0.1"},
	}
	if len(got.Cards) != len(want) {
		t.Fatalf("cards %s", res.Body)
	}
	for i := range want {
		if got.Cards[i] != want[i] {
			t.Errorf("card %d: %+v; want %+v", i, got.Cards[i], want[i])
		}
	}
	// Addresses the guard refuses are unreadable, never fetched.
	res = a.Do(t, "POST", "/api/toolkit/invite/preview", apptest.Anonymous,
		map[string]any{"links": []string{"http://10.0.0.1/", "not a link", "http://localhost:1/x"}})
	res.JSON(t, &got)
	for _, c := range got.Cards {
		if c.OK {
			t.Errorf("refused link read: %+v", c)
		}
	}
	for _, body := range []any{map[string]any{"links": []string{}}, map[string]any{"links": make([]string, 7)}, map[string]any{"links": []string{""}}} {
		if res := a.Do(t, "POST", "/api/toolkit/invite/preview", apptest.Anonymous, body); res.Status != 400 || res.Code != "BAD_BODY" {
			t.Errorf("%v: %d %s; want 400", body, res.Status, res.Body)
		}
	}
	// Twenty a minute per client address (three counted above).
	var last apptest.Resp
	for range 18 {
		last = a.Do(t, "POST", "/api/toolkit/invite/preview", apptest.Anonymous, map[string]any{"links": []string{"not a link"}})
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Errorf("past twenty a minute: %d %s; want 429", last.Status, last.Body)
	}
}

// TestDoor runs the door's tests on one app per engine (starting an app is
// most of a small test's time under -race), with a clock one second past
// the hour, so the per-minute and per-hour windows they fill stay put, and
// a URL guard that reaches the preview tests' local site.
func TestDoor(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		site, guard := previewSite(t)
		a := apptest.NewWith(t, e, func(o *app.Options) { o.PreviewGuard, o.Now = guard, windowStart() })
		for _, tc := range []struct {
			name string
			fn   func(*testing.T, *apptest.App, *httptest.Server)
		}{
			{"CheckEmail", func(t *testing.T, a *apptest.App, _ *httptest.Server) { testCheckEmail(t, a) }},
			{"InvitationAccept", func(t *testing.T, a *apptest.App, _ *httptest.Server) { testInvitationAccept(t, a) }},
			{"InviteRequest", func(t *testing.T, a *apptest.App, _ *httptest.Server) { testInviteRequest(t, a) }},
			{"InviteRedeem", func(t *testing.T, a *apptest.App, _ *httptest.Server) { testInviteRedeem(t, a) }},
			{"MyInvites", func(t *testing.T, a *apptest.App, _ *httptest.Server) { testMyInvites(t, a) }},
			{"InvitePreview", testInvitePreview},
		} {
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, a, site) })
		}
	})
}
