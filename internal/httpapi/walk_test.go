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
	// MCP: initialize is public, so every credential is admitted; mcp_test.go walks the key-only methods.
	"POST /api/mcp": static("/api/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18"}}),
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
	// A plain GET answers 426 UPGRADE_REQUIRED: the matrix counts that as admitted.
	"GET /api/toolkit/jobs/ws": static("/api/toolkit/jobs/ws", nil),

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
	"GET /api/toolkit/assets": static("/api/toolkit/assets", nil),
	"POST /api/toolkit/assets/upload": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
		return request{"/api/toolkit/assets/upload", uploadForm(t, "look.jpg", jpegOf(t, 16, 12), "kind", "clothes")}
	},
	"PATCH /api/toolkit/assets/batch": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/batch", map[string]any{"assetIds": []string{assetID(t, a, u)}, "approved": true}}
	},
	"POST /api/toolkit/assets/batch/delete": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/batch/delete", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
	},
	"POST /api/toolkit/assets/batch/quote": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/batch/quote", map[string]any{"assetIds": []string{assetID(t, a, u)}, "operation": "packshot"}}
	},
	"POST /api/toolkit/assets/group": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/group", map[string]any{"assetIds": []string{assetID(t, a, u), assetID(t, a, u)}}}
	},
	"GET /api/toolkit/assets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/" + assetID(t, a, u), nil}
	},
	"GET /api/toolkit/assets/{id}/file": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/" + assetID(t, a, u) + "/file", nil}
	},
	"PATCH /api/toolkit/assets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/" + assetID(t, a, u), map[string]any{"name": "Renamed", "sku": "SKU-1"}}
	},
	"POST /api/toolkit/assets/pack": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/assets/pack", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
	},
	"GET /api/toolkit/packs/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/packs/" + packID(t, a, u), nil}
	},
	"GET /api/toolkit/packs/{id}/file": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/packs/" + packID(t, a, u) + "/file", nil}
	},
	"GET /api/notifications":       static("/api/notifications?limit=50", nil),
	"POST /api/notifications/read": static("/api/notifications/read", map[string]any{"all": true}),
	"GET /api/toolkit/folders":     static("/api/toolkit/folders", nil),
	"POST /api/toolkit/folders":    static("/api/toolkit/folders", map[string]string{"name": "Spring"}),
	"PATCH /api/toolkit/folders/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/folders/" + folderID(t, a, u), map[string]string{"name": "Summer"}}
	},

	// Billing: every seat reads the balance and the catalog; the grant is a platform admin's.
	"GET /api/toolkit/ai/billing/balance": static("/api/toolkit/ai/billing/balance", nil),
	"GET /api/toolkit/ai/billing/catalog": static("/api/toolkit/ai/billing/catalog", nil),
	"POST /api/toolkit/jobs/submit": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
		return request{"/api/toolkit/jobs/submit", submitForm(t, "upscale", "image", pngOf(t, 64, 48))}
	},
	"GET /api/toolkit/jobs": static("/api/toolkit/jobs?since=0", nil),
	"POST /api/toolkit/jobs/{id}/cancel": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/jobs/" + submitJob(t, a, u.Session(), "upscale") + "/cancel", nil}
	},
	"POST /api/toolkit/jobs/{id}/duplicate": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/jobs/" + submitJob(t, a, u.Session(), "upscale") + "/duplicate", map[string]string{}}
	},
	"GET /api/toolkit/develops": static("/api/toolkit/develops?state=all&limit=20", nil),
	"POST /api/toolkit/develops/{id}/cancel": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/develops/run." + submitJob(t, a, u.Session(), "upscale") + "/cancel", nil}
	},
	// Lookbook (looks_test.go holds the fixtures).
	"GET /api/toolkit/lookbook/looks": static("/api/toolkit/lookbook/looks", nil),
	"POST /api/toolkit/lookbook/looks": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks", lookBody(t, a, u.Session())}
	},
	"GET /api/toolkit/lookbook/looks/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()), nil}
	},
	"POST /api/toolkit/lookbook/looks/{id}/develop-lock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/develop-lock", map[string]any{}}
	},
	"POST /api/toolkit/lookbook/looks/{id}/lock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/lock", map[string]any{"assetId": assetID(t, a, u)}}
	},
	"POST /api/toolkit/lookbook/looks/{id}/unlock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/unlock", nil}
	},
	"POST /api/toolkit/lookbook/looks/{id}/variations": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/variations", map[string]any{"keys": []string{"front"}}}
	},
	"POST /api/toolkit/factory/plan": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/factory/plan", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
	},
	"POST /api/toolkit/factory/run": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		b := lookBody(t, a, u.Session())
		return request{"/api/toolkit/factory/run", map[string]any{"modelAssetId": b["modelAssetId"],
			"looks": []any{map[string]any{"name": "Batch look", "itemAssetIds": b["itemAssetIds"], "variationKeys": []string{"front"}}}}}
	},
	"GET /api/toolkit/presets": static("/api/toolkit/presets", nil),
	"POST /api/toolkit/presets": static("/api/toolkit/presets", map[string]any{"aesthetic": "minimal",
		"background": map[string]string{"kind": "preset", "value": "concrete"}, "variationKeys": []string{"front", "posture:contrapposto"}}),
	"GET /api/toolkit/postures":                static("/api/toolkit/postures", nil),
	"PUT /api/toolkit/postures/prefs":          static("/api/toolkit/postures/prefs", map[string]any{"favorites": []string{"contrapposto"}}),
	"GET /api/toolkit/backgrounds":             static("/api/toolkit/backgrounds", nil),
	"GET /api/toolkit/lookbook/templates":      static("/api/toolkit/lookbook/templates", nil),
	"GET /api/toolkit/lookbook/templates/{id}": static("/api/toolkit/lookbook/templates/ecommerce-pdp", nil),
	"POST /api/toolkit/admin/grant-tokens": func(t *testing.T, a *apptest.App, u *apptest.User) request {
		return request{"/api/toolkit/admin/grant-tokens", map[string]any{"userId": u.ID, "tokens": 5}}
	},
}

