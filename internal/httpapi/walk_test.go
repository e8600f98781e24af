package httpapi_test

// The tests in this file walk the whole routes table: every route must have
// a valid sample request, every credential is tried on every route (the
// role matrix), every id-bearing route answers one identical 404 for a
// foreign, a deleted and a never-existing id (the cross-house sweep), and
// every JSON route refuses malformed and oversized bodies the same way.
// A new route joins by adding a line to samples (and to minRole when a
// viewer may not call it).

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/httpapi"
)

// request is a valid request to one route, made for the house of owner.
type request struct {
	path string
	body any
}

type sampleFunc func(t *testing.T, a *apptest.App, owner *apptest.User) request

func static(path string, body any) sampleFunc {
	return func(*testing.T, *apptest.App, *apptest.User) request { return request{path, body} }
}

// samples holds a valid request for every route of the table.
var samples = map[string]sampleFunc{
	"GET /health":       static("/health", nil),
	"GET /openapi.json": static("/openapi.json", nil),
	"GET /docs":         static("/docs", nil),
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
	"GET /api/keys":  static("/api/keys", nil),
	"POST /api/keys": static("/api/keys", map[string]string{"name": "ci", "role": "viewer"}),
	"DELETE /api/keys/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/keys/" + keyID(t, a, u), nil}
	},
	"GET /posts":  static("/posts", nil),
	"POST /posts": static("/posts", map[string]string{"title": "Hello", "body": "World"}),
	"GET /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/posts/" + postID(t, a, u), nil}
	},
	"PATCH /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/posts/" + postID(t, a, u), map[string]string{"title": "Changed"}}
	},
	"DELETE /posts/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/posts/" + postID(t, a, u), nil}
	},
}

// minRole is the weakest role a route admits, where it is above viewer.
var minRole = map[string]auth.Role{
	"POST /api/keys":        auth.Member,
	"DELETE /api/keys/{id}": auth.Member,
	"POST /posts":           auth.Member,
	"PATCH /posts/{id}":     auth.Member,
	"DELETE /posts/{id}":    auth.Member,
}

// repeatable lists the DELETE routes whose repeat is a success (SPEC:
// revoking a key twice is idempotent), so the sweep's deleted case skips them.
var repeatable = map[string]bool{"DELETE /api/keys/{id}": true}

var tokenInMail = regexp.MustCompile(`token=([A-Za-z0-9_-]+)`)

func verificationToken(t *testing.T, a *apptest.App, email string) string {
	t.Helper()
	mails, err := a.DB.Emails(context.Background(), email)
	if err != nil || len(mails) == 0 {
		t.Fatalf("no mail to %s: %v", email, err)
	}
	m := tokenInMail.FindStringSubmatch(mails[0].Text)
	if m == nil {
		t.Fatalf("no token in %q", mails[0].Text)
	}
	return m[1]
}

func keyID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/keys", u.Session(), map[string]string{"name": "fixture"})
	var k struct{ ID string }
	res.JSON(t, &k)
	return k.ID
}

func postID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/posts", u.Session(), map[string]string{"title": "Fixture", "body": "text"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create post: %d %s", res.Status, res.Body)
	}
	var p struct{ ID string }
	res.JSON(t, &p)
	return p.ID
}

func TestEveryRouteHasASample(t *testing.T) {
	for _, rt := range routes() {
		if samples[rt.Pattern()] == nil {
			t.Errorf("route %s has no sample request in walk_test.go", rt.Pattern())
		}
	}
}

// signIn returns a fresh session cookie for u.
func signIn(t *testing.T, a *apptest.App, u *apptest.User) apptest.Cred {
	t.Helper()
	res := a.Do(t, "POST", "/api/auth/sign-in/email", apptest.Anonymous, map[string]string{"email": u.Email, "password": u.Password})
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == httpapi.SessionCookie {
			return apptest.Cred{Cookie: c.Value}
		}
	}
	t.Fatalf("sign-in %s: %d %s", u.Email, res.Status, res.Body)
	return apptest.Cred{}
}

