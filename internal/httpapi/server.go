// Package httpapi speaks HTTP: one routes table registers every handler,
// generates the OpenAPI document and is walked by the tests.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"studio/internal/access"
	"studio/internal/account"
	"studio/internal/analyst"
	"studio/internal/apikey"
	"studio/internal/asset"
	"studio/internal/auth"
	"studio/internal/billing"
	"studio/internal/brand"
	"studio/internal/casting"
	"studio/internal/chat"
	"studio/internal/digest"
	"studio/internal/errs"
	"studio/internal/events"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/lane"
	"studio/internal/ledger"
	"studio/internal/letters"
	"studio/internal/look"
	"studio/internal/memory"
	"studio/internal/notify"
	"studio/internal/onboarding"
	"studio/internal/ops"
	"studio/internal/pack"
	"studio/internal/pipeline"
	"studio/internal/post"
	"studio/internal/search"
	"studio/internal/seat"
	"studio/internal/share"
	"studio/internal/support"
	"studio/internal/webhook"
)

// Config is what the HTTP layer needs to know about its deployment.
type Config struct {
	PublicOrigin string // scheme://host[:port] of the public URL
	WebOrigin    string // the web app's origin, also trusted for cookies
	SecureCookie bool   // the public URL is https
	Version      string
}

// Services are the use cases the routes call.
type Services struct {
	Accounts   *account.Service
	Keys       *apikey.Service
	Posts      *post.Service
	Assets     *asset.Service              // the library: assets and collections
	Events     *events.Broker              // committed changes, fanned out to the job sockets
	Ledger     *ledger.Service             // token balance, price list and admin grants
	Jobs       *job.Service                // develops: submit, replay, cancel, duplicate, runs
	Looks      *look.Service               // lookbook: looks, factory, presets, postures
	Packs      *pack.Service               // batch downloads
	Notes      *notify.Service             // the notifications list and its read marks
	Shares     *share.Service              // share links, reviewer marks, coverage
	Hooks      *webhook.Service            // outbound webhook endpoints, their deliveries and test messages
	Judge      *judge.Service              // verdicts and answers, redraws, takes, standing notes, opinions
	Chat       *chat.Service               // the studio assistant: drafts, mutations, conversations
	Memory     *memory.Service             // what the studio remembers for the house and each user
	Support    *support.Service            // the help desk: tickets, screenshots, escalations
	Letters    *letters.Service            // drip letters and the e-mail provider's delivery webhook
	Casting    *casting.Service            // the casting board: own models and the catalogue's faces
	Seats      *seat.Service               // the house's people: offers, roles, removals, transfer
	Door       *invite.Service             // the door in: invitations, codes, applicants, previews
	Billing    *billing.Service            // money: checkouts, portal, plan cancel, the provider's deliveries
	Pages      http.Handler                // pages the payment provider serves from this binary (the local test provider); nil for none
	Claims     billing.FaceClaimer         // houses' claims on catalogue faces (a free face taken from Explore)
	Brand      *brand.Service              // the brand profile, its DNA reads and the marks
	Lanes      *lane.Service               // the AI lanes and text tools
	Ops        *ops.Service                // the operators' reads and actions across houses
	Digest     *digest.Service             // the operators' analyst digest
	Search     *search.Service             // the one field over the house
	Onboarding *onboarding.Service         // the first-steps checklist
	Pipelines  *pipeline.Service           // saved plans of tool steps, their price and runs
	Access     *access.Service             // what a user may open, and the tools' curated items
	Analyst    *analyst.Service            // the internal analyst's aggregates and actions
	Wake       func()                      // tells this process's workers that work is queued
	Requests   RequestMeter                // counts answered requests for /metrics; nil counts none
	Ready      func(context.Context) error // GET /ready: the stores answer (a *NotReady names the part that does not)
}

