// Package app wires the service together from its configuration: the
// store, the blob store, the mailer, the services and the HTTP server.
// cmd/studio and the end-to-end tests build the same App.
package app

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the service (DECISIONS §9), read from the
// environment.
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
	SMTPURL     string
	FalURL      string        // fal's queue endpoint (tests point it at a local server)
	Workers     int           // jobs rendered at once by this process
	JobLease    time.Duration // how long a claimed job stays leased without a heartbeat
	WorkerPoll  time.Duration // how often an idle worker looks for work it was not woken for
}

// Setting documents one environment variable.
type Setting struct {
	Name, Default, Help string
}

// Settings lists every setting with its default, in the order `studio
// serve --help` prints them.
var Settings = []Setting{
	{"STUDIO_ADDR", ":8080", "listen address"},
	{"STUDIO_PUBLIC_URL", "http://localhost:8080", "the service's public base URL (origin of cookies and links)"},
	{"STUDIO_DATA_DIR", "./data", "folder of the SQLite file and the local blobs"},
	{"WEB_ORIGIN", "(the public URL)", "the web app's origin, trusted for cookie-authenticated writes"},
	{"STUDIO_ADMIN_EMAILS", "(none)", "comma list of platform administrators' e-mail addresses"},
	{"STUDIO_SIGNUP", "open", "open, or invite: after the first account, sign-up needs an invitation"},
	{"DATABASE_URL", "(SQLite in the data dir)", "postgres://... switches to PostgreSQL"},
	{"BLOB_URL", "(folder in the data dir)", "s3://bucket?endpoint=...&region=... switches to S3"},
	{"FAL_KEY", "(unset: local engine only)", "fal.ai key for the fal engine"},
	{"AI_BASE_URL", "(unset)", "OpenAI-compatible endpoint for text and vision lanes"},
	{"AI_API_KEY", "(unset)", "key for AI_BASE_URL"},
	{"AI_MODEL", "(unset)", "model name at AI_BASE_URL"},
	{"SMTP_URL", "(unset: console mailer)", "smtp://user:pass@host:587?from=studio@example.com"},
	{"FAL_URL", "https://queue.fal.run", "fal's queue endpoint"},
	{"STUDIO_WORKERS", "2", "jobs this process renders at once"},
	{"STUDIO_JOB_LEASE", "30s", "how long a claimed job stays leased without a heartbeat; a crashed worker's jobs return after it"},
	{"STUDIO_WORKER_POLL", "1s", "how often an idle worker looks for work; submits wake workers at once (on PostgreSQL across instances)"},
}

// Load reads the configuration through getenv and checks it.
func Load(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Addr:        get("STUDIO_ADDR", ":8080"),
		PublicURL:   strings.TrimRight(get("STUDIO_PUBLIC_URL", "http://localhost:8080"), "/"),
		DataDir:     get("STUDIO_DATA_DIR", "./data"),
		Signup:      get("STUDIO_SIGNUP", "open"),
		DatabaseURL: get("DATABASE_URL", ""),
		BlobURL:     get("BLOB_URL", ""),
		FalKey:      get("FAL_KEY", ""),
		AIBaseURL:   get("AI_BASE_URL", ""),
		AIAPIKey:    get("AI_API_KEY", ""),
		AIModel:     get("AI_MODEL", ""),
		SMTPURL:     get("SMTP_URL", ""),
		FalURL:      get("FAL_URL", ""),
	}
	var err error
	if c.Workers, err = strconv.Atoi(get("STUDIO_WORKERS", "2")); err != nil || c.Workers < 1 || c.Workers > 64 {
		return Config{}, fmt.Errorf("STUDIO_WORKERS must be a whole number from 1 to 64")
	}
	if c.JobLease, err = time.ParseDuration(get("STUDIO_JOB_LEASE", "30s")); err != nil || c.JobLease < 100*time.Millisecond {
		return Config{}, fmt.Errorf("STUDIO_JOB_LEASE must be a duration of at least 100ms, such as 30s")
	}
	if c.WorkerPoll, err = time.ParseDuration(get("STUDIO_WORKER_POLL", "1s")); err != nil || c.WorkerPoll < 10*time.Millisecond {
		return Config{}, fmt.Errorf("STUDIO_WORKER_POLL must be a duration of at least 10ms, such as 1s")
	}
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, fmt.Errorf("STUDIO_PUBLIC_URL must be an http(s) URL, got %q", c.PublicURL)
	}
	c.WebOrigin = strings.TrimRight(get("WEB_ORIGIN", origin(u)), "/")
	for _, e := range strings.Split(getenv("STUDIO_ADMIN_EMAILS"), ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			c.AdminEmails = append(c.AdminEmails, e)
		}
	}
	if c.Signup != "open" && c.Signup != "invite" {
		return Config{}, fmt.Errorf("STUDIO_SIGNUP must be open or invite, got %q", c.Signup)
	}
	return c, nil
}

// PublicOrigin is the scheme://host[:port] of the public URL.
func (c Config) PublicOrigin() string {
	u, _ := url.Parse(c.PublicURL)
	return origin(u)
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }
