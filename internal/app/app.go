package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"studio/internal/account"
	"studio/internal/apikey"
	"studio/internal/httpapi"
	"studio/internal/mail"
	"studio/internal/post"
	"studio/internal/sqlstore"
)

// Version is the service's version, reported by `studio version`.
const Version = "1.0.0"

// App is the wired service.
type App struct {
	Config Config
	DB     *sqlstore.DB
	Server *httpapi.Server
	Log    *slog.Logger
}

// Options adjust what New builds; the zero value is production.
type Options struct {
	Now        func() time.Time
	Hash       account.HashParams // cheaper password hashing in tests
	MailerFunc func(mail.Log) mail.Sender
}

// New opens the store and builds every service and the HTTP server.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts Options) (*App, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, Now: now})
	if err != nil {
		return nil, err
	}
	var sender mail.Sender
	switch {
	case opts.MailerFunc != nil:
		sender = opts.MailerFunc(db)
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
	accounts := account.NewService(db, sender, account.Options{
		PublicURL: cfg.PublicURL, AdminEmails: cfg.AdminEmails, InviteOnly: cfg.Signup == "invite", Hash: opts.Hash, Now: now,
	})
	srv := httpapi.NewServer(httpapi.Config{
		PublicOrigin: cfg.PublicOrigin(),
		WebOrigin:    cfg.WebOrigin,
		SecureCookie: strings.HasPrefix(cfg.PublicURL, "https://"),
		Version:      Version,
	}, httpapi.Services{
		Accounts: accounts,
		Keys:     apikey.NewService(db, now),
		Posts:    post.NewService(db, now),
		Ping:     db.Ping,
	}, log)
	return &App{Config: cfg, DB: db, Server: srv, Log: log}, nil
}

// Close releases the store.
func (a *App) Close() error { return a.DB.Close() }

// Serve listens on the configured address until ctx ends, then drains
// in-flight requests for up to 20 seconds. ready, when set, receives the
// bound address.
func (a *App) Serve(ctx context.Context, ready func(addr string)) error {
	srv := &http.Server{
		Addr:              a.Config.Addr,
		Handler:           a.Server,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return err
	}
	a.Log.Info("serving", "addr", ln.Addr().String(), "public_url", a.Config.PublicURL,
		"database", a.DB.Engine().String(), "data_dir", a.Config.DataDir)
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
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
