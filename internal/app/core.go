package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai/openai"
	"studio/internal/asset"
	"studio/internal/billing"
	"studio/internal/blob"
	"studio/internal/blob/s3"
	"studio/internal/brand"
	"studio/internal/digest"
	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fashn"
	"studio/internal/engine/imageapi"
	"studio/internal/engine/local"
	"studio/internal/events"
	"studio/internal/httpapi"
	"studio/internal/imagemem"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/ledger"
	"studio/internal/mail"
	"studio/internal/memory"
	"studio/internal/metrics"
	"studio/internal/pack"
	"studio/internal/sqlstore"
	"studio/internal/support"
	"studio/internal/sweep"
	"studio/internal/tool"
	"studio/internal/webhook"
	"studio/internal/webhook/sign"
)

// Core is what every role of a process shares: the store, the blob store,
// the events publisher, the mailer, the engines, and the services both the
// API and the workers call. NewAPI and NewWorker build their roles on it; a
// process builds only the roles it runs.
type Core struct {
	Config  Config
	DB      *sqlstore.DB
	Blobs   blob.Store
	Events  *events.Broker  // publish committed changes here, after commit
	Relay   *events.PGRelay // on PostgreSQL: Notify inside the committing transaction; nil on SQLite
	Engine  engine.Engine   // what submits are checked against and the workers develop with
	Jobs    *job.Service
	Judge   *judge.Service   // verdicts, redraws, takes, standing notes, opinions; JudgeNext is the judging step
	Packs   *pack.Service    // batch downloads; its builder runs in the worker role
	Hooks   *webhook.Service // outbound webhook endpoints; its senders run in the worker role
	Desk    *support.Service // the help desk; its screenshot sweep runs in the worker role
	Digest  *digest.Service  // the operators' analyst digest; its automatic run ticks in the worker role
	Billing *billing.Service // money; the automatic top-ups a settle queued are charged in the worker role
	Log     *slog.Logger
	// Holds keeps this process's holder lease and voids stranded holds;
	// API.Serve and Worker.Run start it once (keepHolds).
	Holds     *sweep.Holds
	holdsOnce sync.Once
	// Metrics is the process's Prometheus registry and the series its
	// parts feed; the API serves it at /metrics when METRICS_TOKEN is set.
	Metrics *metrics.Metrics

	opts       Options
	now        func() time.Time
	prices     ledger.Prices    // one live price table: the catalog, quotes, holds and charges all read it
	decoding   *imagemem.Budget // one budget of decoded pixels for the process
	ai         *openai.Client
	classifier asset.Classifier // nil: classify=1 leaves uploads unclassified and free
	fal        *fal.Engine      // nil unless FAL_KEY is set
	pay        billing.Provider // nil unless BILLING_PROVIDER is set
	assets     *asset.Service
	pub        events.Publisher
	sender     mail.Sender // the letters: sign-up, seats, shares, the help desk's replies
	memories   *memory.Service
	brands     *brand.Service
	// workers is this process's worker pool once NewWorker built one: a
	// submit, a chained pipeline step or another instance's event wakes it.
	workers atomic.Pointer[func()]
}

// NewCore opens the store (applying its migrations) and the blob store and
// builds the shared services. Close releases them.
func NewCore(ctx context.Context, cfg Config, log *slog.Logger, opts Options) (*Core, error) {
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
		return nil, errors.Join(err, db.Close())
	}
	blobs, err := openBlobs(ctx, cfg.BlobURL, cfg.DataDir)
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	c := &Core{Config: cfg, DB: db, Blobs: blobs, Log: log, Holds: holds, opts: opts, now: now,
		decoding: imagemem.New(cfg.DecodeMB << 20)}
	if err := c.build(ctx); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// build wires the shared services on the opened stores.
