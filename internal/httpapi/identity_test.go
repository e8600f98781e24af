package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
)

// identityWalk is the identity area's part of the route walk (walk_test.go).
var identityWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/auth/sign-up/email": func(t *testing.T, a *apptest.App, _ *apptest.User) request {
			return request{"/api/auth/sign-up/email", map[string]string{"name": "New", "email": "new-" + uuid.NewString() + "@studio.test", "password": "correct horse battery"}}
		},
		"POST /api/auth/sign-in/email": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/auth/sign-in/email", map[string]string{"email": u.Email, "password": u.Password}}
		},
		"POST /api/auth/sign-out":         static("/api/auth/sign-out", nil),
		"GET /api/auth/get-session":       static("/api/auth/get-session", nil),
		"GET /api/auth/organization/list": static("/api/auth/organization/list", nil),
		"POST /api/auth/organization/set-active": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/auth/organization/set-active", map[string]string{"organizationId": u.HouseID}}
		},
		"GET /api/auth/verify-email": func(t *testing.T, a *apptest.App, _ *apptest.User) request {
			fresh := a.SignUp(t, "verify")
			return request{"/api/auth/verify-email?token=" + verificationToken(t, a, fresh.Email), nil}
		},
	},
}

func TestSignUp(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		taken := a.SignUp(t, "taken")
		tests := []struct {
			name       string
			body       any
			wantStatus int
			wantCode   string
		}{
			{"ok", map[string]string{"name": "Ada", "email": "Ada@Example.com", "password": "long enough pw"}, 200, ""},
			{"short password", map[string]string{"name": "Ada", "email": "ada2@example.com", "password": "short"}, 400, "WEAK_PASSWORD"},
			{"long password", map[string]string{"name": "Ada", "email": "ada3@example.com", "password": strings.Repeat("x", 129)}, 400, "WEAK_PASSWORD"},
			{"bad email", map[string]string{"name": "Ada", "email": "not-an-address", "password": "long enough pw"}, 400, "BAD_EMAIL"},
			{"no name", map[string]string{"email": "ada4@example.com", "password": "long enough pw"}, 400, "BAD_BODY"},
			{"taken", map[string]string{"name": "Again", "email": strings.ToUpper(taken.Email), "password": "long enough pw"}, 409, "ALREADY_REGISTERED"},
			{"wrong type", map[string]any{"name": 7, "email": "ada5@example.com", "password": "long enough pw"}, 400, "BAD_BODY"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/auth/sign-up/email", apptest.Anonymous, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Errorf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}
		t.Run("creates a personal house with the founder as owner", func(t *testing.T) {
			u := a.SignUp(t, "founder")
			res := a.Do(t, "GET", "/api/auth/organization/list", u.Session(), nil)
			var body struct {
				Organizations []struct{ ID, Name, Role string }
			}
			res.JSON(t, &body)
			if len(body.Organizations) != 1 || body.Organizations[0].ID != u.HouseID || body.Organizations[0].Role != "owner" {
				t.Errorf("houses = %+v; want one owned personal house %s", body.Organizations, u.HouseID)
			}
		})
		t.Run("cookie attributes", func(t *testing.T) {
			res := a.Do(t, "POST", "/api/auth/sign-up/email", apptest.Anonymous, map[string]string{"name": "C", "email": "cookie@example.com", "password": "long enough pw"})
			c := res.Header.Get("Set-Cookie")
			for _, want := range []string{"studio_session=", "HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="} {
				if !strings.Contains(c, want) {
					t.Errorf("Set-Cookie %q lacks %q", c, want)
				}
			}
			if strings.Contains(c, "Secure") {
				t.Errorf("Set-Cookie %q is Secure on an http public URL", c)
			}
		})
	})
}

func TestSignUpInviteOnly(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) { c.Signup = "invite" })
	a.SignUp(t, "first") // the first account on an empty installation needs no invite
	res := a.Do(t, "POST", "/api/auth/sign-up/email", apptest.Anonymous, map[string]string{"name": "Second", "email": "second@example.com", "password": "long enough pw"})
	if res.Status != 403 || res.Code != "INVITE_REQUIRED" {
		t.Errorf("got %d %s; want 403 INVITE_REQUIRED", res.Status, res.Body)
	}
}

