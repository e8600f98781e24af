package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/ledger"
	"studio/internal/ts"
	"studio/internal/webfiles"
)

// csp is the reviewer page's policy (httpapi, GET /s) with one opening:
// forms may submit to this origin (the library's search is a plain GET
// form). Scripts, styles, pictures and API calls come from this origin
// only; nothing inline runs.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed templates static
var files embed.FS

// staticFiles are the console's style, scripts and icon, revalidated by
// their ETag on every page view.
var staticFiles = sync.OnceValue(func() webfiles.Set { return webfiles.New(files, "static", webfiles.NoCache) })

// static serves GET /static/{file}.
func (c *Console) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if !staticFiles().Serve(w, r, name, nil) {
		http.NotFound(w, r)
	}
}

// pageTemplate is the layout with one page's blocks.
type pageTemplate struct{ t *template.Template }

// funcs are the helpers templates use; none decides anything.
var funcs = template.FuncMap{
	// when renders an instant as a short UTC date and time.
	"when": func(v any) string {
		var t time.Time
		switch x := v.(type) {
		case ts.Time:
			t = x.Time
		case *ts.Time:
			if x == nil {
				return ""
			}
			t = x.Time
		case string:
			p, err := time.Parse(time.RFC3339Nano, x)
			if err != nil {
				return x
			}
			t = p
		default:
			return ""
		}
		return t.UTC().Format("2 Jan 2006, 15:04 UTC")
	},
	// json renders a value for a data- attribute, which the page's module reads.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"join": strings.Join,
	// usd renders whole or fractional US dollars ("" for none).
	"usd": func(v *float64) string {
		if v == nil {
			return ""
		}
		return fmt.Sprintf("$%.2f", *v)
	},
	"list": func(v ...any) []any { return v },
	"has":  func(list []string, v string) bool { return slices.Contains(list, v) },
	// dict builds a map from pairs of names and values (for json).
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
	// query builds a path with a query string from pairs of names and values.
	"query": func(p string, kv ...string) string {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		if len(q) == 0 {
			return p
		}
		return p + "?" + q.Encode()
	},
	// deref renders what a pointer points at ("" for nil): optional wire
	// fields (*string, *asset.Kind...) print as their value.
	"deref": func(v any) string {
		rv := reflect.ValueOf(v)
		for rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return ""
			}
			rv = rv.Elem()
		}
		if !rv.IsValid() {
			return ""
		}
		return fmt.Sprint(rv.Interface())
	},
	// option names a tool's option in the house's words: the declared
	// name, unless it is shorthand (bg).
	"option": func(s string) string {
		if l, ok := optionLabels[s]; ok {
			return l
		}
		return title(s)
	},
	"title": title,
}

// optionLabels are the options whose declared names are shorthand.
var optionLabels = map[string]string{"bg": "Ground"}

// title capitalises a name and reads its dashes as spaces.
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ReplaceAll(s[1:], "-", " ")
}

// parsePages parses the layout and its parts once, then each page on a
// copy of them.
func parsePages() map[string]*pageTemplate {
	base := template.Must(template.New("").Funcs(funcs).ParseFS(files, "templates/layout/*.html"))
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		panic("console: " + err.Error())
	}
	out := map[string]*pageTemplate{}
	for _, n := range names {
		t := template.Must(template.Must(base.Clone()).ParseFS(files, n))
		out[strings.TrimSuffix(path.Base(n), ".html")] = &pageTemplate{t: t}
	}
	return out
}

// view is what every page template is given.
type view struct {
	Title   string   // the page's own words, before the studio's name
	Section string   // the navigation entry the page belongs to
	Script  string   // the page's module under /static ("" for none)
	Me      *visitor // nil for a signed-out visitor
	Data    any      // the page's own data
	Next    string   // where the door leads back to
}

// navItem is one entry of the bar's navigation.
type navItem struct {
	Href, Label, Section string
	Operator             bool // shown to platform administrators only
}

// nav is the bar's navigation, one entry per part of the console.
var nav = []navItem{
	{Href: "/library", Label: "Library", Section: "library"},
	{Href: "/develop", Label: "Develop", Section: "develop"},
	{Href: "/looks", Label: "Looks", Section: "looks"},
	{Href: "/shares", Label: "Shares", Section: "shares"},
	{Href: "/house", Label: "House", Section: "house"},
	{Href: "/money", Label: "Money", Section: "money"},
	{Href: "/admin", Label: "Operators", Section: "admin", Operator: true},
}

