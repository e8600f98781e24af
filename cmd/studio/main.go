// Command studio runs the Fashion Imagery Studio backend.
//
//	studio serve     run the HTTP API (and the workers)
//	studio worker    run only the workers
//	studio migrate   apply the database migrations and exit
//	studio models import DIR   load catalogue faces from a folder (manifest.json and images)
//	studio tokens    grant tokens to a user (opens only the database)
//	studio watch     print a house's job events as JSON lines
//	studio version   print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"studio/internal/app"
	"studio/internal/asynclog"
	"studio/internal/imagemem"
)

func main() { os.Exit(program()) }

// coreOptions are what serve and worker build their core with: none in
// the program. The tests' child processes (the test binary run as studio)
// set a webhook guard that reaches the test's own receiver.
var coreOptions app.Options

// program is studio as a process: the signals that stop it, its arguments
// and environment, and its exit status. A failure is one line on stderr.
func program() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, "studio:", err)
		return 1
	}
	return 0
}

const usage = `usage: studio <command> [flags]

commands:
  serve     run the HTTP API (and the workers) on the embedded defaults or the configured stores
  worker    run only the workers that develop queued jobs
  migrate   apply the database migrations and exit
  models    "models import DIR": load the catalogue's faces from a folder of images and its manifest.json
  tokens    grant tokens to a user's house: studio tokens grant --email ADDRESS --tokens N
  watch     print a house's job events as JSON lines (STUDIO_URL, STUDIO_KEY)
  version   print the version

Run "studio serve --help" for the settings.
`

// run is the whole program: main only supplies the process's context,
// arguments, environment and output. stdout takes the commands' output and
// the JSON log; stderr the lines a person reads beside it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return errors.New("a command is required")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "studio", app.Version)
		return nil
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "worker":
		return work(ctx, args, getenv, stdout)
	case "migrate":
		return migrate(ctx, args, getenv, stdout)
	case "models":
		return models(ctx, args, getenv, stdout)
	case "tokens":
		return tokens(ctx, args, getenv, stdout)
	case "watch":
		return watch(ctx, args, getenv, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stdout, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

func newFlags(name string, stdout io.Writer, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: studio %s [flags]\n\n%s\n\nSettings (environment variables, with defaults):\n", name, summary)
		for _, s := range app.Settings {
			fmt.Fprintf(stdout, "  %-28s %s\n  %-28s   default: %s\n", s.Name, s.Help, "", s.ShownDefault())
		}
		fmt.Fprintln(stdout, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

func logger(stdout io.Writer) *slog.Logger {
	return slog.New(asynclog.NewHandler(stdout, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stdout, "Runs the HTTP API and the workers. With no settings it keeps everything under\n./data: an SQLite file, local blobs, the local engine and a console mailer.")
	workers := fs.Bool("worker", true, "also run the workers in this process (--worker=false serves only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := app.Load(getenv)
	if err != nil {
		return err
	}
	// The listener opens before anything else starts: a taken port ends
	// the process here, at once, not after the migrations. Requests that
	// arrive while the service is built wait in the listener's queue.
	ln, err := app.Listen(cfg)
	if err != nil {
		return err
	}
	cfg.Listening(ln.Addr())
	out := asynclog.New(stdout, 0)
	defer out.Close()
	core, err := app.NewCore(ctx, cfg, logger(out), coreOptions)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	defer core.Close()
	defer governMemory(getenv)()
	api, err := app.NewAPI(core)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	welcome := func() { fmt.Fprintln(stderr, api.Welcome()) }
	if !*workers {
		return api.Serve(ctx, ln, welcome)
	}
	w := app.NewWorker(core)
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() { werr = w.Run(ctx) })
	err = api.Serve(ctx, ln, welcome)
	wg.Wait()
	return errors.Join(err, werr)
}

func work(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("worker", stdout, "Runs only the workers: they claim queued jobs from the shared database,\ndevelop them and settle their holds. It serves no HTTP but GET /metrics on METRICS_ADDR, when set. Stop with SIGINT or SIGTERM.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := app.Load(getenv)
	if err != nil {
		return err
	}
	// The metrics listener, when asked for, opens first, as serve's does.
	var ln net.Listener
	if cfg.MetricsAddr != "" {
		if cfg.MetricsToken == "" {
			return errors.New("METRICS_ADDR needs METRICS_TOKEN (the bearer of GET /metrics)")
		}
		if ln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("cannot listen on %s (METRICS_ADDR): %w", cfg.MetricsAddr, err)
		}
	}
	out := asynclog.New(stdout, 0)
	defer out.Close()
	core, err := app.NewCore(ctx, cfg, logger(out), coreOptions)
	if err != nil {
		if ln != nil {
			err = errors.Join(err, ln.Close())
		}
		return err
	}
	defer core.Close()
	defer governMemory(getenv)()
	w := app.NewWorker(core)
	if ln == nil {
		return w.Run(ctx)
	}
	var wg sync.WaitGroup
	var merr error
	wg.Go(func() { merr = w.ServeMetrics(ctx, ln) })
	err = w.Run(ctx)
	wg.Wait()
	return errors.Join(err, merr)
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("migrate", stdout, "Applies the embedded database migrations and exits. It opens only the database.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := app.Load(getenv)
	if err != nil {
		return err
	}
	engine, err := app.Migrate(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrations applied (%s)\n", engine)
	return nil
}

func models(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("models import DIR", stdout, "Loads the catalogue's faces from DIR: a manifest.json naming each face (key, name,\n"+
		"tier free|sale|exclusive, priceCents, currency, images, traits) beside its images.\n"+
		"A key imported again is updated in place. Every face and image is checked before\n"+
		"anything is written. docs/casting.md documents the manifest.")
	if len(args) == 0 || args[0] != "import" {
		fs.Usage()
		return errors.New(`usage: studio models import DIR`)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New(`usage: studio models import DIR`)
	}
	cfg, err := app.Load(getenv)
	if err != nil {
		return err
	}
	n, err := app.ImportModels(ctx, cfg, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d faces imported\n", n)
	return nil
}

// governMemory ties the runtime's soft memory limit to the pictures in
// flight (imagemem.Govern, issue 32), with 32 MiB of margin over what the
// process holds once built, unless GOMEMLIMIT sets the operator's limit;
// the func it returns ends that when the command returns.
func governMemory(getenv func(string) string) (stop func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	return imagemem.Govern(32 << 20)
}
