package httpapi_test

// The tests in this file walk the whole routes table: every route must have
// a valid sample request, every credential is tried on every route (the
// role matrix), every id-bearing route answers one identical 404 for a
// foreign, a deleted and a never-existing id (the cross-house sweep), and
// every JSON route refuses malformed and oversized bodies the same way.
// A new route joins by adding a sample to its area's walkArea (and a
// minRole when a viewer may not call it); areas lists every area.

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/httpapi"
	"studio/internal/ledger"
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

// walkArea is one area's part of the walk, declared in the area's _test
// file: a valid sample request for each of its routes, the weakest role a
// route admits where that is above viewer, and the few exceptions the
// generic walks must know about, by route pattern.
type walkArea struct {
	samples          map[string]sampleFunc
	minRole          map[string]auth.Role
	repeatable       []string // DELETE routes whose repeat is a success (SPEC: revoking a key twice), so the sweep's deleted case skips them
	foreignForbidden []string // routes the spec lets answer 403, not 404, for another house's id (DECISIONS §1: the legacy bytes route)
	global           []string // id routes whose ids name built-in entries every house shares; the sweep skips its house B tries
	optionalBody     []string // JSON routes whose body may be left out entirely
	// unconfigured names routes whose provider the walk's app leaves unset
	// (no AI endpoint): every credential they admit gets 503 with this code.
	unconfigured map[string]string
	// signed names id routes whose authority is a signature in the query
	// (support screenshots): the sweep skips them; their own test tries
	// bad, expired and other houses' signatures.
	signed     []string
	authorOnly []string // routes only the sample's author may use: another seat of the house is 403 (a post's author)
	// reusable names routes whose sample stays a valid request after any
	// credential sent it (a read, an idempotent edit, a refusal that changes
	// nothing): the role matrix makes it once per author and sends it with
	// every credential, where making it (an own model's collage) costs more
	// than the request.
	reusable []string
}

// areas lists every area's walk declarations, in the order of routes.go.
var areas = []walkArea{
	metaWalk, identityWalk, keysWalk, mcpWalk, socketWalk, postsWalk, assetsWalk, packsWalk,
	notificationsWalk, foldersWalk, billingWalk, jobsWalk, judgeWalk, looksWalk, posturesWalk, shareWalk, webhooksWalk, adminWalk, searchWalk, onboardingWalk, pipelinesWalk,
	chatWalk, memoryWalk, supportWalk, deskWalk, applicantsWalk, lettersWalk, modelsWalk, digestWalk,
	accountWalk, seatsWalk, doorWalk, meWalk,
	brandWalk, lanesWalk, accessWalk, analystWalk,
}

// The merged walk, by route pattern.
var (
	samples          = map[string]sampleFunc{}
	minRole          = map[string]auth.Role{}
	repeatable       = map[string]bool{}
	foreignForbidden = map[string]bool{}
	global           = map[string]bool{}
	optionalBody     = map[string]bool{}
	unconfigured     = map[string]string{}
	signed           = map[string]bool{}
	authorOnly       = map[string]bool{}
	reusable         = map[string]bool{}
	walkNames        = map[string]int{} // how many areas declared a sample for each pattern
	walkMentions     []string           // every pattern the exceptions name
)

func init() {
	for _, ar := range areas {
		for p, f := range ar.samples {
			samples[p] = f
			walkNames[p]++
		}
		for p, r := range ar.minRole {
			minRole[p] = r
			walkMentions = append(walkMentions, p)
		}
		for p, code := range ar.unconfigured {
			unconfigured[p] = code
			walkMentions = append(walkMentions, p)
		}
		for set, ps := range map[*map[string]bool][]string{&repeatable: ar.repeatable, &foreignForbidden: ar.foreignForbidden,
			&global: ar.global, &optionalBody: ar.optionalBody, &signed: ar.signed,
			&authorOnly: ar.authorOnly, &reusable: ar.reusable} {
			for _, p := range ps {
				(*set)[p] = true
				walkMentions = append(walkMentions, p)
			}
		}
	}
}

