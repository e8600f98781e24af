package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"studio/internal/access"
	"studio/internal/account"
	"studio/internal/ai/openai"
	"studio/internal/analyst"
	"studio/internal/apikey"
	"studio/internal/billing"
	"studio/internal/casting"
	"studio/internal/chat"
	"studio/internal/console"
	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/httpapi"
	"studio/internal/httpguard"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/lane"
	"studio/internal/ledger"
	"studio/internal/letters"
	"studio/internal/look"
	"studio/internal/metrics"
	"studio/internal/notify"
	"studio/internal/onboarding"
	"studio/internal/ops"
	"studio/internal/pipeline"
	"studio/internal/post"
	"studio/internal/ratelimit"
	"studio/internal/search"
	"studio/internal/seat"
	"studio/internal/share"
	"studio/internal/sqlstore"
)

// API is the HTTP face of a process: the services only requests call, and
// the server with its routes and job sockets, and the console beside it. A
// process that runs only workers does not build it.
type API struct {
	Server  *httpapi.Server
	Shares  *share.Service   // share links and reviewer marks
	Casting *casting.Service // the casting board; Import loads catalogue faces
	Door    *invite.Service  // the door in (operators' invitations are issued here)
	Limits  *ratelimit.Limiter
	Handler http.Handler // what the listener serves: the API at "/", the console's pages beside it

	core *Core
}

// NewAPI builds the HTTP face on core. A submit it accepts wakes core's
// workers when this process runs them too.
func NewAPI(core *Core) (*API, error) {
	cfg, db, log, now, opts := core.Config, core.DB, core.Log, core.now, core.opts
	sender := core.sender
	limits := rateLimits(cfg, db, now)
	core.Jobs.LimitWith(limits) // preflights count against the house's minute
	accounts := account.NewService(db, sender, account.Options{
		PublicURL: cfg.PublicURL, AdminEmails: cfg.AdminEmails, InviteOnly: cfg.Signup == "invite", Hash: opts.Hash, Now: now,
		Limits: limits, Prices: core.prices, Blobs: core.Blobs, Log: log,
	})
	guard := opts.PreviewGuard
	if guard == nil {
		guard = invite.PreviewGuard()
	}
	seats := seat.NewService(db, sender, limits, seat.Options{WebOrigin: cfg.WebOrigin, Now: now})
	door := invite.NewService(db, limits, invite.Options{WebOrigin: cfg.WebOrigin, Prices: core.prices, Guard: guard, Now: now})
	shares := share.NewService(db, share.Options{Blobs: core.Blobs, Mailer: sender,
		Limiter: limits, Decoding: core.decoding, WebOrigin: cfg.WebOrigin, Now: now, Log: log})
	assistant := chat.NewService(db, openai.New(openai.Config{BaseURL: cfg.AIBaseURL, APIKey: cfg.AIAPIKey, Model: cfg.AIModel}), core.memories, core.pub, log, now)
	cast := casting.NewService(db, casting.Options{Blobs: core.Blobs, Decoding: core.decoding, Now: now, Log: log})
	lanes := lane.Options{Ledger: db, Prices: core.prices, AI: core.ai, Reader: core.classifier, Assets: core.assets, Engine: core.Engine, Builds: local.New(),
		Decoding: core.decoding, Log: log, Calls: db, Now: now}
	if core.fal != nil {
		lanes.Fal = core.fal
	}
	operators := ops.NewService(db, core.Jobs, door, sender, core.prices, now)
	eng := core.Engine
	srv := httpapi.NewServer(httpapi.Config{
		PublicOrigin: cfg.PublicOrigin(),
		WebOrigin:    cfg.WebOrigin,
		SecureCookie: strings.HasPrefix(cfg.PublicURL, "https://"),
		Version:      Version,
	}, httpapi.Services{
		Accounts: accounts,
		Keys:     apikey.NewService(db, now),
		Posts:    post.NewService(db, now),
		Assets:   core.assets,
		Events:   core.Events,
		Ledger:   ledger.NewService(db, core.prices, now),
		Jobs:     core.Jobs,
		Looks:    look.NewService(db, core.prices, now).CastFrom(cast).CheckModelsOn(core.Engine, core.assets),
		Packs:    core.Packs,
		Notes:    notify.NewService(db, now),
		Shares:   shares,
		Hooks:    core.Hooks,
		Judge:    core.Judge,
		Casting:  cast,
		Chat:     assistant,
		Memory:   core.memories,
		Support:  core.Desk,
		Letters: letters.NewService(db, sender, letters.Options{DripSecret: cfg.DripSecret, WebhookSecret: cfg.EmailHook, WebOrigin: cfg.WebOrigin, Now: now,
			OnAlert: func(kind, subject string) { log.Warn("operator alert", "kind", kind, "subject", subject) }}),
		Seats:   seats,
		Door:    door,
		Billing: core.Billing,
		Pages:   providerPages(core.pay),
		Claims:  db,
		Brand:   core.brands,
		Lanes:   lane.NewService(lanes),
		Ops:     operators,
		Analyst: analyst.NewService(db, operators, analyst.Options{Token: cfg.AnalystToken, ActionToken: cfg.AnalystActionToken,
			Guard: opts.ResearchGuard, AIReady: core.ai.Configured, Now: now}),
		Digest:     core.Digest,
		Search:     search.NewService(db),
		Onboarding: onboarding.NewService(db, now),
		Pipelines:  pipeline.NewService(db, core.assets, core.prices, eng.Can, now),
		Access: access.NewService(db, func(tool string) []job.OptionSpec {
			served, _ := engine.Provider(eng, tool)
			return job.OptionSpecs(tool, served)
		}, now),
		Wake:     core.wakeWorkers,
		Ready:    core.Ready,
		Requests: core.Metrics,
	}, log)
	return &API{Server: srv, Handler: mount(srv, accounts, core.Metrics, cfg.MetricsToken, log), Shares: shares, Casting: cast, Door: door, Limits: limits, core: core}, nil
}

