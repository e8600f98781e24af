package sqlstore

// Migration 00007 rebuilds the jobs table on a database that already has
// jobs: every row and column survives, the indexes come back under their
// names, and a key is unique per (house, user, key) afterwards.

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pressly/goose/v3"

	"studio/internal/dbtest"
)

func TestMigrationHouseKeys(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		driver, dsn, dialect := "sqlite", "file:"+filepath.Join(t.TempDir(), "m.db")+"?"+sqlitePragmas, goose.DialectSQLite3
		if e.url != "" {
			driver, dsn, dialect = "pgx", dbtest.FreshSchema(t, e.url), goose.DialectPostgres
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		raw.SetMaxOpenConns(1)
		sub, _ := fs.Sub(migrations, "migrations")
		p, err := goose.NewProvider(dialect, raw, sub)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.UpTo(ctx, 6); err != nil {
			t.Fatalf("up to 6: %v", err)
		}
		db := &DB{engine: SQLite, w: raw, r: raw}
		if e.url != "" {
			db.engine = Postgres
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.writer().Exec(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`INSERT INTO users (id, name, email, password_hash, created_at) VALUES ('u', 'U', 'u@x', 'x', 1)`)
		exec(`INSERT INTO organizations (id, name, created_at) VALUES ('h1', 'H1', 1), ('h2', 'H2', 1)`)
		exec(`INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
			idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner, lease_until,
			created_at, started_at, finished_at)
			VALUES ('j1', 'h1', 'u', 'upscale', '2k', 'running', '{"a":"b"}', '[]', 'br', 'j0', 'k', 'fp', 4, 'hold', 'res', 'e',
			7, 2, 'w', 99, 10, 11, 12)`)
		exec(`INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs, fingerprint, cost, event_seq, created_at)
			VALUES ('j2', 'h1', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'fp', 1, 8, 20)`)
		if _, err := db.writer().Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
			idempotency_key, fingerprint, cost, event_seq, created_at)
			VALUES ('j3', 'h2', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'k', 'fp', 1, 1, 30)`); err == nil {
			t.Fatal("before 00007 the key was unique per user; the insert passed")
		}

		if _, err := p.Up(ctx); err != nil {
			t.Fatalf("up: %v", err)
		}
		var got [23]sql.NullString
		dest := make([]any, len(got))
		for i := range got {
			dest[i] = &got[i]
		}
		if err := db.read().QueryRow(ctx, `SELECT id, organization_id, user_id, tool, tier, status, params, inputs, brand_id,
			retry_of_job_id, idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner,
			lease_until, created_at, started_at, finished_at FROM jobs WHERE id = 'j1'`).Scan(dest...); err != nil {
			t.Fatal(err)
		}
		want := []string{"j1", "h1", "u", "upscale", "2k", "running", `{"a":"b"}`, "[]", "br", "j0", "k", "fp", "4", "hold",
			"res", "e", "7", "2", "w", "99", "10", "11", "12"}
		for i, w := range want {
			if got[i].String != w {
				t.Errorf("column %d after the rebuild: %q; want %q", i, got[i].String, w)
			}
		}
		var n int
		if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM jobs`).Scan(&n); err != nil || n != 2 {
			t.Errorf("%d jobs after the rebuild (%v); want 2", n, err)
		}

		exec(`INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs, idempotency_key,
			fingerprint, cost, event_seq, created_at) VALUES ('j3', 'h2', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'k', 'fp', 1, 1, 30)`)
		_, err = db.writer().Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
			idempotency_key, fingerprint, cost, event_seq, created_at)
			VALUES ('j4', 'h2', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'k', 'fp', 1, 2, 40)`)
		if !errors.Is(err, errUnique) {
			t.Errorf("the same key twice in one house: %v; want a unique violation", err)
		}
		if _, err := db.writer().Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
			fingerprint, cost, event_seq, created_at) VALUES ('j5', 'nowhere', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'fp', 1, 2, 40)`); err == nil {
			t.Error("a job of no house was accepted: the foreign keys did not survive the rebuild")
		}
		if _, err := db.writer().Exec(ctx, `INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs,
			fingerprint, cost, event_seq, created_at) VALUES ('j6', 'h1', 'u', 'upscale', '8k', 'queued', '{}', '[]', 'fp', 1, 2, 40)`); err == nil {
			t.Error("tier 8k was accepted: the checks did not survive the rebuild")
		}

		q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`
		if db.engine == Postgres {
			q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname NOT LIKE '%pkey' ORDER BY indexname`
		}
		for table, want := range map[string][]string{
			// jobs_created and assets_created: 00080's, for the operators' reads across houses;
			// jobs_house_result: 00130's, a frame's develop by its result asset.
			"jobs":   {"jobs_created", "jobs_house_created", "jobs_house_result", "jobs_house_seq", "jobs_idempotency", "jobs_leased", "jobs_queued"},
			"assets": {"assets_created", "assets_house_created", "assets_house_folder", "assets_org_sha256"},
		} {
			rows, err := db.read().Query(ctx, q, table)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for rows.Next() {
				var s string
				_ = rows.Scan(&s)
				names = append(names, s)
			}
			rows.Close()
			if table == "assets" && db.engine == Postgres {
				names = slices.DeleteFunc(names, func(s string) bool { return s == "assets_organization_id_id_key" })
			}
			if !slices.Equal(names, want) {
				t.Errorf("indexes of %s: %v; want %v", table, names, want)
			}
		}

		// Down restores the per-user key, which the second house's use of
		// "k" would break: a down is only for a database without such keys.
		exec(`DELETE FROM jobs WHERE id = 'j3'`)
		if _, err := p.Down(ctx); err != nil {
			t.Errorf("down from 7: %v", err)
		}
	})
}

// TestMigrationOutOfOrder: a database migrated before an area with lower
// version numbers landed takes that area's migrations afterwards.
func TestMigrationOutOfOrder(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		// As if 00074 had landed after every later version was applied.
		for _, q := range []string{`DROP TABLE memory_settings`, `DELETE FROM goose_db_version WHERE version_id = 74`} {
			if _, err := db.writer().Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		n, err := db.Migrate(ctx)
		if err != nil || n != 1 {
			t.Fatalf("Migrate() = %d, %v; want the one missing migration applied", n, err)
		}
		if _, err := db.writer().Exec(ctx, `INSERT INTO memory_settings (organization_id, develops, updated_at) VALUES ('h', 1, 1)`); err == nil {
			t.Error("a setting without its house was written: the table lost its foreign key")
		}
		var on int
		if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM memory_settings`).Scan(&on); err != nil {
			t.Errorf("the table is back: %v", err)
		}
	})
}
