package sqlstore

// Fixtures of the ledger tests: the engines (real SQLite always, real
// PostgreSQL when TEST_DATABASE_URL is set; apptest cannot be imported here,
// it imports this package), a clock the tests move, and houses.

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/account"
	"studio/internal/dbtest"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// ledgerEngine is one database a ledger test runs on.
type ledgerEngine struct {
	name string
	url  string // "" for SQLite
}

// ledgerEngines returns SQLite and, when TEST_DATABASE_URL is set, PostgreSQL.
func ledgerEngines() []ledgerEngine {
	out := []ledgerEngine{{name: "sqlite"}}
	if base := os.Getenv("TEST_DATABASE_URL"); base != "" {
		out = append(out, ledgerEngine{name: "postgres", url: base})
	}
	return out
}

// forEachLedgerEngine runs fn as a subtest on every engine.
func forEachLedgerEngine(t *testing.T, fn func(t *testing.T, e ledgerEngine)) {
	t.Helper()
	for _, e := range ledgerEngines() {
		t.Run(e.name, func(t *testing.T) { fn(t, e) })
	}
}

// ledgerClock is a clock the test moves by hand.
type ledgerClock struct {
	mu sync.Mutex
	t  time.Time
}

func newLedgerClock() *ledgerClock {
	return &ledgerClock{t: time.Date(2026, 11, 22, 7, 20, 49, 0, time.UTC)}
}

func (c *ledgerClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *ledgerClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// openLedgerDB opens a fresh, migrated store on e: a new folder holding a
// copy of a migrated file for SQLite, a new database copied from a migrated
// one (dropped at the end) for PostgreSQL.
func openLedgerDB(t testing.TB, e ledgerEngine, now func() time.Time) *DB {
	t.Helper()
	opts := Options{Now: now}
	if e.url != "" {
		opts.DataDir = t.TempDir()
		opts.DatabaseURL = migratedDatabase(t, e.url)
	} else {
		opts.DataDir = dbtest.MigratedDir(t, "sqlite", func(dir string) error { return migrate(Options{DataDir: dir}) })
	}
	db, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("open %s: %v", e.name, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migratedDatabase returns the URL of a PostgreSQL database for one test,
// copied from the one migrated once per test binary on the server base names.
func migratedDatabase(t testing.TB, base string) string {
	t.Helper()
	return dbtest.MigratedDatabase(t, base, "studio", func(url string) error { return migrate(Options{DatabaseURL: url}) })
}

// migrate applies the migrations to the database o names.
func migrate(o Options) error {
	db, err := Open(context.Background(), o)
	if err != nil {
		return err
	}
	return db.Close()
}

// newLedgerHouse writes a user and their personal house as sign-up does, in
// one transaction that ends with the openHouse hooks, so the house opens
// with its trial plan and 60-token sign-up grant; it returns both ids.
func newLedgerHouse(t testing.TB, db *DB) (user, house string) {
	t.Helper()
	ctx := context.Background()
	now := ts.Of(db.now())
	u := account.User{ID: uuid.Must(uuid.NewV7()).String(), Name: "Ledger", Email: uuid.NewString() + "@ledger.test", CreatedAt: now}
	h := account.House{ID: uuid.Must(uuid.NewV7()).String(), Name: "Ledger's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	err := db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO users (id, name, email, email_verified, password_hash, created_at)
			VALUES (?, ?, ?, 0, 'x', ?)`, u.ID, u.Name, u.Email, now.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO organizations (id, name, personal, founder_user_id, created_at)
			VALUES (?, ?, 1, ?, ?)`, h.ID, h.Name, u.ID, now.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO seats (organization_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)`,
			h.ID, u.ID, now.UnixMilli()); err != nil {
			return err
		}
		return db.openHouse(ctx, tx, h)
	})
	if err != nil {
		t.Fatalf("open a house: %v", err)
	}
	return u.ID, h.ID
}

// checkLedger fails the test when an invariant of the house's ledger breaks.
func checkLedger(t testing.TB, db *DB, houses ...string) {
	t.Helper()
	for _, h := range houses {
		if err := db.CheckLedger(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
}

// balanceOf reads the house's balance.
func balanceOf(t testing.TB, db *DB, house string) ledger.Balance {
	t.Helper()
	b, err := db.Balance(context.Background(), house)
	if err != nil {
		t.Fatalf("balance: %v", err)
	}
	return b
}

// parts is a balance without its hold list, for comparisons.
type parts struct{ Balance, Grant, Topup, Held int64 }

func partsOf(b ledger.Balance) parts { return parts{b.Balance, b.Grant, b.Topup, b.Held} }

// fieldsOf returns the code and the need and spendable fields of a ledger
// error ("" when err is nil).
func fieldsOf(err error) (code string, need, spendable any) {
	if err == nil {
		return "", nil, nil
	}
	e, ok := errs.As(err)
	if !ok {
		return "not an *errs.Error: " + err.Error(), nil, nil
	}
	return e.Code, e.Fields["need"], e.Fields["spendable"]
}

// expires returns a pointer to the instant d from now on the clock.
func expiresIn(c *ledgerClock, d time.Duration) *ts.Time {
	t := ts.Of(c.Now().Add(d))
	return &t
}

// isCode reports whether err carries the wire code of want.
func isCode(err error, want *errs.Error) bool { return errors.Is(err, want) }