// mount puts the console's pages beside the API: the API answers every
// path the console does not serve.
// GET /metrics is there only when token is set (else it is the API's 404).
func mount(api *httpapi.Server, accounts *account.Service, m *metrics.Metrics, token string, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	if token != "" {
		mux.Handle("GET /metrics", httpapi.Observe(log, m, m.Handler(token)))
	}
	has := func(method, path string) bool {
		r, err := http.NewRequest(method, path, nil)
		return err == nil && api.Match(r) != ""
	}
	console.New(console.Options{API: api, Operator: accounts.PlatformAdmin, Log: log, Has: has,
		Observe: func(h http.Handler) http.Handler { return httpapi.Observe(log, m, h) }}).Mount(mux)
	return mux
}

// Welcome is the one human line a serving process prints: the URL to
// open in a browser.
func (a *API) Welcome() string {
	base := a.core.Config.PublicURL
	return fmt.Sprintf("studio: open %s/ (sign in; %s/docs is the API reference)", base, base)
}

// Listen opens the listener of cfg.Addr, before anything else of the
// process starts: a taken port or a bad address is one plain error.
func Listen(cfg Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		cause := err // "listen tcp 127.0.0.1:8080: bind: address already in use" says "address already in use"
		if op, ok := errors.AsType[*net.OpError](err); ok {
			cause = op.Err
		}
		if sys, ok := errors.AsType[*os.SyscallError](cause); ok {
			cause = sys.Err
		}
		return nil, fmt.Errorf("cannot listen on %s (STUDIO_ADDR): %v", cfg.Addr, cause)
	}
	return ln, nil
}

// Serve answers on ln until ctx ends, then drains in-flight requests for
// up to 20 seconds. ready, when set, is called once requests are served.
func (a *API) Serve(ctx context.Context, ln net.Listener, ready func()) error {
	a.core.keepHolds(ctx)
	log := a.core.Log
	srv := &http.Server{
		Handler:  a.Handler,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Deadlines for every part of a request and caps on connections, so that
	// clients that stall cannot hold the server (README, "Settings").
	gopts := a.core.Config.Guard
	gopts.Log = log
	guard, ln := httpguard.Apply(srv, ln, gopts)
	g := guard.Options()
	log.Info("serving", "addr", ln.Addr().String(), "public_url", a.core.Config.PublicURL,
		"database", a.core.DB.Engine().String(), "data_dir", a.core.Config.DataDir, "routes", len(a.Server.Routes()),
		"max_conns", g.MaxConns, "max_conns_per_client", g.MaxPerClient)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests")
	a.core.Events.Close() // job sockets get a "shutdown" close frame; Shutdown does not track them
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// rateLimits counts rate-limited events in this process on SQLite (one
// instance owns the file) and in the database on PostgreSQL, which several
// instances may share.
func rateLimits(cfg Config, db *sqlstore.DB, now func() time.Time) *ratelimit.Limiter {
	if cfg.DatabaseURL != "" {
		return ratelimit.New(db, now)
	}
	return ratelimit.New(ratelimit.NewMemory(), now)
}

// providerPages are the pages a provider serves from this binary (the local
// test provider's checkout and portal); nil for none.
func providerPages(p billing.Provider) http.Handler {
	if l, ok := p.(*billing.LocalProvider); ok {
		return l.Pages()
	}
	return nil
}