// TestEveryRouteHasASample: every route has exactly one sample, and every
// pattern the walk names is a route.
func TestEveryRouteHasASample(t *testing.T) {
	known := map[string]bool{}
	for _, rt := range routes() {
		known[rt.Pattern()] = true
		if n := walkNames[rt.Pattern()]; n != 1 {
			t.Errorf("route %s has %d sample requests; want one, in its area's walkArea", rt.Pattern(), n)
		}
	}
	for p := range walkNames {
		if !known[p] {
			t.Errorf("the walk has a sample for %s, which is not a route", p)
		}
	}
	for _, p := range walkMentions {
		if !known[p] {
			t.Errorf("the walk names %s, which is not a route", p)
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

// endsSession lists the routes after which the matrix signs in afresh: they
// end the session or move it to another house.
var endsSession = map[string]bool{
	"POST /api/auth/sign-out":                true,
	"POST /api/auth/organization/set-active": true,
	"POST /api/toolkit/org/seats/accept":     true,
	"POST /me/delete":                        true,
}

// TestRoleMatrix tries every credential on every route: keys of both
// roles, and real seats of every role in the owner's house (SPEC §1: a
// viewer reads only, a member spends, an admin manages seats, only an owner
// hands the house over).
func TestRoleMatrix(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		viewer := seated(t, a, owner.HouseID, auth.Viewer)
		member := seated(t, a, owner.HouseID, auth.Member)
		seatAdmin := seated(t, a, owner.HouseID, auth.Admin)
		coOwner := seated(t, a, owner.HouseID, auth.Owner) // a second owner: owns the house, is not the samples' author
		memberSeatKey := a.KeyIn(t, inHouse(t, a, member, owner.HouseID), "member")
		admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		// Every credential spends in the samples: enough tokens for all of them.
		for _, h := range []string{owner.HouseID, admin.HouseID} {
			if err := a.DB.AddCredit(context.Background(), h, ledger.NewGrant(1000, ledger.SourceAdmin, nil)); err != nil {
				t.Fatal(err)
			}
		}
		revoked := a.Key(t, owner, "member")
		revokeByKey(t, a, owner, revoked.Key)

		type cred struct {
			name  string
			make  func(t *testing.T) apptest.Cred
			class func(httpapi.Class) bool // classes the credential passes
			role  auth.Role                // role inside the owner's house
			other bool                     // acts as a person other than the sample's author
		}
		// A session is signed in once and reused across routes, except after
		// a route that ends it or moves it to another house.
		var sessions sync.Map // *apptest.User -> apptest.Cred
		session := func(u *apptest.User, switchTo string) func(t *testing.T) apptest.Cred {
			return func(t *testing.T) apptest.Cred {
				if c, ok := sessions.Load(u); ok {
					return c.(apptest.Cred)
				}
				c := signIn(t, a, u)
				defer sessions.Store(u, c)
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
		// The analyst's routes admit only their own tokens, which the walk's
		// app leaves unset: every credential here is 401 there.
		anyAuth := func(c httpapi.Class) bool { return !c.Credentialed() && !c.Internal() }
		seat := func(c httpapi.Class) bool { return c != httpapi.PlatformAdmin && !c.Internal() }
		creds := []cred{
			{"anonymous", fixed(apptest.Anonymous), anyAuth, "", false},
			{"garbage bearer", fixed(apptest.Cred{Key: "fis_sk_nope"}), anyAuth, "", false},
			{"revoked key", fixed(revoked), anyAuth, "", false},
			{"member key", fixed(memberKey), func(c httpapi.Class) bool { return anyAuth(c) || c == httpapi.KeyOrSession }, auth.Member, false},
			{"viewer key", fixed(viewerKey), func(c httpapi.Class) bool { return anyAuth(c) || c == httpapi.KeyOrSession }, auth.Viewer, false},
			{"owner session", session(owner, ""), seat, auth.Owner, false},
			{"viewer seat session", session(viewer, owner.HouseID), seat, auth.Viewer, true},
			{"member seat session", session(member, owner.HouseID), seat, auth.Member, true},
			{"member seat's key", fixed(memberSeatKey), func(c httpapi.Class) bool { return anyAuth(c) || c == httpapi.KeyOrSession }, auth.Member, true},
			{"admin seat session", session(seatAdmin, owner.HouseID), seat, auth.Admin, true},
			{"owner seat session", session(coOwner, owner.HouseID), seat, auth.Owner, true},
			{"platform admin session", session(admin, ""), func(c httpapi.Class) bool { return !c.Internal() }, auth.Owner, false},
		}
		// admitted reports whether c gets past every refusal on rt: its class
		// passes, its role is enough, and it is the author where only the
		// author may.
		admitted := func(c cred, rt httpapi.Route) bool {
			need := minRole[rt.Pattern()]
			return c.class(rt.Class) && (need == "" || c.role == "" || c.role.AtLeast(need)) &&
				!(authorOnly[rt.Pattern()] && c.other)
		}
		for _, rt := range a.Server.Routes() {
			tried := false
			// sample is the route's sample request for the house of u, kept
			// until a credential the route admits has sent it (a refused
			// request changes nothing, which is what the matrix checks), or
			// for every credential where the route's sample is reusable.
			made := map[string]request{}
			sample := func(t *testing.T, u *apptest.User) request {
				if r, ok := made[u.ID]; ok {
					return r
				}
				r := samples[rt.Pattern()](t, a, u)
				made[u.ID] = r
				return r
			}
			for _, c := range creds {
				// Who is refused is decided in Go (the route's class, the
				// services' role rules), the same on both engines: the whole
				// matrix runs on SQLite. On PostgreSQL each route runs once, by
				// the first credential it admits, so that every route's
				// statements still answer there without a 5xx. (The credentials
				// themselves are resolved on PostgreSQL by the keys', seats' and
				// sessions' own tests.)
				if e.Name == "postgres" && (tried || !admitted(c, rt)) {
					continue
				}
				tried = true
				t.Run(rt.Pattern()+"/"+c.name, func(t *testing.T) {
					author := owner
					if c.name == "platform admin session" && strings.Contains(rt.Path, "{") {
						// The admin is in another house: its id routes answer 404, which the sweep covers.
						author = admin
					}
					req := sample(t, author)
					if admitted(c, rt) && !reusable[rt.Pattern()] {
						delete(made, author.ID) // spent: the next credential gets a sample of its own
					}
					cr := c.make(t)
					res := a.Do(t, rt.Method, req.path, cr, req.body)
					if endsSession[rt.Pattern()] {
						sessions.Clear()
					}
					passes := c.class(rt.Class)
					need := minRole[rt.Pattern()]
					switch {
					case !passes && rt.Class == httpapi.PlatformAdmin && (cr.Cookie != "" || c.role != ""): // a session, or a valid key
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
					case unconfigured[rt.Pattern()] != "":
						if res.Status != http.StatusServiceUnavailable || res.Code != unconfigured[rt.Pattern()] {
							t.Errorf("got %d %s; want 503 %s (the walk's app leaves its provider unset)", res.Status, res.Body, unconfigured[rt.Pattern()])
						}
					case authorOnly[rt.Pattern()] && c.other:
						if res.Status != http.StatusForbidden {
							t.Errorf("got %d %s; want 403 (only the author may)", res.Status, res.Body)
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
// deleted id and an id that never existed give byte-identical 404s. The
// reviewer routes, whose path carries a token rather than an id, have
// their own sweep (TestReviewerSweep).
func TestCrossHouseSweep(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		keyB := a.Key(t, houseB, "member")
		want := map[string][]byte{} // the one 404 body of each code (NOT_FOUND, or a route's own, e.g. CHAT_SESSION_NOT_FOUND)
		operator := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		for _, rt := range a.Server.Routes() {
			if !rt.HasID() || rt.Class == httpapi.Reviewer || rt.Class.Internal() || signed[rt.Pattern()] {
				continue // the analyst's ids are not a house's: TestAnalyst tries its unknown and malformed ones
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
				if rt.Class == httpapi.PlatformAdmin { // an operator reads every house: no id is foreign, unknown ones are the one 404
					tries = []try{{"never existed", random, operator.Session()}, {"not a uuid", strings.Replace(req.path, id, "nope", 1), operator.Session()}}
				}
				// A key is a member at most: on routes that need more it is
				// refused (403) before any id is read.
				if need := minRole[rt.Pattern()]; rt.Class == httpapi.KeyOrSession && (need == "" || auth.Member.AtLeast(need)) {
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
					wantStatus := http.StatusNotFound // or the route's own "not found" (the desk's thread: 503)
					if rt.NotFound != nil {
						wantStatus = httpapi.Status(rt.NotFound.Kind)
					}
					if res.Status != wantStatus {
						t.Errorf("%s: got %d %s; want %d", try.name, res.Status, res.Body, wantStatus)
						continue
					}
					if want[res.Code] == nil {
						want[res.Code] = res.Body
					}
					if !bytes.Equal(res.Body, want[res.Code]) {
						t.Errorf("%s: 404 body %s differs from %s", try.name, res.Body, want[res.Code])
					}
					if own := routeNotFound(a, rt.Pattern()); res.Code != own {
						t.Errorf("%s: 404 code %s; want the route's one 404, %s", try.name, res.Code, own)
					}
				}
			})
		}
	})
}

// routeNotFound is the code of a route's one 404.
func routeNotFound(a *apptest.App, pattern string) string {
	for _, rt := range a.Server.Routes() {
		if rt.Pattern() == pattern && rt.NotFound != nil {
			return rt.NotFound.Code
		}
	}
	return "NOT_FOUND"
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

// TestBodiesRefused: every JSON route refuses malformed JSON (BAD_JSON), a
// body of the wrong shape or with bytes that are not UTF-8 (BAD_BODY) and a
// body over 1 MiB (BODY_TOO_LARGE).
func TestBodiesRefused(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
	huge := `{"x":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}`
	for _, rt := range a.Server.Routes() {
		if rt.In == nil || rt.Class == httpapi.SharedSecret || rt.Class.Internal() || rt.Lenient {
			continue // a shared-secret route refuses before it reads a body; its area's test sends bodies with the secret; a lenient one refuses none
		}
		if _, ok := rt.In.(httpapi.Multipart); ok {
			continue
		}
		// Every try is refused and changes nothing: the route's sample is
		// made once, by the first try, and serves the others.
		var req *request
		for _, tc := range []struct{ body, code string }{{"{", "BAD_JSON"}, {"[]", "BAD_BODY"}, {huge, "BODY_TOO_LARGE"}, {"", "BAD_JSON"},
			{"{\"name\":\"a\xffb\"}", "BAD_BODY"}} { // not UTF-8 (DECISIONS §11)
			if tc.body == "" && optionalBody[rt.Pattern()] {
				continue
			}
			t.Run(rt.Pattern()+"/"+tc.code, func(t *testing.T) {
				if req == nil {
					r := samples[rt.Pattern()](t, a, owner)
					req = &r
				}
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
// takes a session, and the message names the Origin expected and the
// setting that decides it; a key needs no Origin.
func TestOriginChecked(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	want := "send Origin: " + a.URL + " (set by STUDIO_PUBLIC_URL)"
	for _, rt := range a.Server.Routes() {
		if !rt.Class.Credentialed() || rt.Method == http.MethodGet {
			continue
		}
		// Both tries are refused and change nothing: the route's sample is
		// made once, by the first, and serves the second.
		var req *request
		for _, c := range []apptest.Cred{{Origin: "https://evil.example"}, {NoOrigin: true}} {
			t.Run(rt.Pattern(), func(t *testing.T) {
				if req == nil {
					r := samples[rt.Pattern()](t, a, owner)
					req = &r
				}
				c.Cookie = signIn(t, a, owner).Cookie
				res := a.Do(t, rt.Method, req.path, c, req.body)
				if res.Status != http.StatusForbidden || res.Code != "BAD_ORIGIN" || !strings.Contains(res.Map(t)["message"].(string), want) {
					t.Errorf("got %d %s; want 403 BAD_ORIGIN saying %q", res.Status, res.Body, want)
				}
			})
		}
	}
}

// TestBadOriginNamesWebOrigin: with WEB_ORIGIN set apart from the public
// URL, BAD_ORIGIN names both origins a signed-in request may send and both
// settings, and either origin is taken.
func TestBadOriginNamesWebOrigin(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) { c.WebOrigin = "https://app.example.com" })
	owner := a.SignUp(t, "owner")
	cookie := signIn(t, a, owner).Cookie
	want := "send Origin: " + a.URL + " or https://app.example.com (set by STUDIO_PUBLIC_URL and WEB_ORIGIN)"
	res := a.Do(t, "POST", "/api/keys", apptest.Cred{Cookie: cookie, Origin: "https://evil.example"}, map[string]string{"name": "k"})
	if res.Status != http.StatusForbidden || res.Code != "BAD_ORIGIN" || !strings.Contains(res.Map(t)["message"].(string), want) {
		t.Errorf("got %d %s; want 403 BAD_ORIGIN saying %q", res.Status, res.Body, want)
	}
	for _, origin := range []string{a.URL, "https://app.example.com"} {
		if res := a.Do(t, "POST", "/api/keys", apptest.Cred{Cookie: cookie, Origin: origin}, map[string]string{"name": "k"}); res.Status != http.StatusCreated {
			t.Errorf("Origin %s: %d %s; want 201", origin, res.Status, res.Body)
		}
	}
}
