// Package apptest runs the real service in tests: real SQLite always, real
// PostgreSQL when TEST_DATABASE_URL is set, the real routes and services,
// and helpers to act as users, keys and other houses.
package apptest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Engine is one database a test runs on.
type Engine struct {
	Name        string // sqlite | postgres
	DatabaseURL string // empty for SQLite
	DataDir     string
}

// Engines returns SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is
// set), each fresh: a new folder, or a new schema dropped after the test.
func Engines(t testing.TB) []Engine {
	t.Helper()
	out := []Engine{{Name: "sqlite", DataDir: t.TempDir()}}
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		out = append(out, Engine{Name: "postgres", DatabaseURL: freshSchema(t, base), DataDir: t.TempDir()})
	}
	return out
}

// ForEachEngine runs fn as a subtest on every engine.
func ForEachEngine(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range Engines(t) {
		t.Run(e.Name, func(t *testing.T) { fn(t, e) })
	}
}

// freshSchema creates a schema for one test and returns a URL whose
// search_path points at it; the schema is dropped when the test ends.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
