package console_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/internal/apptest"
)

// fetch sends a GET as a browser would (Accept names HTML) without
// following redirects.
func fetch(t *testing.T, a *apptest.App, path, cookie, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", a.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "studio_session", Value: cookie})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// TestDoorRules: the redirect rules of DECISIONS §11 on both engines. A
// signed-out visitor sees the sign-in page at /, is sent to sign in and
// back from /docs (as a browser) and from every other console page; a
// request without a credential that is not a browser's still gets the
// API's 401; every page carries the strict policy and no-store.
func TestDoorRules(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		u := a.SignUp(t, "door")
		tests := []struct {
			name, path, cookie, accept string
			status                     int
			location                   string // for 303s
			contains                   string // in the body
		}{
			{"home signed out is the sign-in page", "/", "", browserAccept, 200, "", `data-api="POST /api/auth/sign-in/email"`},
			{"home signed in", "/", u.Cookie, browserAccept, 200, "", "door&#39;s house"},
			{"docs by a browser without a session", "/docs", "", browserAccept, 303, "/sign-in?next=%2Fdocs", ""},
			{"docs by a browser with a stale cookie", "/docs", "not-a-session", browserAccept, 303, "/sign-in?next=%2Fdocs", ""},
			{"docs without a credential, not a browser", "/docs", "", "application/json", 401, "", `"error":"UNAUTHORIZED"`},
			{"docs without a credential or Accept", "/docs", "", "", 401, "", `"error":"UNAUTHORIZED"`},
			{"docs with a session", "/docs", u.Cookie, browserAccept, 200, "", "swagger"},
			{"a seat link signed out", "/join?invitation=abc", "", browserAccept, 303, "/sign-in?next=%2Fjoin%3Finvitation%3Dabc", ""},
			{"a code link signed out is public", "/join?code=SPRING-ABCDEF", "", browserAccept, 200, "", "SPRING-ABCDEF"},
			{"billing done signed out", "/billing/done?checkout=x", "", browserAccept, 303, "/sign-in?next=%2Fbilling%2Fdone%3Fcheckout%3Dx", ""},
			{"sign-in signed in goes on", "/sign-in?next=%2Fbilling%2Fdone", u.Cookie, browserAccept, 303, "/billing/done", ""},
			{"sign-in never leads off the origin", "/sign-in?next=%2F%2Fevil.test", u.Cookie, browserAccept, 303, "/", ""},
			{"sign-up signed out", "/sign-up?email=a%40b.test", "", browserAccept, 200, "", `value="a@b.test"`},
			{"an unknown invitation token says so", "/invite?token=nope", "", browserAccept, 200, "", "invitation"},
			{"the API is still the API", "/api/toolkit/assets", "", browserAccept, 401, "", `"error":"UNAUTHORIZED"`},
			{"the reviewer page is the API's", "/s", "", browserAccept, 200, "", "Review frames"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, body := fetch(t, a, tt.path, tt.cookie, tt.accept)
				if res.StatusCode != tt.status {
					t.Fatalf("GET %s: %d, want %d\n%s", tt.path, res.StatusCode, tt.status, body)
				}
				if tt.location != "" && res.Header.Get("Location") != tt.location {
					t.Errorf("Location %q, want %q", res.Header.Get("Location"), tt.location)
				}
				if !strings.Contains(body, tt.contains) {
					t.Errorf("GET %s: the body lacks %q:\n%s", tt.path, tt.contains, body)
				}
				if res.Header.Get("X-Request-Id") == "" {
					t.Error("no X-Request-Id")
				}
				if res.StatusCode == 200 && strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") && !strings.HasPrefix(tt.path, "/docs") && tt.path != "/s" {
					for h, want := range map[string]string{
						"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
						"Cache-Control":           "no-store",
						"X-Content-Type-Options":  "nosniff",
					} {
						if got := res.Header.Get(h); got != want {
							t.Errorf("%s: %q, want %q", h, got, want)
						}
					}
				}
			})
		}
	})
}

// TestStaticFiles: the console's files are served from the binary with
// their type and an ETag; a revalidation is a 304; an unknown file 404s.
func TestStaticFiles(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	for _, name := range []string{"console.css", "console.js", "icon.svg"} {
		res, body := fetch(t, a, "/static/"+name, "", "")
		if res.StatusCode != 200 || body == "" || res.Header.Get("ETag") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: %d %v", name, res.StatusCode, res.Header)
		}
		req, _ := http.NewRequest("GET", a.URL+"/static/"+name, nil)
		req.Header.Set("If-None-Match", res.Header.Get("ETag"))
		again, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		again.Body.Close()
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("%s revalidated: %d, want 304", name, again.StatusCode)
		}
	}
	if res, _ := fetch(t, a, "/static/nope.js", "", ""); res.StatusCode != 404 {
		t.Errorf("unknown file: %d", res.StatusCode)
	}
}

// seatLink is the accept link of the newest seat letter to an address, as
// the e-mail log keeps it.
func seatLink(t *testing.T, a *apptest.App, email string) string {
	t.Helper()
	letters, err := a.DB.Emails(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range letters {
		if l.Template != "seat-invite" {
			continue
		}
		for _, word := range strings.Fields(l.Text) {
			if u, err := url.Parse(word); err == nil && u.Query().Get("invitation") != "" {
				return u.RequestURI()
			}
		}
	}
	t.Fatalf("no seat letter to %s", email)
	return ""
}