// Server is the HTTP API.
type Server struct {
	cfg     Config
	svc     Services
	log     *slog.Logger
	sockets socketTimings
	started time.Time
	routes  []Route
	heavy   *houseGuard
	mux     *http.ServeMux
	handler http.Handler

	docOnce sync.Once
	doc     []byte
	docErr  error
}

// NewServer builds the server and registers every route of the table.
func NewServer(cfg Config, svc Services, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, svc: svc, log: log, started: time.Now(), mux: http.NewServeMux(),
		heavy: newHouseGuard(heavyPerHouse, heavyWait)}
	s.routes = s.table()
	for _, rt := range s.routes {
		s.mux.Handle(rt.Pattern(), s.authenticate(rt.Class, s.prepare(rt)))
	}
	// The reference page's own scripts and styles: static files embedded in
	// the binary, not API operations, so they stay out of the table.
	s.mux.Handle("GET /docs/{file}", docsHandler())
	s.mux.Handle("GET /s/{file}", reviewerHandler())
	// The local test provider's hosted checkout and portal: the provider's
	// pages, not this API's operations.
	if svc.Pages != nil {
		s.mux.Handle(billing.LocalPath, svc.Pages)
	}
	s.mux.Handle("/", appHandler(s.unmatched))
	s.handler = observeWith(log, svc.Requests, s.mux)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// prepare wraps a route's handler with what the table says of its request:
// a path value that is not a well-formed id is the one 404, the query is
// decoded (and refused) before the handler runs, the route's Before refuses
// a caller its service would refuse before the body is read, and a heavy
// route waits for one of its house's turns (guard.go).
func (s *Server) prepare(rt Route) appHandler {
	names := pathWildcards(rt.Path)
	var plan *queryPlan
	if rt.Query != nil {
		plan = planQuery(rt)
	}
	notFound := errs.NotFound
	if rt.NotFound != nil {
		notFound = rt.NotFound
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		if !pathValuesWellFormed(r, names) {
			return notFound
		}
		if plan != nil {
			q, err := plan.decode(r)
			if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound {
				return notFound // a route whose refusals are 404 answers the one 404
			} else if err != nil {
				return err
			}
			r = r.WithContext(withQuery(r.Context(), q))
		}
		if rt.Before != nil {
			if err := rt.Before(auth.From(r.Context())); err != nil {
				return err
			}
		}
		if rt.Heavy {
			release, err := s.heavy.acquire(r.Context(), auth.From(r.Context()).HouseID)
			if err != nil {
				return err
			}
			defer release()
		}
		return rt.Handler(w, r)
	}
}

// pathWildcards lists the {names} of a ServeMux path.
func pathWildcards(path string) []string {
	var names []string
	for rest := path; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return names
		}
		name, tail, _ := strings.Cut(after, "}")
		if name != "$" && !strings.HasSuffix(name, "...") { // a {rest...} wildcard may hold slashes
			names = append(names, name)
		}
		rest = tail
	}
}

// Routes returns the routes table.
func (s *Server) Routes() []Route { return s.routes }

// OpenAPI returns the OpenAPI document generated from the routes table.
func (s *Server) OpenAPI() ([]byte, error) {
	s.docOnce.Do(func() { s.doc, s.docErr = buildOpenAPI(s.routes) })
	return s.doc, s.docErr
}

var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// unmatched answers requests no route took: 405 with Allow when the path
// exists under other methods, else the one 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range probeMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		return errs.NotFound
	}
	w.Header().Set("Allow", joinComma(allow))
	return errs.MethodNotAllowed
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// Match returns the pattern of the route that serves r, or "" when no
// route does.
func (s *Server) Match(r *http.Request) string {
	_, pattern := s.mux.Handler(r)
	if pattern == "/" {
		return ""
	}
	return pattern
}

// wakeWorkers tells this process's workers that a job was queued.
func (s *Server) wakeWorkers() {
	if s.svc.Wake != nil {
		s.svc.Wake()
	}
}
