// Package apptest runs the real service in tests: real SQLite always, real
// PostgreSQL when TEST_DATABASE_URL is set, the real routes and services,
// and helpers to act as users, keys and other houses.
package apptest

import (
	"os"
	"testing"

	"studio/internal/dbtest"
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
		out = append(out, Engine{Name: "postgres", DatabaseURL: dbtest.FreshSchema(t, base), DataDir: t.TempDir()})
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