func TestSignIn(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "signin")
		ok := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": strings.ToUpper(u.Email), "password": u.Password})
		if ok.Status != 200 || !strings.Contains(ok.Header.Get("Set-Cookie"), "studio_session=") {
			t.Fatalf("sign-in: %d %s", ok.Status, ok.Body)
		}
		wrong := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": u.Email, "password": "wrong password!"})
		unknown := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": "nobody@example.com", "password": "wrong password!"})
		if wrong.Status != 401 || wrong.Code != "INVALID_CREDENTIALS" || string(wrong.Body) != string(unknown.Body) || unknown.Status != 401 {
			t.Errorf("wrong password %d %s vs unknown address %d %s; want the same 401", wrong.Status, wrong.Body, unknown.Status, unknown.Body)
		}
		missing := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": u.Email})
		if missing.Code != "BAD_BODY" {
			t.Errorf("no password: %d %s; want BAD_BODY", missing.Status, missing.Body)
		}
	})
}

func TestSignInRateLimit(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "limited")
		windowAhead()
		body := map[string]string{"email": u.Email, "password": "wrong password!"}
		for i := 0; i < 10; i++ {
			if res := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, body); res.Status != 401 {
				t.Fatalf("try %d: %d %s", i+1, res.Status, res.Body)
			}
		}
		res := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": u.Email, "password": u.Password})
		if res.Status != 429 || res.Code != "RATE_LIMITED" || res.Header.Get("Retry-After") == "" {
			t.Errorf("11th try: %d %s Retry-After=%q; want 429 with Retry-After", res.Status, res.Body, res.Header.Get("Retry-After"))
		}
	})
}

// TestSignInGuessBurst sends 200 wrong guesses at once: each try is counted
// before its password is checked, so at most 10 are checked (401) and the
// rest are refused (429), and the right password then waits too.
func TestSignInGuessBurst(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "burst")
		windowAhead()
		codes := signInBurst(t, a.URL, "127.0.0.1", u.Email, "wrong password!", 200)
		if codes[401] > account.SignInLimit || codes[401]+codes[429] != 200 {
			t.Fatalf("200 concurrent wrong guesses answered %v; want at most %d checked (401), the rest 429", codes, account.SignInLimit)
		}
		res := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": u.Email, "password": u.Password})
		if res.Status != 429 || res.Header.Get("Retry-After") == "" {
			t.Errorf("right password after the burst: %d %s; want 429 with Retry-After", res.Status, res.Body)
		}
	})
}

// TestSignInLimitDimensions: tries are counted per client address and per
// e-mail; successful sign-ins give their slot back.
func TestSignInLimitDimensions(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		victim, other, regular := a.SignUp(t, "victim"), a.SignUp(t, "other"), a.SignUp(t, "regular")
		// Twenty right passwords in a row from one address: none counts.
		for i := range 2 * account.SignInLimit {
			if codes := signInBurst(t, a.URL, "127.0.0.1", regular.Email, regular.Password, 1); codes[200] != 1 {
				t.Fatalf("successful sign-in %d was limited: %v", i+1, codes)
			}
		}
		// Ten wrong guesses at the victim from 127.0.0.2 use up that address and that e-mail.
		if codes := signInBurst(t, a.URL, "127.0.0.2", victim.Email, "wrong password!", account.SignInLimit); codes[401] != account.SignInLimit {
			t.Fatalf("the first %d wrong guesses: %v; want all 401", account.SignInLimit, codes)
		}
		for _, tt := range []struct {
			name, from, email, password string
			want                        int
		}{
			{"same e-mail from another address", "127.0.0.3", victim.Email, victim.Password, 429},
			{"another e-mail from the same address", "127.0.0.2", other.Email, other.Password, 429},
			{"another e-mail from another address", "127.0.0.3", other.Email, other.Password, 200},
		} {
			if codes := signInBurst(t, a.URL, tt.from, tt.email, tt.password, 1); codes[tt.want] != 1 {
				t.Errorf("%s: %v; want %d", tt.name, codes, tt.want)
			}
		}
	})
}