// minRole is the weakest role a route admits, where it is above viewer.
var minRole = map[string]auth.Role{
	"POST /api/toolkit/jobs/submit":          auth.Member,
	"POST /api/toolkit/jobs/{id}/cancel":     auth.Member,
	"POST /api/toolkit/jobs/{id}/duplicate":  auth.Member,
	"POST /api/toolkit/develops/{id}/cancel": auth.Member,
	"POST /api/keys":                         auth.Member,
	"DELETE /api/keys/{id}":                  auth.Member,
	"POST /posts":                            auth.Member,
	"PATCH /posts/{id}":                      auth.Member,
	"DELETE /posts/{id}":                     auth.Member,

	// Lookbook: a viewer reads (and may ask the factory for a plan).
	"POST /api/toolkit/lookbook/looks":                   auth.Member,
	"POST /api/toolkit/lookbook/looks/{id}/develop-lock": auth.Member,
	"POST /api/toolkit/lookbook/looks/{id}/lock":         auth.Member,
	"POST /api/toolkit/lookbook/looks/{id}/unlock":       auth.Member,
	"POST /api/toolkit/lookbook/looks/{id}/variations":   auth.Member,
	"POST /api/toolkit/factory/run":                      auth.Member,
	"POST /api/toolkit/presets":                          auth.Member,
	"PUT /api/toolkit/postures/prefs":                    auth.Member,

	// Assets and collections: a viewer reads only.
	"POST /api/toolkit/assets/upload":       auth.Member,
	"PATCH /api/toolkit/assets/batch":       auth.Member,
	"POST /api/toolkit/assets/batch/delete": auth.Member,
	"POST /api/toolkit/assets/group":        auth.Member,
	"PATCH /api/toolkit/assets/{id}":        auth.Member,
	"POST /api/toolkit/folders":             auth.Member,
	"PATCH /api/toolkit/folders/{id}":       auth.Member,
}

// repeatable lists the DELETE routes whose repeat is a success (SPEC:
// revoking a key twice is idempotent), so the sweep's deleted case skips them.
var repeatable = map[string]bool{"DELETE /api/keys/{id}": true}

// foreignForbidden lists the routes the spec lets answer 403, not 404, for
// another house's id (DECISIONS §1: the legacy bytes route); the sweep
// expects that 403 from house B and the one 404 otherwise.
var foreignForbidden = map[string]bool{"GET /api/toolkit/assets/{id}": true}

// global lists the id routes whose ids name built-in entries every house
// shares (shot templates); the sweep skips its house B tries on them.
var global = map[string]bool{"GET /api/toolkit/lookbook/templates/{id}": true}

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
				id := pathID(rt.Path, req.path)
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
					if global[rt.Pattern()] && strings.HasPrefix(try.name, "house B") {
						continue
					}
					res := a.Do(t, rt.Method, try.path, try.cred, req.body)
					if foreignForbidden[rt.Pattern()] && strings.HasPrefix(try.name, "house B") {
						if res.Status != http.StatusForbidden || res.Code != "FORBIDDEN" {
							t.Errorf("%s: got %d %s; want 403 FORBIDDEN", try.name, res.Status, res.Body)
						}
						continue
					}
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

// pathID returns the segment of path that stands where pattern has {id}
// (the last {...} segment), so /assets/{id}/file yields the id, not "file".
func pathID(pattern, path string) string {
	ps, segs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i := len(ps) - 1; i >= 0; i-- {
		if strings.HasPrefix(ps[i], "{") && i < len(segs) {
			return segs[i]
		}
	}
	return path[strings.LastIndexByte(path, '/')+1:]
}

// optionalBody lists the routes whose JSON body may be left out entirely.
var optionalBody = map[string]bool{"POST /api/toolkit/jobs/{id}/duplicate": true, "POST /api/toolkit/lookbook/looks/{id}/develop-lock": true}

// TestBodiesRefused: every JSON route refuses malformed JSON (BAD_JSON), a
// body of the wrong shape (BAD_BODY) and a body over 1 MiB (BODY_TOO_LARGE).
func TestBodiesRefused(t *testing.T) {
	e := apptest.Engines(t)[0]
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
	huge := `{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}`
	for _, rt := range a.Server.Routes() {
		if rt.In == nil {
			continue
		}
		if _, ok := rt.In.(httpapi.Multipart); ok {
			continue
		}
		for _, tc := range []struct{ body, code string }{{"{", "BAD_JSON"}, {"[]", "BAD_BODY"}, {huge, "BODY_TOO_LARGE"}, {"", "BAD_JSON"}} {
			if tc.body == "" && optionalBody[rt.Pattern()] {
				continue
			}
			t.Run(rt.Pattern()+"/"+tc.code, func(t *testing.T) {
				req := samples[rt.Pattern()](t, a, owner)
				cred := signIn(t, a, owner)
				if rt.Class == httpapi.PlatformAdmin { // anyone else is refused before the body is read
					cred = signIn(t, a, admin)
				}
				res := a.Do(t, rt.Method, req.path, cred, tc.body)
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
