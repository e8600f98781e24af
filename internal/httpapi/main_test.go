package httpapi_test

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"testing"

	"studio/internal/apptest"
	"studio/internal/httpapi"
)

// TestMain runs the package's tests and then, on a full run, checks that
// every error code each route documents was answered by some test.
func TestMain(m *testing.M) {
	code := m.Run()
	if out := os.Getenv("OPENAPI_OUT"); out != "" && code == 0 {
		if err := writeDocument(out); err != nil {
			fmt.Fprintln(os.Stderr, "OPENAPI_OUT:", err)
			code = 1
		}
	}
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
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