// signInBurst sends n sign-ins at once from the loopback address from and
// counts the answers by status.
func signInBurst(t *testing.T, base, from, email, password string, n int) map[int]int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{
		DialContext:     (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext,
		MaxConnsPerHost: 64,
	}}
	defer client.CloseIdleConnections()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := client.Post(base+"/api/auth/sign-in/email", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == 429 && res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			mu.Lock()
			codes[res.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return codes
}

func TestSessionLifecycle(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "session")
		res := a.Do(t, "GET", "/api/auth/get-session", u.Session(), nil)
		m := res.Map(t)
		sess, user := m["session"].(map[string]any), m["user"].(map[string]any)
		if res.Status != 200 || sess["activeOrganizationId"] != u.HouseID || user["email"] != u.Email || user["emailVerified"] != false {
			t.Fatalf("get-session: %d %s", res.Status, res.Body)
		}
		if exp, _ := sess["expiresAt"].(string); len(exp) != len("2026-11-22T07:20:49.123Z") || !strings.HasSuffix(exp, "Z") {
			t.Errorf("expiresAt %q is not RFC 3339 UTC with milliseconds", exp)
		}
		if res := a.Do(t, "GET", "/api/auth/get-session", apptest.Anonymous, nil); res.Status != 401 || res.Code != "UNAUTHORIZED" {
			t.Errorf("no session: %d %s", res.Status, res.Body)
		}
		out := a.Do(t, "POST", "/api/auth/sign-out", u.Session(), nil)
		if out.Status != 200 || !strings.Contains(out.Header.Get("Set-Cookie"), "Max-Age=0") {
			t.Fatalf("sign-out: %d %s %q", out.Status, out.Body, out.Header.Get("Set-Cookie"))
		}
		if res := a.Do(t, "GET", "/api/auth/get-session", u.Session(), nil); res.Status != 401 {
			t.Errorf("after sign-out: %d %s; want 401", res.Status, res.Body)
		}
	})
}

func TestSetActive(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, guest, stranger := a.SignUp(t, "owner"), a.SignUp(t, "guest"), a.SignUp(t, "stranger")
		if err := a.DB.AddSeat(context.Background(), owner.HouseID, guest.ID, auth.Member); err != nil {
			t.Fatal(err)
		}
		if res := a.Do(t, "POST", "/api/auth/organization/set-active", guest.Session(), map[string]string{"organizationId": stranger.HouseID}); res.Status != 404 || res.Code != "NOT_FOUND" {
			t.Errorf("house without a seat: %d %s; want 404", res.Status, res.Body)
		}
		res := a.Do(t, "POST", "/api/auth/organization/set-active", guest.Session(), map[string]string{"organizationId": owner.HouseID})
		if res.Status != 200 || res.Map(t)["activeOrganizationId"] != owner.HouseID {
			t.Fatalf("set-active: %d %s", res.Status, res.Body)
		}
		// The guest's post now lands in the owner's house.
		a.Do(t, "POST", "/posts", guest.Session(), map[string]string{"title": "In the owner's house", "body": "."})
		var posts []struct{ Title string }
		a.Do(t, "GET", "/posts", owner.Session(), nil).JSON(t, &posts)
		if len(posts) != 1 {
			t.Errorf("owner sees %d posts; want the guest's one", len(posts))
		}
		if res := a.Do(t, "POST", "/api/auth/organization/set-active", guest.Session(), map[string]string{}); res.Code != "BAD_BODY" {
			t.Errorf("no id: %d %s; want BAD_BODY", res.Status, res.Body)
		}
		list := a.Do(t, "GET", "/api/auth/organization/list", guest.Session(), nil)
		if n := len(list.Map(t)["organizations"].([]any)); n != 2 {
			t.Errorf("guest lists %d houses; want 2", n)
		}
	})
}

func TestVerifyEmail(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "verify")
		token := verificationToken(t, a, u.Email)
		for _, bad := range []string{"", "?token=", "?token=nope"} {
			if res := a.Do(t, "GET", "/api/auth/verify-email"+bad, apptest.Anonymous, nil); res.Status != 400 || res.Code != "BAD_TOKEN" {
				t.Errorf("%q: %d %s; want 400 BAD_TOKEN", bad, res.Status, res.Body)
			}
		}
		if res := a.Do(t, "GET", "/api/auth/verify-email?token="+token, apptest.Anonymous, nil); res.Status != 200 || res.Map(t)["emailVerified"] != true {
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "GET", "/api/auth/verify-email?token="+token, apptest.Anonymous, nil); res.Code != "BAD_TOKEN" {
			t.Errorf("second use: %d %s; want BAD_TOKEN", res.Status, res.Body)
		}
		user := a.Do(t, "GET", "/api/auth/get-session", u.Session(), nil).Map(t)["user"].(map[string]any)
		if user["emailVerified"] != true {
			t.Errorf("emailVerified = %v after verification", user["emailVerified"])
		}
	})
}

