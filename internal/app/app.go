package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"studio/internal/access"
	"studio/internal/account"
	"studio/internal/ai/openai"
	"studio/internal/analyst"
	"studio/internal/apikey"
	"studio/internal/asset"
	"studio/internal/billing"
	"studio/internal/blob"
	"studio/internal/blob/s3"
	"studio/internal/brand"
	"studio/internal/casting"
	"studio/internal/chat"
	"studio/internal/console"
	"studio/internal/digest"
	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/imageapi"
	"studio/internal/engine/local"
	"studio/internal/events"
	"studio/internal/httpapi"
	"studio/internal/httpguard"
	"studio/internal/imagemem"
	"studio/internal/invite"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/lane"
	"studio/internal/ledger"
	"studio/internal/letters"
	"studio/internal/look"
	"studio/internal/mail"
	"studio/internal/memory"
	"studio/internal/notify"
	"studio/internal/onboarding"
	"studio/internal/ops"
	"studio/internal/pack"
	"studio/internal/pipeline"
	"studio/internal/post"
	"studio/internal/ratelimit"
	"studio/internal/search"
	"studio/internal/seat"
	"studio/internal/share"
	"studio/internal/sqlstore"
	"studio/internal/support"
	"studio/internal/sweep"
	"studio/internal/urlguard"
	"studio/internal/webhook"
	"studio/internal/webhook/sign"
	"studio/internal/worker"
)

// Version is the service's version, reported by `studio version`.
const Version = "1.0.0"

// App is the wired service.
type App struct {
	Config  Config
	DB      *sqlstore.DB
	Blobs   blob.Store
	Server  *httpapi.Server
	Handler http.Handler    // what the listener serves: the API at "/", the console's pages beside it
	Events  *events.Broker  // publish committed changes here, after commit
	Relay   *events.PGRelay // on PostgreSQL: Notify inside the committing transaction; nil on SQLite
	Jobs    *job.Service
	Judge   *judge.Service   // verdicts, redraws, takes, standing notes, opinions; JudgeNext is the judging step
	Pool    *worker.Pool     // the workers; they run only when RunWorkers is called
	Packs   *pack.Service    // batch downloads; its builder runs beside the workers
	Shares  *share.Service   // share links and reviewer marks
	Hooks   *webhook.Service // outbound webhook endpoints; its senders run beside the workers
	Casting *casting.Service // the casting board; Import loads catalogue faces
	Desk    *support.Service // the help desk; its screenshot sweep runs beside the workers
	Door    *invite.Service  // the door in (operators' invitations are issued here)
	Digest  *digest.Service  // the operators' analyst digest; its automatic run ticks beside the workers
	Billing *billing.Service // money; the automatic top-ups settles queue are charged beside the workers
	Engine  engine.Engine    // what the workers develop with
	Limits  *ratelimit.Limiter
	Log     *slog.Logger
	// Holds keeps this process's holder lease and voids stranded holds;
	// Serve and RunWorkers start it once (keepHolds).
	Holds     *sweep.Holds
	holdsOnce sync.Once
}

// Options adjust what New builds; the zero value is production.
type Options struct {
	Now        func() time.Time
	Hash       account.HashParams // cheaper password hashing in tests
	MailerFunc func(mail.Log) mail.Sender
	// MailTap sees every letter the mailer delivered, secrets whole (the
	// e-mail log masks them); tests read links from it.
	MailTap func(mail.Message)
	// WebhookGuard is the way out to webhook endpoints; urlguard.New() when
	// nil. Tests pass one that admits their local receiver.
	WebhookGuard *urlguard.Guard
	// PreviewGuard is the URL guard invite previews read links through;
	// nil builds the production one (tests allow their loopback server).
	PreviewGuard *urlguard.Guard
	// ResearchGuard is the URL guard the analyst's research reads an
	// applicant's homepage through; nil builds the production one.
	ResearchGuard *urlguard.Guard
}

