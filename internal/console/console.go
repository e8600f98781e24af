// Package console is the studio's face in the browser, served by the
// binary at / (DECISIONS §11): server-rendered pages (html/template) that
// read through the JSON API in process, as the visitor, and small modules
// of plain JavaScript that act through the same API from the page
// (same-origin fetch with the session cookie). It holds no rule of its
// own: what a role may do, what a tool costs and what a refusal says come
// from the API's answers. Its templates, style and scripts are embedded;
// nothing is fetched from another origin, and every page carries the
// reviewer page's strict Content-Security-Policy.
//
// The composition root mounts it beside the API (Mount), not in the API's
// routes table.
package console

import (
	"log/slog"
	"net/http"
	"strings"
)

// Options is what the console needs from the composition root.
type Options struct {
	// API is the JSON API (httpapi.Server): pages read it in process with
	// the visitor's own cookie, so every read is an API route.
	API http.Handler
	// Operator reports whether an address is a platform administrator's
	// (account.Service.PlatformAdmin): only they see the operators' pages.
	Operator func(email string) bool
	// Observe wraps every console answer as the API's are: a request id,
	// one log line, a panic turned into a 500 (httpapi.Observe).
	Observe func(http.Handler) http.Handler
	Log     *slog.Logger
	// Has reports whether the API serves a method and path (a route
	// another part of the service may add later, such as preflight).
	Has func(method, path string) bool
	// Calls, when set, is told of every API request a page makes in
	// process (tests check each is a route of the API).
	Calls func(*http.Request)
}

// Console serves the pages.
type Console struct {
	api      http.Handler
	operator func(string) bool
	observe  func(http.Handler) http.Handler
	log      *slog.Logger
	calls    func(*http.Request)
	has      func(method, path string) bool
	pages    map[string]*pageTemplate
}

// New builds the console and parses its templates.
func New(opts Options) *Console {
	c := &Console{api: opts.API, operator: opts.Operator, observe: opts.Observe, log: opts.Log, calls: opts.Calls, has: opts.Has}
	if c.operator == nil {
		c.operator = func(string) bool { return false }
	}
	if c.observe == nil {
		c.observe = func(h http.Handler) http.Handler { return h }
	}
	if c.has == nil {
		c.has = func(string, string) bool { return false }
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.pages = parsePages()
	return c
}

// route is one page of the console.
type route struct {
	pattern string
	handler handlerFunc
}

// handlerFunc is a page: it writes the page or returns an error the
// console shows (an API refusal, a redirect to sign in).
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (c *Console) routes() []route {
	return []route{
		// The door (door.go).
		{"GET /{$}", c.home},
		{"GET /sign-in", c.signIn},
		{"GET /sign-up", c.signUp},
		{"GET /verify-email", c.verifyEmail},
		{"GET /invite", c.invite},
		{"GET /join", c.join},
		{"GET /billing/done", c.billingDone},
		// The library (library.go).
		{"GET /library", c.library},
		{"GET /library/{id}", c.assetPage},
		// Develop (develop.go).
		{"GET /develop", c.develop},
		{"GET /develop/runs", c.runs},
		// Looks (looks.go).
		{"GET /looks", c.looks},
		{"GET /looks/new", c.newLook},
		{"GET /looks/factory", c.factory},
		{"GET /looks/{id}", c.lookPage},
		// Share and review (shares.go).
		{"GET /shares", c.shares},
		// The house (house.go).
		{"GET /house", c.brandPage},
		{"GET /house/casting", c.castingPage},
		{"GET /house/people", c.peoplePage},
		{"GET /house/keys", c.keysPage},
		{"GET /house/webhooks", c.webhooksPage},
		{"GET /house/notifications", c.notificationsPage},
		{"GET /house/support", c.supportPage},
		{"GET /house/support/{id}", c.ticketPage},
		{"GET /account", c.accountPage},
		// Money (money.go).
		{"GET /money", c.money},
		// The operators (admin.go).
		{"GET /admin", c.adminHouses},
		{"GET /admin/develops", c.adminDevelops},
		{"GET /admin/failures", c.adminFailures},
		{"GET /admin/emails", c.adminEmails},
		{"GET /admin/grants", c.adminGrants},
		{"GET /admin/support", c.adminSupport},
		{"GET /admin/support/{id}", c.adminTicket},
	}
}

// Mount registers the console's pages and files on mux, beside the API
// mounted at "/": each page's own path, /static/ for the console's files,
// and GET /docs, which sends a browser without a session to sign in
// before the API's reference page answers.
func (c *Console) Mount(mux *http.ServeMux) {
	for _, rt := range c.routes() {
		mux.Handle(rt.pattern, c.observe(c.page(rt.handler)))
	}
	mux.Handle("GET /static/{file}", c.observe(http.HandlerFunc(c.static)))
	mux.Handle("GET /docs", c.docsDoor(c.api))
}

// page adapts a handlerFunc: an error becomes the page that explains it.
func (c *Console) page(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			c.fail(w, r, err)
		}
	})
}

// localPath keeps a "next" address only when it is a path of this origin
// (never //host or a scheme), so sign-in sends nobody elsewhere.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n\t") {
		return ""
	}
	return next
}