func TestUnknownAndMethod(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	u := a.SignUp(t, "u")
	res := a.Do(t, "PUT", "/posts", u.Session(), "{}")
	if res.Status != http.StatusMethodNotAllowed || res.Code != "METHOD_NOT_ALLOWED" || res.Header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT /posts: %d %s Allow=%q", res.Status, res.Body, res.Header.Get("Allow"))
	}
	res = a.Do(t, "GET", "/nowhere", apptest.Anonymous, nil)
	if res.Status != 404 || res.Code != "NOT_FOUND" {
		t.Errorf("GET /nowhere: %d %s", res.Status, res.Body)
	}
	req, _ := http.NewRequest("GET", a.URL+"/health", nil)
	req.Header.Set("X-Request-Id", "trace-123")
	if got := a.Send(t, req).Header.Get("X-Request-Id"); got != "trace-123" {
		t.Errorf("X-Request-Id = %q; want the client's echoed", got)
	}
	if got := a.Do(t, "GET", "/health", apptest.Anonymous, nil).Header.Get("X-Request-Id"); len(got) != 32 {
		t.Errorf("X-Request-Id = %q; want a generated id", got)
	}
}

func TestHealth(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		res := a.Do(t, "GET", "/health", apptest.Anonymous, nil)
		m := res.Map(t)
		if res.Status != 200 || m["status"] != "ok" || m["service"] != "studio" {
			t.Errorf("health: %d %s", res.Status, res.Body)
		}
		if _, ok := m["uptime"].(float64); !ok {
			t.Errorf("uptime = %v; want a number", m["uptime"])
		}
		// /ready bounds its checks at 800 ms, so on a starved machine (the
		// whole suite on two cores, under the race detector) one probe may
		// time out; a prober asks again, and so does the test, a few times.
		for try := 1; ; try++ {
			res := a.Do(t, "GET", "/ready", apptest.Anonymous, nil)
			if res.Status == 200 && res.Map(t)["ready"] == true {
				break
			}
			if try == 5 || res.Status != 503 {
				t.Fatalf("ready, probe %d: %d %s; want 200 {ready: true}", try, res.Status, res.Body)
			}
			time.Sleep(200 * time.Millisecond)
		}
		a.DB.Close()
		// Liveness touches nothing: the process still answers.
		if res := a.Do(t, "GET", "/health", apptest.Anonymous, nil); res.Status != 200 {
			t.Errorf("health with the database closed: %d %s; want 200", res.Status, res.Body)
		}
		res = a.Do(t, "GET", "/ready", apptest.Anonymous, nil)
		if res.Status != 503 || res.Code != "SERVICE_NOT_READY" || res.Map(t)["part"] != "database" {
			t.Errorf("ready with the database closed: %d %s; want 503 SERVICE_NOT_READY part database", res.Status, res.Body)
		}
	})
}

var tokenInMail = regexp.MustCompile(`token=([A-Za-z0-9_-]+)`)

// verificationToken reads the link of the newest letter to email as its
// recipient got it (the e-mail log keeps the token masked).
func verificationToken(t *testing.T, a *apptest.App, email string) string {
	t.Helper()
	mails := a.Outbox.To(email)
	if len(mails) == 0 {
		t.Fatalf("no mail to %s", email)
	}
	m := tokenInMail.FindStringSubmatch(mails[0].Text)
	if m == nil {
		t.Fatalf("no token in %q", mails[0].Text)
	}
	return m[1]
}

// windowAhead waits, when less than half of the sign-in limit's window is
// left, for the next one: the limit counts in fixed windows of a minute,
// and tries that straddled a window's end would rightly be admitted again.
func windowAhead() {
	w := account.SignInWindow.Milliseconds()
	if left := w - time.Now().UnixMilli()%w; left < w/2 {
		time.Sleep(time.Duration(left+100) * time.Millisecond)
	}
}