// New opens the store and builds every service and the HTTP server.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts Options) (*App, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, Now: now, PublicURL: cfg.PublicURL})
	if err != nil {
		return nil, err
	}
	// This process owns the holds of the calls it makes (lanes, readings)
	// while its holder's lease lives (sweep.Holds, renewed by keepHolds).
	holder := "p-" + uuid.Must(uuid.NewV7()).String()
	db.SetHolder(holder)
	holds := sweep.NewHolds(db, holder, cfg.JobLease, now, log)
	if err := holds.Renew(ctx); err != nil {
		db.Close()
		return nil, err
	}
	var sender mail.Sender
	switch {
	case opts.MailerFunc != nil:
		sender = opts.MailerFunc(db)
	case cfg.ResendAPIKey != "":
		from := cfg.ResendFrom
		if from == "" {
			from = "Studio <studio@" + publicHost(cfg.PublicURL) + ">"
		}
		t, err := mail.NewResend(cfg.ResendAPIKey, from, cfg.ResendURL)
		if err != nil {
			db.Close()
			return nil, err
		}
		sender = &mail.Mailer{T: t, Log: db, Now: now}
	case cfg.SMTPURL != "":
		t, err := mail.NewSMTP(cfg.SMTPURL)
		if err != nil {
			db.Close()
			return nil, err
		}
		sender = &mail.Mailer{T: t, Log: db, Now: now}
	default:
		sender = &mail.Mailer{T: mail.Console{Logger: log}, Log: db, Now: now}
	}
	if m, ok := sender.(*mail.Mailer); ok && opts.MailTap != nil {
		m.Tap = opts.MailTap
	}
	blobs, err := openBlobs(ctx, cfg.BlobURL, cfg.DataDir)
	if err != nil {
		db.Close()
		return nil, err
	}
	// One client of the AI endpoint: DNA reads, the AI lanes and upload classification.
	aiClient := openai.New(openai.Config{BaseURL: cfg.AIBaseURL, APIKey: cfg.AIAPIKey, Model: cfg.AIModel})
	var classifier asset.Classifier // nil: classify=1 leaves uploads unclassified and free
	if cfg.AIBaseURL != "" {
		classifier = &asset.VisionClassifier{AI: aiClient} // describe-item reads with it too
	}
	// One live price table: the catalog, quotes, holds and charges all read it.
	prices := ledger.DefaultPrices()
	// One budget of decoded pixels for the whole process: uploads, develops and pack renditions.
	decoding := imagemem.New(cfg.DecodeMB << 20)
	assets := asset.NewService(db, asset.Options{
		Blobs: blobs, Ledger: db, Prices: prices, Classifier: classifier, Calls: db, Decoding: decoding, Now: now, Log: log,
	})
	limits := rateLimits(cfg, db, now)
	accounts := account.NewService(db, sender, account.Options{
		PublicURL: cfg.PublicURL, AdminEmails: cfg.AdminEmails, InviteOnly: cfg.Signup == "invite", Hash: opts.Hash, Now: now,
		Limits: limits, Prices: prices, Blobs: blobs, Log: log,
	})
	guard := opts.PreviewGuard
	if guard == nil {
		guard = invite.PreviewGuard()
	}
	seats := seat.NewService(db, sender, limits, seat.Options{WebOrigin: cfg.WebOrigin, Now: now})
	door := invite.NewService(db, limits, invite.Options{WebOrigin: cfg.WebOrigin, Prices: prices, Guard: guard, Now: now})
	pay, err := paymentProvider(cfg, db, now)
	if err != nil {
		return nil, errors.Join(err, db.Close(), blobs.Close())
	}
	money := billing.NewService(db, pay, billing.Options{Prices: prices, WebOrigin: cfg.WebOrigin, Now: now, Log: log})
	broker := events.NewBroker(events.Options{})
	var relay *events.PGRelay // several instances share PostgreSQL: relay events between them
	var workers atomic.Pointer[worker.Pool]
	if cfg.DatabaseURL != "" {
		// Another instance's event wakes this one's workers: a job may be queued.
		wake := func(string) {
			if p := workers.Load(); p != nil {
				p.Wake()
			}
		}
		if relay, err = events.NewPGRelay(ctx, cfg.DatabaseURL, broker, log, events.RelayOptions{Fetch: job.MessageAt(db), OnNotify: wake}); err != nil {
			return nil, errors.Join(err, db.Close(), blobs.Close())
		}
	}
	eng, falEngine, err := engines(cfg)
	if err != nil {
		return nil, errors.Join(err, relay.Close(), db.Close(), blobs.Close())
	}
	pub := events.Publisher{Broker: broker, Relay: relay, DB: db.Pool(), Log: log}
	announce := job.Announcer{Pub: pub, Log: log}
	jobs := job.NewService(db, assets, eng, prices, announce, now)
	packs := pack.NewService(db, blobs, notify.Announcer{Pub: pub, Log: log}, pack.Options{Decoding: decoding, Now: now, Log: log})
	notices := notify.Announcer{Pub: pub, Log: log}
	shares := share.NewService(db, share.Options{Blobs: blobs, Mailer: sender, Notifier: notices,
		Limiter: limits, Decoding: decoding, WebOrigin: cfg.WebOrigin, Now: now, Log: log})
	hooks := webhook.NewService(db, webhook.Options{Guard: opts.WebhookGuard, Now: now, Log: log})
	var vision judge.Looker // nil: the local pixel judge alone
	if v := judge.NewVision(aiClient); v != nil {
		vision = v
	}
	judges := judge.NewService(db, jobs, blobs, vision, prices, announce, notices, judge.Options{Decoding: decoding, Calls: db, Now: now, Log: log})
	shotKey, err := db.ServiceSecret(ctx, "support-shot-links")
	if err != nil {
		return nil, errors.Join(err, relay.Close(), db.Close(), blobs.Close())
	}
	desk := support.NewService(db, support.Options{Blobs: blobs, Retention: time.Duration(cfg.ShotDays) * 24 * time.Hour,
		LinkSecret: shotKey, BridgeSecret: cfg.BridgeSecret, PublicURL: cfg.PublicURL, Mailer: sender, Now: now})
	memories := memory.NewService(db, now)
	assistant := chat.NewService(db, openai.New(openai.Config{BaseURL: cfg.AIBaseURL, APIKey: cfg.AIAPIKey, Model: cfg.AIModel}), memories, pub, log, now)
	cast := casting.NewService(db, casting.Options{Blobs: blobs, Decoding: decoding, Now: now, Log: log})
	brands := brand.NewService(db, brand.Options{
		AI:     aiClient,
		Ledger: db, Calls: db, Decoding: decoding, Now: now, Log: log,
	})
	// What a provider is told beside the tool's own instructions, in rank
	// order (job.Rank*): the brand clause and the riding marks, standing
	// notes in force, the memories in force where the house lets them
	// reach develops, then the frame's own words.
	director := job.Sources{brands.Source(), judges.NotesSource(), memories.Source(), job.FrameWords}
	pool := worker.New(db, blobs, eng, wakeOnDone{announce, hooks.Wake}, log, worker.Options{Concurrency: cfg.Workers, Lease: cfg.JobLease, Poll: cfg.WorkerPoll,
		Deadline: cfg.RenderDeadline, Decoding: decoding, Now: now, Director: director, Judge: judges})
	workers.Store(pool)
	// A pipeline step that landed queued the next one in the same
	// transaction: tell its socket, and wake the workers for it.
	db.OnChained(func(ctx context.Context, j job.Job) {
		announce.JobChanged(ctx, j)
		pool.Wake()
	})
	lanes := lane.Options{Ledger: db, Prices: prices, AI: aiClient, Reader: classifier, Assets: assets, Engine: eng,
		Decoding: decoding, Log: log, Calls: db, Now: now}
	if falEngine != nil {
		lanes.Fal = falEngine
	}
	operators := ops.NewService(db, jobs, door, sender, prices, now)
	digests := digest.NewService(db, aiClient, now)
	srv := httpapi.NewServer(httpapi.Config{
		PublicOrigin: cfg.PublicOrigin(),
		WebOrigin:    cfg.WebOrigin,
		SecureCookie: strings.HasPrefix(cfg.PublicURL, "https://"),
		Version:      Version,
	}, httpapi.Services{
		Accounts: accounts,
		Keys:     apikey.NewService(db, now),
		Posts:    post.NewService(db, now),
		Assets:   assets,
		Events:   broker,
		Ledger:   ledger.NewService(db, prices, now),
		Jobs:     jobs,
		Looks:    look.NewService(db, prices, announce, now).CastFrom(cast),
		Packs:    packs,
		Notes:    notify.NewService(db, now),
		Shares:   shares,
		Hooks:    hooks,
		Judge:    judges,
		Casting:  cast,
		Chat:     assistant,
		Memory:   memories,
		Support:  desk,
		Letters: letters.NewService(db, sender, letters.Options{DripSecret: cfg.DripSecret, WebhookSecret: cfg.EmailHook, WebOrigin: cfg.WebOrigin, Now: now,
			OnAlert: func(kind, subject string) { log.Warn("operator alert", "kind", kind, "subject", subject) }}),
		Seats:   seats,
		Door:    door,
		Billing: money,
		Pages:   providerPages(pay),
		Claims:  db,
		Brand:   brands,
		Lanes:   lane.NewService(lanes),
		Ops:     operators,
		Analyst: analyst.NewService(db, operators, analyst.Options{Token: cfg.AnalystToken, ActionToken: cfg.AnalystActionToken,
			Guard: opts.ResearchGuard, AIReady: aiClient.Configured, Now: now}),
		Digest:     digests,
		Search:     search.NewService(db),
		Onboarding: onboarding.NewService(db, now),
		Pipelines:  pipeline.NewService(db, assets, prices, eng.Can, announce, now),
		Access: access.NewService(db, func(tool string) []job.OptionSpec {
			served, _ := engine.Provider(eng, tool)
			return job.OptionSpecs(tool, served)
		}, now),
		Wake: pool.Wake,
		Ping: db.Ping,
	}, log)
	return &App{Config: cfg, DB: db, Blobs: blobs, Server: srv, Handler: mount(srv, accounts, log), Events: broker, Relay: relay, Jobs: jobs, Judge: judges, Pool: pool, Packs: packs,
		Shares: shares, Hooks: hooks, Desk: desk, Door: door, Digest: digests, Billing: money, Casting: cast, Engine: eng, Limits: limits,
		Log: log, Holds: holds}, nil
}