// Nav is the bar's navigation.
func (view) Nav() []navItem { return nav }

// visitor is the signed-in person as GET /me describes them, with the
// house their session has active.
type visitor struct {
	account.Me

	House    account.Membership // the active house
	Operator bool               // a platform administrator
	Balance  *ledger.Balance    // nil when the balance cannot be read
}

// principal is the visitor as the auth package's predicates read them.
func (v *visitor) principal() auth.Principal {
	return auth.Principal{UserID: v.User.ID, HouseID: v.House.ID, Role: v.House.Role, Cred: auth.CredSession,
		Email: v.User.Email, PlatformAdmin: v.Operator}
}

// CanSpend, CanEdit, CanMintKeys, Runs and Owns ask auth's role rules,
// the ones the services decide by, for showing only the buttons the API
// would accept.
func (v *visitor) CanSpend() bool    { return v.principal().MaySpend() == nil }
func (v *visitor) CanEdit() bool     { return v.principal().MayEdit() == nil }
func (v *visitor) CanMintKeys() bool { return v.principal().MayMintKeys() == nil }

// Runs says whether the seat runs the house (admin and owner).
func (v *visitor) Runs() bool { return v.House.Role.MayManage() == nil }

// Owns says whether the seat is the house's owner (money).
func (v *visitor) Owns() bool { return v.principal().MayPay() == nil }

// errSignIn sends a signed-out visitor to the sign-in page and back.
var errSignIn = errors.New("console: sign in first")

// visitor reads who is asking (GET /me and the house's balance) together
// with the page's own independent reads. A visitor without a valid
// session is errSignIn.
func (c *Console) visitor(w http.ResponseWriter, r *http.Request, reads ...read) (*visitor, error) {
	v := &visitor{}
	var b *ledger.Balance
	err := c.getAll(w, r, append([]read{{path: "/me", out: &v.Me}, {path: "/api/toolkit/ai/billing/balance", out: &b, optional: true}}, reads...)...)
	if e, ok := errors.AsType[*apiError](err); ok && e.Status == http.StatusUnauthorized {
		return nil, errSignIn
	} else if err != nil {
		return nil, err
	}
	for _, h := range v.Organizations {
		if h.ID == v.ActiveOrganizationID {
			v.House = h
		}
	}
	v.Operator = c.operator(v.User.Email)
	v.Balance = b
	return v, nil
}

// render writes a page with the console's headers.
func (c *Console) render(w http.ResponseWriter, status int, name string, v view) error {
	p, ok := c.pages[name]
	if !ok {
		return errors.New("console: no page " + name)
	}
	var b bytes.Buffer
	if err := p.t.ExecuteTemplate(&b, "layout", v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_, err := w.Write(b.Bytes())
	return err
}

// signInFor is where a visitor without a session is sent: the sign-in
// page, which leads back to the page asked for.
func signInFor(r *http.Request) string {
	if r.URL.Path == "/" {
		return "/sign-in"
	}
	return "/sign-in?next=" + url.QueryEscape(r.URL.RequestURI())
}

// fail answers a page's error: a visitor without a session goes to sign
// in and back (303); an API refusal is shown with its own message.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, message := http.StatusInternalServerError, "Something went wrong on our side; try again in a moment."
	if e, ok := errors.AsType[*apiError](err); ok && e.Status == http.StatusUnauthorized || errors.Is(err, errSignIn) {
		http.Redirect(w, r, signInFor(r), http.StatusSeeOther)
		return
	} else if ok {
		status, message = e.Status, e.Message
	} else {
		c.log.ErrorContext(r.Context(), "console page", "path", r.URL.Path, "err", err)
	}
	if err := c.render(w, status, "error", view{Title: http.StatusText(status), Data: message}); err != nil {
		c.log.ErrorContext(r.Context(), "console error page", "err", err)
	}
}

// docsDoor sends a browser (Accept names text/html) without a session
// that asks for /docs to sign in and back; any other request, and a
// browser with a session or a key, goes to the API as it is, so a client
// without a credential still gets 401 UNAUTHORIZED.
func (c *Console) docsDoor(api http.Handler) http.Handler {
	toSignIn := c.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, signInFor(r), http.StatusSeeOther)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "text/html") && r.Header.Get("Authorization") == "" {
			err := c.get(w, r, "/api/auth/get-session", nil)
			if e, ok := errors.AsType[*apiError](err); ok && e.Status == http.StatusUnauthorized {
				toSignIn.ServeHTTP(w, r)
				return
			}
		}
		api.ServeHTTP(w, r)
	})
}
