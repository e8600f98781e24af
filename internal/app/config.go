// Package app wires the service together from its configuration, one
// builder per role of a process: NewCore (the store, the blob store, the
// events, the mailer and the shared services), NewAPI (the request-only
// services, the HTTP server and the console) and NewWorker (the claim loop
// and the loops beside it). cmd/studio composes the roles a command runs; New
// builds them all, as `studio serve` runs and the end-to-end tests use.
package app

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"studio/internal/billing"
	"studio/internal/engine/fal"
	"studio/internal/engine/fashn"
	"studio/internal/httpguard"
)

// Config is every setting of the service (DECISIONS §9), read from the
// environment by Load through the Settings table.
type Config struct {
	Addr        string
	PublicURL   string
	DataDir     string
	WebOrigin   string
	AdminEmails []string
	Signup      string // open | invite
	DatabaseURL string
	BlobURL     string
	FalKey      string
	AIBaseURL   string
	AIAPIKey    string
	AIModel     string
	// AI_IMAGE_*: an OpenAI-compatible image edit endpoint, the second
	// provider of the generative tools (package imageapi).
	AIImageBaseURL, AIImageAPIKey, AIImageModel string
	SMTPURL                                     string
	FalURL                                      string            // fal's queue endpoint (tests point it at a local server)
	FashnKey                                    string            // FASHN_API_KEY: FASHN's prediction API (DECISIONS §11)
	FashnURL                                    string            // FASHN_URL: its base, without /v1 (tests point it at a local server)
	EngineOrder                                 []string          // ENGINE_ORDER: which configured engine serves a tool several can
	Workers                                     int               // jobs rendered at once by this process
	JobLease                                    time.Duration     // how long a claimed job stays leased without a heartbeat
	RenderDeadline                              time.Duration     // STUDIO_RENDER_DEADLINE: how long a claimed develop may render before it fails with PROVIDER_TIMEOUT
	WorkerPoll                                  time.Duration     // how often an idle worker looks for work it was not woken for
	Guard                                       httpguard.Options // deadlines and connection caps of the HTTP server
	DecodeMB                                    int64             // memory for decoded images in flight, in MiB (uploads, develops, packs)
	SweepEvery                                  time.Duration     // how often the workers remove orphaned blobs and stale temporary files
	SweepGrace                                  time.Duration     // how old an unreferenced blob or temporary file must be to go
	BridgeSecret                                string            // SUPPORT_BRIDGE_SECRET: the support bridge's shared secret; unset, escalations answer 503
	ShotDays                                    int               // SUPPORT_SHOT_RETENTION_DAYS: how long support screenshots are kept
	ResendAPIKey                                string            // RESEND_API_KEY: letters go through Resend's HTTP API
	ResendFrom                                  string            // RESEND_FROM: the sender of letters sent through Resend
	ResendURL                                   string            // RESEND_URL: Resend's API (tests point it at a local stand-in)
	DripSecret                                  string            // DRIP_SECRET: bearer of the drip route; unset, it answers 503
	EmailHook                                   string            // EMAIL_WEBHOOK_SECRET: verifies the e-mail provider's deliveries; unset, 503
	AnalystToken                                string            // ANALYST_TOKEN: bearer of the internal analyst routes; unset, they answer 401
	MetricsToken                                string            // METRICS_TOKEN: bearer of GET /metrics; unset, /metrics is 404
	MetricsAddr                                 string            // METRICS_ADDR: where `studio worker` serves GET /metrics; unset, nowhere
	AnalystActionToken                          string            // ANALYST_ACTION_TOKEN: bearer of the analyst's approval; unset, it answers 401
	// Money (DECISIONS §10): the payment provider ("" none, local, polar)
	// and the secret its deliveries are signed with.
	BillingProvider      string
	BillingWebhookSecret string
	PolarAccessToken     string
	PolarURL             string
	PolarProducts        map[string]string // POLAR_PRODUCTS: what is sold -> Polar product id

	// publicFollows is set when STUDIO_PUBLIC_URL is unset and the public
	// URL follows STUDIO_ADDR; webFollows when WEB_ORIGIN is unset and
	// follows the public URL (Listening).
	publicFollows, webFollows bool
}