// mount puts the console's pages beside the API: the API answers every
// path the console does not serve.
func mount(api *httpapi.Server, accounts *account.Service, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	has := func(method, path string) bool {
		r, err := http.NewRequest(method, path, nil)
		return err == nil && api.Match(r) != ""
	}
	console.New(console.Options{API: api, Operator: accounts.PlatformAdmin, Log: log, Has: has,
		Observe: func(h http.Handler) http.Handler { return httpapi.Observe(log, h) }}).Mount(mux)
	return mux
}

// Migrate opens only the database (no blob store, engines, relay or
// mailer), which applies the embedded migrations, and closes it. It names
// the database engine migrated.
func Migrate(ctx context.Context, cfg Config) (string, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return "", err
	}
	return db.Engine().String(), db.Close()
}

// ImportModels loads the catalogue faces the manifest of dir describes
// (`studio models import DIR`). It opens only the database and the blob
// store, and names how many faces it wrote.
func ImportModels(ctx context.Context, cfg Config, dir string) (int, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return 0, err
	}
	blobs, err := openBlobs(ctx, cfg.BlobURL, cfg.DataDir)
	if err != nil {
		return 0, errors.Join(err, db.Close())
	}
	n, err := casting.NewService(db, casting.Options{Blobs: blobs}).Import(ctx, os.DirFS(dir))
	return n, errors.Join(err, db.Close(), blobs.Close())
}

