package httpapi_test

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/httpapi"
)

// TestMain runs the package's tests and then, on a full run, checks that
// every error code each route documents was answered by some test.
//
// CI runs the package in shards (scripts/test.sh: each shard a -run list
// of the tests): with STUDIO_SEEN_DIR set, a shard writes what it saw to a
// file there; a last run with -run '^$' and STUDIO_SEEN_CHECK naming that
// folder pools the files and makes the check over all of them.
func TestMain(m *testing.M) {
	code := m.Run()
	if dir := os.Getenv("STUDIO_SEEN_DIR"); dir != "" && code == 0 {
		lines := strings.Join(apptest.SeenLines(), "\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seen-%d.txt", os.Getpid())), []byte(lines), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "STUDIO_SEEN_DIR:", err)
			code = 1
		}
	}
	if out := os.Getenv("OPENAPI_OUT"); out != "" && code == 0 {
		if err := writeDocument(out); err != nil {
			fmt.Fprintln(os.Stderr, "OPENAPI_OUT:", err)
			code = 1
		}
	}
	pooled := os.Getenv("STUDIO_SEEN_CHECK")
	if pooled != "" && code == 0 {
		files, err := filepath.Glob(filepath.Join(pooled, "seen-*.txt"))
		if err != nil || len(files) == 0 {
			fmt.Fprintln(os.Stderr, "STUDIO_SEEN_CHECK: no shard wrote what it saw in", pooled, err)
			code = 1
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, "STUDIO_SEEN_CHECK:", err)
				code = 1
			}
			apptest.MarkSeen(strings.Split(string(b), "\n"))
		}
	}
	if code == 0 && (pooled != "" || flag.Lookup("test.run").Value.String() == "") && !testing.Short() {
		if missing := unseenCodes(); len(missing) > 0 {
			fmt.Fprintln(os.Stderr, "documented error codes that no test answered:")
			for _, m := range missing {
				fmt.Fprintln(os.Stderr, "   ", m)
			}
			code = 1
		}
	}
	os.Exit(code)
}

// writeDocument writes the OpenAPI document for the linter that make test
// runs after the suite (scripts/test.sh sets OPENAPI_OUT).
func writeDocument(path string) error {
	doc, err := httpapi.NewServer(httpapi.Config{}, httpapi.Services{}, slog.New(slog.NewTextHandler(io.Discard, nil))).OpenAPI()
	if err != nil {
		return err
	}
	return os.WriteFile(path, doc, 0o644)
}

// routes is the routes table, read from a server with no services.
func routes() []httpapi.Route {
	return httpapi.NewServer(httpapi.Config{}, httpapi.Services{}, slog.New(slog.NewTextHandler(io.Discard, nil))).Routes()
}

func unseenCodes() []string {
	var missing []string
	for _, rt := range routes() {
		for _, e := range rt.DocumentedErrors() {
			if !apptest.Seen(rt.Pattern(), e.Code) {
				missing = append(missing, rt.Pattern()+" "+e.Code)
			}
		}
	}
	slices.Sort(missing)
	return missing
}