// TestRoleMatrix tries every credential on every route.
func TestRoleMatrix(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		viewer := a.SignUp(t, "viewer")
		if err := a.DB.AddSeat(context.Background(), owner.HouseID, viewer.ID, auth.Viewer); err != nil {
			t.Fatal(err)
		}
		admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		revoked := a.Key(t, owner, "member")
		revokeByKey(t, a, owner, revoked.Key)

		type cred struct {
			name  string
			make  func(t *testing.T) apptest.Cred
			class func(httpapi.Class) bool // classes the credential passes
			role  auth.Role                // role inside the owner's house
		}
		session := func(u *apptest.User, switchTo string) func(t *testing.T) apptest.Cred {
			return func(t *testing.T) apptest.Cred {
				c := signIn(t, a, u)
				if switchTo != "" {
					res := a.Do(t, "POST", "/api/auth/organization/set-active", c, map[string]string{"organizationId": switchTo})
					if res.Status != 200 {
						t.Fatalf("set-active: %d %s", res.Status, res.Body)
					}
				}
				return c
			}
		}
		fixed := func(c apptest.Cred) func(t *testing.T) apptest.Cred {
			return func(*testing.T) apptest.Cred { return c }
		}
		memberKey, viewerKey := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		anyAuth := func(c httpapi.Class) bool { return c == httpapi.Public || c == httpapi.SharedSecret }
		creds := []cred{
			{"anonymous", fixed(apptest.Anonymous), anyAuth, ""},
			{"garbage bearer", fixed(apptest.Cred{Key: "fis_sk_nope"}), anyAuth, ""},
			{"revoked key", fixed(revoked), anyAuth, ""},
			{"member key", fixed(memberKey), func(c httpapi.Class) bool { return anyAuth(c) || c == httpapi.KeyOrSession }, auth.Member},
			{"viewer key", fixed(viewerKey), func(c httpapi.Class) bool { return anyAuth(c) || c == httpapi.KeyOrSession }, auth.Viewer},
			{"owner session", session(owner, ""), func(c httpapi.Class) bool { return c != httpapi.PlatformAdmin }, auth.Owner},
			{"viewer seat session", session(viewer, owner.HouseID), func(c httpapi.Class) bool { return c != httpapi.PlatformAdmin }, auth.Viewer},
			{"platform admin session", session(admin, ""), func(httpapi.Class) bool { return true }, auth.Owner},
		}
		for _, rt := range a.Server.Routes() {
			for _, c := range creds {
				t.Run(rt.Pattern()+"/"+c.name, func(t *testing.T) {
					req := samples[rt.Pattern()](t, a, owner)
					cr := c.make(t)
					if c.name == "platform admin session" && strings.Contains(rt.Path, "{") {
						// The admin is in another house: its id routes answer 404, which the sweep covers.
						req = samples[rt.Pattern()](t, a, admin)
					}
					res := a.Do(t, rt.Method, req.path, cr, req.body)
					passes := c.class(rt.Class)
					need := minRole[rt.Pattern()]
					switch {
					case !passes && rt.Class == httpapi.PlatformAdmin && cr.Cookie != "":
						if res.Status != http.StatusForbidden {
							t.Errorf("got %d %s; want 403", res.Status, res.Body)
						}
					case !passes:
						if res.Status != http.StatusUnauthorized {
							t.Errorf("got %d %s; want 401", res.Status, res.Body)
						}
					case need != "" && c.role != "" && !c.role.AtLeast(need):
						if res.Status != http.StatusForbidden {
							t.Errorf("got %d %s; want 403 (needs %s)", res.Status, res.Body, need)
						}
					default:
						if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden || res.Status >= 500 {
							t.Errorf("got %d %s; want the route to admit %s", res.Status, res.Body, c.name)
						}
					}
				})
			}
		}
	})
}

func revokeByKey(t *testing.T, a *apptest.App, u *apptest.User, secret string) {
	t.Helper()
	res := a.Do(t, "GET", "/api/keys", u.Session(), nil)
	var body struct {
		Keys []struct{ ID, Prefix string }
	}
	res.JSON(t, &body)
	for _, k := range body.Keys {
		if strings.HasPrefix(secret, k.Prefix) {
			if r := a.Do(t, "DELETE", "/api/keys/"+k.ID, u.Session(), nil); r.Status != 200 {
				t.Fatalf("revoke: %d %s", r.Status, r.Body)
			}
			return
		}
	}
	t.Fatal("key not listed")
}