// Setting is one environment variable: its name, the default Load uses
// when it is unset or blank, what `studio serve --help` says of it, and how
// it is read into a Config.
type Setting struct {
	Name    string
	Default string // the value used when the variable is unset or blank
	// Shown is what --help prints as the default when Default is empty
	// ("(SQLite in the data dir)"); empty means Default itself.
	Shown string
	Help  string
	set   func(c *Config, v string) error
}

// ShownDefault is the default as `studio serve --help` prints it.
func (s Setting) ShownDefault() string {
	if s.Shown != "" {
		return s.Shown
	}
	return s.Default
}

// Settings is the one table of settings, in the order `studio serve --help`
// prints them and Load reads them (WEB_ORIGIN after STUDIO_PUBLIC_URL, whose
// origin is its default).
var Settings = []Setting{
	{Name: "STUDIO_ADDR", Default: ":8080", Help: "listen address, host:port or :port",
		set: setAddr},
	{Name: "STUDIO_PUBLIC_URL", Shown: "(http://localhost and STUDIO_ADDR's port: http://localhost:8080)",
		Help: "the service's public base URL (origin of cookies and links)", set: setPublicURL},
	{Name: "STUDIO_DATA_DIR", Default: "./data", Help: "folder of the SQLite file and the local blobs",
		set: func(c *Config, v string) error { c.DataDir = v; return nil }},
	{Name: "WEB_ORIGIN", Shown: "(the public URL's origin)", Help: "the web app's origin, trusted for cookie-authenticated writes",
		set: func(c *Config, v string) error {
			c.webFollows = v == ""
			if v == "" {
				v = c.PublicOrigin()
			}
			c.WebOrigin = strings.TrimRight(v, "/")
			return nil
		}},
	{Name: "STUDIO_ADMIN_EMAILS", Shown: "(none)", Help: "comma list of platform administrators' e-mail addresses",
		set: func(c *Config, v string) error {
			for e := range strings.SplitSeq(v, ",") {
				if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
					c.AdminEmails = append(c.AdminEmails, e)
				}
			}
			return nil
		}},
	{Name: "STUDIO_SIGNUP", Default: "open", Help: "open, or invite: after the first account, sign-up needs an invitation",
		set: func(c *Config, v string) error {
			if v != "open" && v != "invite" {
				return fmt.Errorf("must be open or invite, got %q", v)
			}
			c.Signup = v
			return nil
		}},
	{Name: "DATABASE_URL", Shown: "(SQLite in the data dir)", Help: "postgres://... switches to PostgreSQL",
		set: func(c *Config, v string) error { c.DatabaseURL = v; return nil }},
	{Name: "BLOB_URL", Shown: "(folder in the data dir)", Help: "s3://bucket?endpoint=...&region=... switches to S3",
		set: func(c *Config, v string) error { c.BlobURL = v; return nil }},
	{Name: "FAL_KEY", Shown: "(unset: local engine only)", Help: "fal.ai key for the fal engine",
		set: func(c *Config, v string) error { c.FalKey = v; return nil }},
	{Name: "AI_BASE_URL", Shown: "(unset)", Help: "OpenAI-compatible endpoint for text and vision lanes",
		set: func(c *Config, v string) error { c.AIBaseURL = v; return nil }},
	{Name: "AI_API_KEY", Shown: "(unset)", Help: "key for AI_BASE_URL",
		set: func(c *Config, v string) error { c.AIAPIKey = v; return nil }},
	{Name: "AI_MODEL", Shown: "(unset)", Help: "model name at AI_BASE_URL",
		set: func(c *Config, v string) error { c.AIModel = v; return nil }},
	{Name: "AI_IMAGE_BASE_URL", Shown: "(unset)", Help: "OpenAI-compatible image endpoint (POST /v1/images/edits) for look frames and generate-character when fal is not configured, e.g. https://api.openai.com",
		set: func(c *Config, v string) error { c.AIImageBaseURL = v; return nil }},
	{Name: "AI_IMAGE_API_KEY", Shown: "(unset)", Help: "key for AI_IMAGE_BASE_URL",
		set: func(c *Config, v string) error { c.AIImageAPIKey = v; return nil }},
	{Name: "AI_IMAGE_MODEL", Default: "gpt-image-1", Help: "image model name at AI_IMAGE_BASE_URL",
		set: func(c *Config, v string) error { c.AIImageModel = v; return nil }},
	{Name: "SMTP_URL", Shown: "(unset: console mailer)", Help: "smtp://user:pass@host:587?from=studio@example.com",
		set: func(c *Config, v string) error { c.SMTPURL = v; return nil }},
	{Name: "FAL_URL", Default: fal.DefaultBaseURL, Help: "fal's queue endpoint",
		set: func(c *Config, v string) error { c.FalURL = v; return nil }},
	{Name: "FASHN_API_KEY", Shown: "(unset)", Help: "FASHN key for the FASHN engine (try-on, look frames, generate-character, background removal, reframe, edits)",
		set: func(c *Config, v string) error { c.FashnKey = v; return nil }},
	{Name: "FASHN_URL", Default: fashn.DefaultBaseURL, Help: "FASHN's API, without /v1",
		set: func(c *Config, v string) error { c.FashnURL = v; return nil }},
	{Name: "ENGINE_ORDER", Default: strings.Join(DefaultEngineOrder, ","), Help: "the order in which configured engines are chosen for a tool several can perform (fashn, fal, image-api, local)",
		set: func(c *Config, v string) error {
			order, err := parseEngineOrder(v)
			c.EngineOrder = order
			return err
		}},
	{Name: "BILLING_PROVIDER", Shown: "(unset: money routes answer 503)", Help: "payment provider: local (the built-in test provider, test mode) or polar",
		set: func(c *Config, v string) error {
			if v != "" && v != "local" && v != "polar" {
				return fmt.Errorf("must be local or polar, got %q", v)
			}
			c.BillingProvider = v
			return nil
		}},
	{Name: "BILLING_WEBHOOK_SECRET", Shown: "(local: generated in the data dir; polar: unset refuses every delivery)", Help: "the secret the payment provider signs its deliveries with (Standard Webhooks)",
		set: func(c *Config, v string) error { c.BillingWebhookSecret = v; return nil }},
	{Name: "POLAR_ACCESS_TOKEN", Shown: "(unset)", Help: "Polar organization access token (BILLING_PROVIDER=polar)",
		set: func(c *Config, v string) error { c.PolarAccessToken = v; return nil }},
	{Name: "POLAR_SERVER_URL", Default: "https://api.polar.sh", Help: "Polar's API (its sandbox: https://sandbox-api.polar.sh)",
		set: func(c *Config, v string) error { c.PolarURL = v; return nil }},
	{Name: "POLAR_PRODUCTS", Shown: "(unset)", Help: "Polar product ids: pack-100=...,pack-500=...,pack-2000=...,studio=...,atelier=...,maison=...,custom=... (custom: a custom-priced product)",
		set: func(c *Config, v string) (err error) { c.PolarProducts, err = billing.ParseProducts(v); return err }},
	{Name: "STUDIO_WORKERS", Default: "2", Help: "jobs this process renders at once (1 to 64)",
		set: func(c *Config, v string) (err error) { c.Workers, err = wholeNumber(v, 1, 64); return err }},
	{Name: "STUDIO_JOB_LEASE", Default: "30s", Help: "how long a claimed job stays leased without a heartbeat; a crashed worker's jobs return after it",
		set: func(c *Config, v string) (err error) { c.JobLease, err = duration(v, 100*time.Millisecond); return err }},
	{Name: "STUDIO_RENDER_DEADLINE", Default: "10m", Help: "how long a claimed develop may render (from its first claim) before it fails with PROVIDER_TIMEOUT, its hold voided and its provider told to cancel; a tool may declare a longer one (video)",
		set: func(c *Config, v string) (err error) { c.RenderDeadline, err = duration(v, time.Second); return err }},
	{Name: "STUDIO_WORKER_POLL", Default: "1s", Help: "how often an idle worker looks for work; submits wake workers at once (on PostgreSQL across instances)",
		set: func(c *Config, v string) (err error) {
			c.WorkerPoll, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_DECODE_BUDGET_MB", Default: "1024", Help: "memory for decoded images in flight (uploads, develops, packs); an image needing more than all of it is refused (16 to 1048576)",
		set: func(c *Config, v string) error {
			n, err := wholeNumber(v, 16, 1<<20)
			c.DecodeMB = int64(n)
			return err
		}},
	{Name: "RESEND_API_KEY", Shown: "(unset)", Help: "Resend API key: letters go through Resend's HTTP API (before SMTP_URL), which records each letter's id",
		set: func(c *Config, v string) error { c.ResendAPIKey = v; return nil }},
	{Name: "RESEND_FROM", Shown: "(studio@ the public host)", Help: "the sender of letters sent through Resend, e.g. Studio <studio@example.com>",
		set: func(c *Config, v string) error { c.ResendFrom = v; return nil }},
	{Name: "RESEND_URL", Default: "https://api.resend.com/", Help: "Resend's API",
		set: func(c *Config, v string) error { c.ResendURL = v; return nil }},
	{Name: "DRIP_SECRET", Shown: "(unset: the drip route answers 503)", Help: "bearer token of POST /api/toolkit/email/drip",
		set: func(c *Config, v string) error { c.DripSecret = v; return nil }},
	{Name: "METRICS_TOKEN", Shown: "(unset: /metrics answers 404)", Help: "bearer token of GET /metrics (Prometheus text format)",
		set: func(c *Config, v string) error { c.MetricsToken = v; return nil }},
	{Name: "METRICS_ADDR", Shown: "(unset: a worker serves no /metrics)", Help: "host:port on which `studio worker` serves GET /metrics behind METRICS_TOKEN (an API instance serves it on STUDIO_ADDR)",
		set: func(c *Config, v string) error { c.MetricsAddr = v; return nil }},
	{Name: "ANALYST_TOKEN", Shown: "(unset: the analyst routes answer 401)", Help: "bearer token of the internal analyst routes /api/internal/analyst/* (reads, research, summarize)",
		set: func(c *Config, v string) error { c.AnalystToken = v; return nil }},
	{Name: "ANALYST_ACTION_TOKEN", Shown: "(unset: the analyst's approval answers 401)", Help: "bearer token of the analyst's approval of an applicant; keep it apart from ANALYST_TOKEN",
		set: func(c *Config, v string) error { c.AnalystActionToken = v; return nil }},
	{Name: "EMAIL_WEBHOOK_SECRET", Shown: "(unset: the delivery webhook answers 503)", Help: "whsec_... secret of the e-mail provider's delivery webhook (Standard Webhooks)",
		set: func(c *Config, v string) error { c.EmailHook = v; return nil }},
	{Name: "SUPPORT_BRIDGE_SECRET", Shown: "(unset: escalations answer 503)", Help: "shared secret the support bridge sends in x-support-bridge-secret",
		set: func(c *Config, v string) error { c.BridgeSecret = v; return nil }},
	{Name: "SUPPORT_SHOT_RETENTION_DAYS", Default: "30", Help: "days support screenshots are kept before the workers remove them (1 to 3650)",
		set: func(c *Config, v string) (err error) { c.ShotDays, err = wholeNumber(v, 1, 3650); return err }},
	{Name: "STUDIO_SWEEP_EVERY", Default: "1h", Help: "how often the workers remove blobs no row refers to and stale temporary files (also once at start)",
		set: func(c *Config, v string) (err error) { c.SweepEvery, err = duration(v, time.Second); return err }},
	{Name: "STUDIO_SWEEP_GRACE", Default: "1h", Help: "how old an unreferenced blob or temporary file must be before a sweep removes it",
		set: func(c *Config, v string) (err error) { c.SweepGrace, err = duration(v, time.Second); return err }},
	{Name: "STUDIO_HEADER_TIMEOUT", Default: "5s", Help: "time a client has to send a request's headers",
		set: func(c *Config, v string) (err error) {
			c.Guard.HeaderTimeout, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_BODY_TIMEOUT", Default: "30s", Help: "time a client has to send a request body (JSON and other non-multipart bodies)",
		set: func(c *Config, v string) (err error) {
			c.Guard.BodyTimeout, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_UPLOAD_TIMEOUT", Default: "5m", Help: "time a client has to send a multipart body (uploads and submits of up to 12 MB an image)",
		set: func(c *Config, v string) (err error) {
			c.Guard.UploadTimeout, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_WRITE_TIMEOUT", Default: "60s", Help: "time each write of an answer may wait for a client that does not read",
		set: func(c *Config, v string) (err error) {
			c.Guard.WriteTimeout, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_IDLE_TIMEOUT", Default: "60s", Help: "time a keep-alive connection may stay idle between requests",
		set: func(c *Config, v string) (err error) {
			c.Guard.IdleTimeout, err = duration(v, 10*time.Millisecond)
			return err
		}},
	{Name: "STUDIO_MAX_CONNS", Shown: "(half the open-file limit)", Help: "connections open at once; when full, the one waiting longest for its client is closed",
		set: func(c *Config, v string) (err error) {
			if v != "" {
				c.Guard.MaxConns, err = wholeNumber(v, 1, 10_000_000)
			}
			return err
		}},
	{Name: "STUDIO_MAX_CONNS_PER_CLIENT", Default: "256", Help: "connections open at once from one client address (IPv6: a /64); 0 for no cap (behind a proxy)",
		set: func(c *Config, v string) error {
			n, err := wholeNumber(v, 0, 10_000_000)
			c.Guard.MaxPerClient = n
			if n == 0 {
				c.Guard.MaxPerClient = -1 // httpguard: negative is no cap
			}
			return err
		}},
}

// Load reads the configuration through getenv and checks it: every
// setting of the table, its default when unset or blank.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	for _, s := range Settings {
		v := strings.TrimSpace(getenv(s.Name))
		if v == "" {
			v = s.Default
		}
		if err := s.set(&c, v); err != nil {
			return Config{}, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return c, nil
}

// setAddr takes a listen address net.Listen accepts: an optional host
// and a port number (0 lets the system choose one).
func setAddr(c *Config, v string) error {
	_, port, err := net.SplitHostPort(v)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return fmt.Errorf("must be host:port or :port, such as 127.0.0.1:8080 or :8080; got %q", v)
	}
	c.Addr = v
	return nil
}

// setPublicURL reads STUDIO_PUBLIC_URL; unset, it follows the listen
// address, so that a service moved to another port still recognises its
// own pages' Origin.
func setPublicURL(c *Config, v string) error {
	c.publicFollows = v == ""
	if v == "" {
		v = addrURL(c.Addr)
	}
	v = strings.TrimRight(v, "/")
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http(s) URL, got %q", v)
	}
	c.PublicURL = v
	return nil
}

func wholeNumber(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d, got %q", lo, hi, v)
	}
	return n, nil
}

func duration(v string, least time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < least {
		return 0, fmt.Errorf("must be a duration of at least %v, such as 30s; got %q", least, v)
	}
	return d, nil
}

// addrURL is the http URL a listen address is reached at: localhost (as
// the README's tour writes it) for a loopback address or every interface,
// else the address's host.
func addrURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsUnspecified() || ip.IsLoopback())) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// Listening makes a public URL that follows the listen address (and a web
// origin that follows it) name the address ln bound: the port the system
// chose for STUDIO_ADDR=host:0.
func (c *Config) Listening(bound net.Addr) {
	if !c.publicFollows {
		return
	}
	host, _, _ := net.SplitHostPort(c.Addr)
	_, port, _ := net.SplitHostPort(bound.String())
	c.PublicURL = addrURL(net.JoinHostPort(host, port))
	if c.webFollows {
		c.WebOrigin = c.PublicOrigin()
	}
}

// PublicOrigin is the scheme://host[:port] of the public URL.
func (c Config) PublicOrigin() string {
	u, _ := url.Parse(c.PublicURL)
	return u.Scheme + "://" + u.Host
}