// GrantTokens credits a user's personal house as the admin route does
// (the same ledger rows; no granting user is recorded), opening only the
// database: the studio tokens grant command of an installation's operator.
func GrantTokens(ctx context.Context, cfg Config, in ledger.GrantRequest) (ledger.Granted, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return ledger.Granted{}, err
	}
	defer db.Close()
	return ledger.NewService(db, ledger.DefaultPrices(), time.Now).GrantAsOperator(ctx, in)
}

// Close ends the job sockets and releases the event relay, the database
// and the blob store.
func (a *App) Close() error {
	a.Events.Close()
	return errors.Join(a.Relay.Close(), a.DB.Close(), a.Blobs.Close())
}

// Serve listens on the configured address until ctx ends, then drains
// in-flight requests for up to 20 seconds. ready, when set, receives the
// bound address.
func (a *App) Serve(ctx context.Context, ready func(addr string)) error {
	a.keepHolds(ctx)
	srv := &http.Server{
		Addr:     a.Config.Addr,
		Handler:  a.Handler,
		ErrorLog: slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return err
	}
	// Deadlines for every part of a request and caps on connections, so that
	// clients that stall cannot hold the server (README, "Settings").
	gopts := a.Config.Guard
	gopts.Log = a.Log
	guard, ln := httpguard.Apply(srv, ln, gopts)
	g := guard.Options()
	a.Log.Info("serving", "addr", ln.Addr().String(), "public_url", a.Config.PublicURL,
		"database", a.DB.Engine().String(), "data_dir", a.Config.DataDir,
		"max_conns", g.MaxConns, "max_conns_per_client", g.MaxPerClient)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.Log.Info("shutting down: draining in-flight requests")
	a.Events.Close() // job sockets get a "shutdown" close frame; Shutdown does not track them
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// RunWorkers develops queued jobs, builds queued packs and sends webhook
// deliveries until ctx ends,
// then lets in-flight renders finish (or returns them to the queue).
func (a *App) RunWorkers(ctx context.Context) error {
	a.keepHolds(ctx)
	a.Log.Info("workers running", "engine", a.Engine.Name(), "tools", a.Engine.Tools(), "concurrency", a.Config.Workers)
	var wg sync.WaitGroup
	var packErr, sweepErr, hookErr, deskErr error
	wg.Go(func() { packErr = a.Packs.Run(ctx) })
	wg.Go(func() { hookErr = a.Hooks.Run(ctx) })
	// Support screenshots older than SUPPORT_SHOT_RETENTION_DAYS go at start and then hourly.
	wg.Go(func() {
		deskErr = a.Desk.Run(ctx, time.Hour, func(n int, err error) {
			a.Log.Info("support screenshots removed", "count", n, "err", err)
		})
	})
	// Bytes a crash left without a row, and stale temporary files, go once
	// at start and then every STUDIO_SWEEP_EVERY.
	sweeper := sweep.New(a.DB, a.Blobs, sweep.Options{Grace: a.Config.SweepGrace, Every: a.Config.SweepEvery, Log: a.Log})
	wg.Go(func() { sweepErr = sweeper.Run(ctx) })
	// Referral rewards whose hold ended are credited at start and then hourly.
	wg.Go(func() { a.creditRewards(ctx, time.Hour) })
	// The analyst digest runs itself when its cadence is on and due, checked every 10 minutes.
	wg.Go(func() { a.runDigest(ctx, 10*time.Minute) })
	// Automatic top-ups a settle queued are charged within seconds.
	wg.Go(func() { a.Billing.RunAutocharges(ctx, 5*time.Second) })
	err := a.Pool.Run(ctx)
	wg.Wait()
	return errors.Join(err, packErr, sweepErr, hookErr, deskErr)
}

// keepHolds starts, once per process, the renewal of its holder's lease
// and the sweep of stranded holds (at start, then every STUDIO_JOB_LEASE).
func (a *App) keepHolds(ctx context.Context) {
	a.holdsOnce.Do(func() { go a.Holds.Run(ctx) })
}

// creditRewards credits the referral program's held host rewards whose
// hold ended, now and then every period, until ctx ends. Each reward is
// credited once however many instances run this.
func (a *App) creditRewards(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := a.DB.CreditDueRewards(ctx, time.Now()); err != nil && ctx.Err() == nil {
			a.Log.Warn("referral rewards", "err", err)
		} else if n > 0 {
			a.Log.Info("referral rewards credited", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runDigest computes the analyst digest whenever its cadence is enabled
// and the latest digest is as old as its hours, now and then every
// period, until ctx ends. One instance of many computes each due digest.
func (a *App) runDigest(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if ran, err := a.Digest.RunDue(ctx); err != nil && ctx.Err() == nil {
			a.Log.Warn("analyst digest", "err", err)
		} else if ran {
			a.Log.Info("analyst digest computed on its cadence")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// wakeOnDone tells the webhook senders of this process when a frame
// lands, so develop.done leaves at once rather than at their next poll.
type wakeOnDone struct {
	job.Notifier
	wake func()
}

func (w wakeOnDone) JobChanged(ctx context.Context, j job.Job) {
	w.Notifier.JobChanged(ctx, j)
	if j.Status == job.Done {
		w.wake()
	}
}

// openBlobs returns the blob store blobURL names: the disk store in
// <dataDir>/blobs when blobURL is empty, the S3 store for an s3:// URL (see
// s3.ParseURL), an error for anything else. The caller closes the store.
func openBlobs(ctx context.Context, blobURL, dataDir string) (blob.Store, error) {
	if blobURL == "" {
		if dataDir == "" {
			return nil, errors.New("blob: no BLOB_URL and no data dir")
		}
		return blob.NewDisk(filepath.Join(dataDir, "blobs"))
	}
	cfg, err := s3.ParseURL(blobURL)
	if err != nil {
		return nil, err
	}
	return s3.New(ctx, cfg)
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

// engines builds the develop engine: the local engine (with its lookbook
// tool) always, the image endpoint engine in front of it when
// AI_IMAGE_BASE_URL is set, and the fal engine in front of both when
// FAL_KEY is set: each tool runs on the first that can perform it.
func engines(cfg Config) (engine.Engine, *fal.Engine, error) {
	chain := []engine.Engine{local.New(), local.NewLookbook()}
	if cfg.AIImageBaseURL != "" {
		img, err := imageapi.New(cfg.AIImageBaseURL, cfg.AIImageAPIKey, cfg.AIImageModel)
		if err != nil {
			return nil, nil, err
		}
		chain = append([]engine.Engine{img}, chain...)
	}
	if cfg.FalKey == "" {
		return engine.Chain(chain...), nil, nil
	}
	f, err := fal.New(cfg.FalKey, cfg.FalURL)
	if err != nil {
		return nil, nil, err
	}
	return engine.Chain(append([]engine.Engine{f}, chain...)...), f, nil
}

// publicHost is the host of the public URL, for a default sender address.
func publicHost(public string) string {
	u, err := url.Parse(public)
	if err != nil || u.Hostname() == "" {
		return "localhost"
	}
	return u.Hostname()
}

// paymentProvider builds the provider BILLING_PROVIDER names (nil when
// unset). The local test provider signs with BILLING_WEBHOOK_SECRET, or with
// a secret generated once and kept in the data folder.
func paymentProvider(cfg Config, db *sqlstore.DB, now func() time.Time) (billing.Provider, error) {
	switch cfg.BillingProvider {
	case "":
		return nil, nil
	case billing.Local:
		secret := cfg.BillingWebhookSecret
		if secret == "" {
			var err error
			if secret, err = keptSecret(filepath.Join(cfg.DataDir, "billing-webhook-secret")); err != nil {
				return nil, fmt.Errorf("billing: %w", err)
			}
		}
		return billing.NewLocal(billing.LocalOptions{Secret: secret, PublicURL: cfg.PublicURL, ReturnURL: cfg.WebOrigin + "/account", WebOrigin: cfg.WebOrigin,
			Checkouts: func(ctx context.Context, id string) (billing.Checkout, error) {
				return db.CheckoutAt(ctx, billing.Local, id)
			},
			Now: now})
	case billing.Polar:
		return billing.NewPolar(billing.PolarOptions{AccessToken: cfg.PolarAccessToken, BaseURL: cfg.PolarURL,
			Products: cfg.PolarProducts, WebhookSecret: cfg.BillingWebhookSecret})
	}
	return nil, fmt.Errorf("billing: unknown provider %q", cfg.BillingProvider)
}

// providerPages are the pages a provider serves from this binary (the local
// test provider's checkout and portal); nil for none.
func providerPages(p billing.Provider) http.Handler {
	if l, ok := p.(*billing.LocalProvider); ok {
		return l.Pages()
	}
	return nil
}

// keptSecret reads a webhook secret from path, writing a fresh one there
// (readable by this user only) the first time.
func keptSecret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	s := sign.NewSecret()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another instance wrote it first
		return keptSecret(path)
	} else if err != nil {
		return "", err
	}
	_, err = f.WriteString(s + "\n")
	return s, errors.Join(err, f.Close())
}