// TestCrossHouseSweep: on every id-bearing route, another house's id, a
// deleted id and an id that never existed give byte-identical 404s.
func TestCrossHouseSweep(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		keyB := a.Key(t, houseB, "member")
		var want []byte
		for _, rt := range a.Server.Routes() {
			if !rt.HasID() {
				continue
			}
			t.Run(rt.Pattern(), func(t *testing.T) {
				req := samples[rt.Pattern()](t, a, houseA)
				id := req.path[strings.LastIndexByte(req.path, '/')+1:]
				random := strings.Replace(req.path, id, uuid.Must(uuid.NewV7()).String(), 1)
				type try struct {
					name string
					path string
					cred apptest.Cred
				}
				tries := []try{
					{"house B by session", req.path, houseB.Session()},
					{"never existed", random, houseA.Session()},
					{"not a uuid", strings.Replace(req.path, id, "nope", 1), houseA.Session()},
				}
				if rt.Class == httpapi.KeyOrSession {
					tries = append(tries, try{"house B by key", req.path, keyB})
				}
				if rt.Method == http.MethodDelete && !repeatable[rt.Pattern()] {
					if res := a.Do(t, rt.Method, req.path, houseA.Session(), req.body); res.Status >= 300 {
						t.Fatalf("delete: %d %s", res.Status, res.Body)
					}
					tries = append(tries, try{"deleted", req.path, houseA.Session()})
				}
				for _, try := range tries {
					res := a.Do(t, rt.Method, try.path, try.cred, req.body)
					if res.Status != http.StatusNotFound {
						t.Errorf("%s: got %d %s; want 404", try.name, res.Status, res.Body)
						continue
					}
					if want == nil {
						want = res.Body
					}
					if !bytes.Equal(res.Body, want) {
						t.Errorf("%s: 404 body %s differs from %s", try.name, res.Body, want)
					}
				}
			})
		}
	})
}

// TestBodiesRefused: every JSON route refuses malformed JSON (BAD_JSON), a
// body of the wrong shape (BAD_BODY) and a body over 1 MiB (BODY_TOO_LARGE).
func TestBodiesRefused(t *testing.T) {
	e := apptest.Engines(t)[0]
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	huge := `{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}`
	for _, rt := range a.Server.Routes() {
		if rt.In == nil {
			continue
		}
		if _, ok := rt.In.(httpapi.Multipart); ok {
			continue
		}
		for _, tc := range []struct{ body, code string }{{"{", "BAD_JSON"}, {"[]", "BAD_BODY"}, {huge, "BODY_TOO_LARGE"}, {"", "BAD_JSON"}} {
			t.Run(rt.Pattern()+"/"+tc.code, func(t *testing.T) {
				req := samples[rt.Pattern()](t, a, owner)
				res := a.Do(t, rt.Method, req.path, signIn(t, a, owner), tc.body)
				if res.Code != tc.code {
					t.Errorf("got %d %s; want %s", res.Status, res.Body, tc.code)
				}
			})
		}
	}
}

// TestOriginChecked: a cookie-authenticated unsafe request from another
// origin, or with none, is refused with BAD_ORIGIN on every route that
// takes a session; a key needs no Origin.
func TestOriginChecked(t *testing.T) {
	e := apptest.Engines(t)[0]
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	for _, rt := range a.Server.Routes() {
		if rt.Class == httpapi.Public || rt.Class == httpapi.SharedSecret || rt.Method == http.MethodGet {
			continue
		}
		for _, c := range []apptest.Cred{{Origin: "https://evil.example"}, {NoOrigin: true}} {
			t.Run(rt.Pattern(), func(t *testing.T) {
				req := samples[rt.Pattern()](t, a, owner)
				c.Cookie = signIn(t, a, owner).Cookie
				res := a.Do(t, rt.Method, req.path, c, req.body)
				if res.Status != http.StatusForbidden || res.Code != "BAD_ORIGIN" {
					t.Errorf("got %d %s; want 403 BAD_ORIGIN", res.Status, res.Body)
				}
			})
		}
	}
}