func (c *Core) build(ctx context.Context) error {
	cfg, db, log, now := c.Config, c.DB, c.Log, c.now
	var err error
	// The engines first: the live price table is the default one with each
	// tool at the price of the engine that serves it (a local look frame is
	// a proof, DECISIONS §11), and every service below reads that table.
	if c.Engine, c.fal, err = engines(cfg, c.opts.LocalEngine); err != nil {
		return err
	}
	c.prices = engine.Prices(c.Engine, tool.DefaultPrices())
	c.Events = events.NewBroker(events.Options{})
	c.Metrics = metrics.New(metrics.Options{Version: Version, Snapshot: db.MetricsSnapshot, Pool: db.Pool(),
		Sockets: c.Events.Subscribers, Now: now, Log: log})
	if c.sender, err = mailer(cfg, c); err != nil {
		return err
	}
	// One client of the AI endpoint: DNA reads, the AI lanes and upload classification.
	c.ai = openai.New(openai.Config{BaseURL: cfg.AIBaseURL, APIKey: cfg.AIAPIKey, Model: cfg.AIModel})
	if cfg.AIBaseURL != "" {
		c.classifier = &asset.VisionClassifier{AI: c.ai} // describe-item reads with it too
	}
	c.assets = asset.NewService(db, asset.Options{
		Blobs: c.Blobs, Ledger: db, Prices: c.prices, Classifier: c.classifier, Calls: db, Decoding: c.decoding,
		Fetch: c.opts.FetchGuard, Now: now, Log: log,
	})
	if cfg.DatabaseURL != "" {
		// Several instances share PostgreSQL: relay events between them.
		// Another instance's event wakes this one's workers: a job may be queued.
		c.Relay, err = events.NewPGRelay(ctx, cfg.DatabaseURL, c.Events, log,
			events.RelayOptions{Fetch: job.MessageAt(db), OnNotify: func(string) { c.wakeWorkers() }, Replay: db.EventsSince})
		if err != nil {
			return err
		}
	}
	// The events of a house's changes leave with the transaction that
	// takes their eventSeq, in seq order: on PostgreSQL as a NOTIFY that
	// every instance's relay delivers, this one's too; on SQLite straight
	// to the broker after the commit.
	if c.Relay != nil {
		db.OnEvents(sqlstore.EventSink{Notify: func(ctx context.Context, tx *sql.Tx, house string, seq int64, msg []byte) error {
			return c.Relay.Notify(ctx, tx, house, seq, msg)
		}})
	} else {
		db.OnEvents(sqlstore.EventSink{Publish: c.Events.Publish})
	}
	c.pub = events.Publisher{Broker: c.Events, Relay: c.Relay, DB: db.Pool(), Log: log}
	c.Jobs = job.NewService(db, c.assets, c.Engine, c.prices, now)
	c.Packs = pack.NewService(db, c.Blobs, pack.Options{Decoding: c.decoding, Now: now, Log: log})
	c.Hooks = webhook.NewService(db, webhook.Options{Guard: c.opts.WebhookGuard, Now: now, Log: log, Attempted: c.Metrics.WebhookAttempt})
	var vision judge.Looker // nil: the local pixel judge alone
	if v := judge.NewVision(c.ai); v != nil {
		vision = v
	}
	c.Judge = judge.NewService(db, c.Jobs, c.Blobs, vision, c.prices,
		judge.Options{Decoding: c.decoding, Calls: db, Now: now, Log: log})
	shotKey, err := db.ServiceSecret(ctx, "support-shot-links")
	if err != nil {
		return err
	}
	c.Desk = support.NewService(db, support.Options{Blobs: c.Blobs, Retention: time.Duration(cfg.ShotDays) * 24 * time.Hour,
		LinkSecret: shotKey, BridgeSecret: cfg.BridgeSecret, PublicURL: cfg.PublicURL, Mailer: c.sender, Now: now})
	c.memories = memory.NewService(db, now)
	c.brands = brand.NewService(db, brand.Options{AI: c.ai, Ledger: db, Calls: db, Decoding: c.decoding, Now: now, Log: log})
	c.Digest = digest.NewService(db, c.ai, now)
	if c.pay, err = paymentProvider(cfg, db, now); err != nil {
		return err
	}
	c.Billing = billing.NewService(db, c.pay, billing.Options{Prices: c.prices, WebOrigin: cfg.WebOrigin, Now: now, Log: log})
	// A pipeline step that landed queued the next one in the same
	// transaction (its event left with it): wake the workers for it.
	db.OnChained(func(context.Context, job.Job) { c.wakeWorkers() })
	return nil
}

// wakeWorkers tells this process's workers, if it runs any, that a job
// may be waiting.
func (c *Core) wakeWorkers() {
	if wake := c.workers.Load(); wake != nil {
		(*wake)()
	}
}

// Ready is the process's readiness (GET /ready): the database answers with
// every embedded migration applied, and the blob store answers (a missing
// probe key is an answer). A failure is an *httpapi.NotReady naming the part.
func (c *Core) Ready(ctx context.Context) error {
	if err := c.DB.Ready(ctx); errors.Is(err, sqlstore.ErrPending) {
		return &httpapi.NotReady{Part: "migrations", Err: err}
	} else if err != nil {
		return &httpapi.NotReady{Part: "database", Err: err}
	}
	if _, err := c.Blobs.Stat(ctx, "ready/probe"); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return &httpapi.NotReady{Part: "blobs", Err: err}
	}
	return nil
}

// keepHolds starts, once per process, the renewal of its holder's lease
// and the sweep of stranded holds (at start, then every STUDIO_JOB_LEASE).
func (c *Core) keepHolds(ctx context.Context) {
	c.holdsOnce.Do(func() { go c.Holds.Run(ctx) })
}

