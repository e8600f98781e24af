package app

import (
	"context"
	"log/slog"
	"time"

	"studio/internal/account"
	"studio/internal/engine"
	"studio/internal/mail"
	"studio/internal/urlguard"
)

// Version is the service's version, reported by `studio version`.
const Version = "1.0.0"

// App is every role in one process: the shared core, the HTTP face and the
// workers, as `studio serve` runs by default and the end-to-end tests
// build it. cmd/studio composes a process's roles itself (NewCore, NewAPI,
// NewWorker) and builds only those it runs.
type App struct {
	*Core
	*API
	*Worker
}

// Options adjust what the builders build; the zero value is production.
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
	// FetchGuard is the URL guard images named by URL (MCP upload_asset)
	// are fetched through; nil builds the production one (asset.FetchGuard).
	FetchGuard *urlguard.Guard
	// LocalEngine, when set, wraps each local engine (the tools' and the
	// lookbook's) before they are chained. Tests use it (apptest memoises
	// the deterministic local renders); no setting reaches it.
	LocalEngine func(engine.Engine) engine.Engine
}

// New builds every role: the core, the HTTP face and the workers (which
// run only when RunWorkers is called).
func New(ctx context.Context, cfg Config, log *slog.Logger, opts Options) (*App, error) {
	core, err := NewCore(ctx, cfg, log, opts)
	if err != nil {
		return nil, err
	}
	api, err := NewAPI(core)
	if err != nil {
		core.Close()
		return nil, err
	}
	return &App{Core: core, API: api, Worker: NewWorker(core)}, nil
}

// RunWorkers runs the worker role until ctx ends (Worker.Run).
func (a *App) RunWorkers(ctx context.Context) error { return a.Worker.Run(ctx) }

// Close releases the core (Core.Close).
func (a *App) Close() error { return a.Core.Close() }
