// Package apptest runs the real service in tests: real SQLite always, real
// PostgreSQL when TEST_DATABASE_URL is set, the real routes and services,
// and helpers to act as users, keys and other houses.
package apptest

import (
	"context"
	"os"
	"testing"

	"studio/internal/dbtest"
	"studio/internal/sqlstore"
)

// Engine is one database a test runs on.
type Engine struct {
	Name        string // sqlite | postgres
	DatabaseURL string // empty for SQLite
	DataDir     string
}

// Engines returns SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is
// set), each fresh and migrated: a new folder holding a copy of a migrated
// file, or a new database copied from a migrated one and dropped after the
// test.
func Engines(t testing.TB) []Engine {
	t.Helper()
	out := []Engine{SQLite(t)}
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		out = append(out, Engine{Name: "postgres", DatabaseURL: dbtest.MigratedDatabase(t, base, "studio", migratePostgres), DataDir: t.TempDir()})
	}
	return out
}

// SQLite returns the SQLite engine alone, fresh and migrated, for a test
// whose checks the engine does not change (HTTP, roles, the browser): it
// makes no PostgreSQL copy it would not use.
func SQLite(t testing.TB) Engine {
	t.Helper()
	return Engine{Name: "sqlite", DataDir: dbtest.MigratedDir(t, "sqlite", migrateSQLite)}
}

// Fresh returns a new, migrated database on e's engine: a test that needs
// a store of its own beside the one it runs on.
func Fresh(t testing.TB, e Engine) Engine {
	t.Helper()
	if e.Name == "postgres" {
		return Engine{Name: "postgres", DatabaseURL: dbtest.MigratedDatabase(t, os.Getenv("TEST_DATABASE_URL"), "studio", migratePostgres), DataDir: t.TempDir()}
	}
	return SQLite(t)
}

// ForEachEngine runs fn as a subtest on every engine.
func ForEachEngine(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range Engines(t) {
		t.Run(e.Name, func(t *testing.T) { fn(t, e) })
	}
}

// migrateSQLite makes the SQLite file every test's copy starts from.
func migrateSQLite(dir string) error { return migrate(sqlstore.Options{DataDir: dir}) }

// migratePostgres makes the database every test's copy starts from.
func migratePostgres(url string) error { return migrate(sqlstore.Options{DatabaseURL: url}) }

func migrate(opts sqlstore.Options) error {
	db, err := sqlstore.Open(context.Background(), opts)
	if err != nil {
		return err
	}
	return db.Close()
}
