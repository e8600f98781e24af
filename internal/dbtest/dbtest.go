// Package dbtest gives tests a database of their own: a folder holding a
// copy of a migrated SQLite file, or, in the server TEST_DATABASE_URL names,
// a copy of a migrated database or an empty schema, dropped when the test
// ends.
// It imports nothing of the service, so the store's own tests can use it.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
)

// FreshSchema creates a schema for one test and returns a URL whose
// search_path points at it; the schema is dropped when the test ends.
func FreshSchema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	own(t, admin, "CREATE SCHEMA "+schema, "DROP SCHEMA "+schema+" CASCADE")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// templates holds, per name, the folder a test binary's first MigratedDir
// call built.
var templates sync.Map // name -> *template

type template struct {
	once sync.Once
	dir  string
	err  error
}

// MigratedDir returns a new folder for one test holding a copy of the files
// build wrote, once per test binary, into a folder of its own: a SQLite
// database already migrated. Copying the file costs milliseconds; applying
// every migration to a fresh file costs seconds under the race detector, and
// the suite opens hundreds of databases. The store still runs its
// migrations on open (none is left to apply); the migrations on an empty
// database run in every template's build and in the sqlstore package's own
// migration tests.
func MigratedDir(t testing.TB, name string, build func(dir string) error) string {
	t.Helper()
	v, _ := templates.LoadOrStore(name, &template{})
	tp := v.(*template)
	tp.once.Do(func() {
		removeOrphans()
		tp.dir = filepath.Join(os.TempDir(), fmt.Sprintf("studio-template-%d-%s", os.Getpid(), name))
		if tp.err = os.RemoveAll(tp.dir); tp.err == nil {
			tp.err = os.Mkdir(tp.dir, 0o700)
		}
		if tp.err == nil {
			tp.err = build(tp.dir)
		}
	})
	if tp.err != nil {
		t.Fatalf("template %s: %v", name, tp.err)
	}
	dir := t.TempDir()
	entries, err := os.ReadDir(tp.dir)
	if err != nil {
		t.Fatalf("template %s: %v", name, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tp.dir, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600)
		}
		if err != nil {
			t.Fatalf("template %s: %v", name, err)
		}
	}
	return dir
}

// removeOrphans deletes the templates of test binaries that have ended (a
// binary cannot delete its own when its last test ends), so at most the
// running binaries' templates are on disk.
func removeOrphans() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "studio-template-*"))
	for _, d := range dirs {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "studio-template-"), "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n == os.Getpid() {
			continue
		}
		if !alive(n) {
			_ = os.RemoveAll(d)
		}
	}
}

// pgTemplates holds, per server URL and name, the template database a test
// binary's first MigratedDatabase call built.
var pgTemplates sync.Map // base + " " + name -> *template (dir holds the database's name)

// MigratedDatabase creates a database for one test as a copy of a template
// database that build migrated once per test binary, and returns its URL;
// the database is dropped when the test ends. PostgreSQL copies a template
// in a fraction of the time the migrations take, and the suite opens
// hundreds of databases. The store still runs its migrations on open (none
// is left to apply); FreshSchema gives the tests of the migrations
// themselves an empty schema.
func MigratedDatabase(t testing.TB, base, name string, build func(url string) error) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	v, _ := pgTemplates.LoadOrStore(base+" "+name, &template{})
	tp := v.(*template)
	tp.once.Do(func() {
		dropOrphanDatabases(ctx, admin)
		tp.dir = fmt.Sprintf("tmpl_%d_%s", os.Getpid(), name)
		if _, tp.err = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+tp.dir+" WITH (FORCE)"); tp.err != nil {
			return
		}
		if _, tp.err = admin.ExecContext(ctx, "CREATE DATABASE "+tp.dir); tp.err != nil {
			return
		}
		tp.err = build(databaseURL(base, tp.dir))
	})
	if tp.err != nil {
		admin.Close()
		t.Fatalf("template %s: %v", name, tp.err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	db := fmt.Sprintf("t_%d_%s", os.Getpid(), hex.EncodeToString(b[:]))
	own(t, admin, "CREATE DATABASE "+db+" TEMPLATE "+tp.dir, "DROP DATABASE "+db+" WITH (FORCE)")
	return databaseURL(base, db)
}

// own runs create on admin for one test, and drop and admin's closing when
// the test ends.
func own(t testing.TB, admin *sql.DB, create, drop string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, create); err != nil {
		admin.Close()
		t.Fatalf("%s: %v", create, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, _ = admin.ExecContext(ctx, drop)
		admin.Close()
	})
}

// databaseURL is base with its database replaced by name.
func databaseURL(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	return u.String()
}

// dropOrphanDatabases drops the templates and test databases of test
// binaries that have ended (killed before their cleanups ran).
func dropOrphanDatabases(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'tmpl\_%' OR datname LIKE 't\_%\_%'`)
	if err != nil {
		return
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, name := range names {
		_, rest, _ := strings.Cut(name, "_")
		pid, _, _ := strings.Cut(rest, "_")
		if n, err := strconv.Atoi(pid); err != nil || n == os.Getpid() || alive(n) {
			continue
		}
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
}

// alive reports whether process pid runs on this machine.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