// Close ends the job sockets and releases the event relay, the database
// and the blob store.
func (c *Core) Close() error {
	if c.Events != nil {
		c.Events.Close()
	}
	return errors.Join(c.Relay.Close(), c.DB.Close(), c.Blobs.Close())
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

// DefaultEngineOrder is ENGINE_ORDER's default (DECISIONS §11): among the
// configured engines that can perform a tool, FASHN first, then fal, the
// image endpoint, the local engine.
var DefaultEngineOrder = []string{tool.Fashn, tool.Fal, tool.ImageAPI, tool.Local}

// parseEngineOrder reads ENGINE_ORDER: engine names, comma-separated, each
// once. An engine it leaves out keeps its default place after the named
// ones, so the local engine always ends the chain somewhere.
func parseEngineOrder(v string) ([]string, error) {
	var order []string
	for _, name := range strings.Split(v, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case !slices.Contains(DefaultEngineOrder, name):
			return nil, fmt.Errorf("names %q, which is not an engine (%s)", name, strings.Join(DefaultEngineOrder, ", "))
		case slices.Contains(order, name):
			return nil, fmt.Errorf("names %s twice", name)
		}
		order = append(order, name)
	}
	for _, name := range DefaultEngineOrder {
		if !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	return order, nil
}

// engines builds the develop engine: the local engine (with its lookbook
// tool) always, the image endpoint engine when AI_IMAGE_BASE_URL is set,
// the fal engine when FAL_KEY is set and the FASHN engine when
// FASHN_API_KEY is set, chained in ENGINE_ORDER: each tool runs on the
// first that can perform it. With fal, the image endpoint's answers
// smaller than a frame go through fal's upscale model (its Enlarge). wrapLocal, when not nil, wraps each local
// engine (Options.LocalEngine).
func engines(cfg Config, wrapLocal func(engine.Engine) engine.Engine) (engine.Engine, *fal.Engine, error) {
	locals := []engine.Engine{local.New(), local.NewLookbook()}
	if wrapLocal != nil {
		for i, e := range locals {
			locals[i] = wrapLocal(e)
		}
	}
	built := map[string][]engine.Engine{tool.Local: locals}
	var img *imageapi.Engine
	if cfg.AIImageBaseURL != "" {
		var err error
		if img, err = imageapi.New(cfg.AIImageBaseURL, cfg.AIImageAPIKey, cfg.AIImageModel); err != nil {
			return nil, nil, err
		}
		built[tool.ImageAPI] = []engine.Engine{img}
	}
	var f *fal.Engine
	if cfg.FalKey != "" {
		var err error
		if f, err = fal.New(cfg.FalKey, cfg.FalURL); err != nil {
			return nil, nil, err
		}
		built[tool.Fal] = []engine.Engine{f}
	}
	if cfg.FashnKey != "" {
		fa, err := fashn.New(cfg.FashnKey, cfg.FashnURL)
		if err != nil {
			return nil, nil, err
		}
		built[tool.Fashn] = []engine.Engine{fa}
	}
	if img != nil && f != nil && f.Can("upscale") {
		// The image endpoint answers at most 1536 px: with fal there, a
		// larger frame goes through fal's upscale model (issue 27).
		img.SetEnlarger(f)
	}
	order := cfg.EngineOrder
	if len(order) == 0 {
		order = DefaultEngineOrder
	}
	var chain []engine.Engine
	for _, name := range order {
		chain = append(chain, built[name]...)
	}
	return engine.Chain(chain...), f, nil
}

// mailer builds the sender of letters: the test's, Resend, SMTP, or the
// console (letters are kept in the email log either way). The test's tap,
// when set, sees every letter the mailer delivered.
func mailer(cfg Config, core *Core) (mail.Sender, error) {
	db, now := core.DB, core.now
	if core.opts.MailerFunc != nil {
		return core.opts.MailerFunc(db), nil
	}
	m := &mail.Mailer{T: mail.Console{Logger: core.Log}, Log: db, Now: now, Tap: core.opts.MailTap, Sent: core.Metrics.EmailSent}
	switch {
	case cfg.ResendAPIKey != "":
		from := cfg.ResendFrom
		if from == "" {
			from = "Studio <studio@" + publicHost(cfg.PublicURL) + ">"
		}
		t, err := mail.NewResend(cfg.ResendAPIKey, from, cfg.ResendURL)
		if err != nil {
			return nil, err
		}
		m.T = t
	case cfg.SMTPURL != "":
		t, err := mail.NewSMTP(cfg.SMTPURL)
		if err != nil {
			return nil, err
		}
		m.T = t
	}
	return m, nil
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
