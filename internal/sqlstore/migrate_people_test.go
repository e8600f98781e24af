package sqlstore

// Migrations 00061 and 00062 rebuild jobs, posts and the share tables so
// that an erased user's attribution can become null: every row survives,
// the keys and checks still hold, and the indexes come back by name.

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pressly/goose/v3"

	"studio/internal/dbtest"
)

func TestMigrationErasableAttribution(t *testing.T) {
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
		if _, err := p.UpTo(ctx, 60); err != nil {
			t.Fatalf("up to 60: %v", err)
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
		exec(`INSERT INTO organizations (id, name, created_at) VALUES ('h', 'H', 1)`)
		exec(`INSERT INTO jobs (id, organization_id, user_id, tool, tier, status, params, inputs, idempotency_key, fingerprint, cost,
			event_seq, created_at) VALUES ('j', 'h', 'u', 'upscale', '1k', 'queued', '{}', '[]', 'k', 'fp', 2, 1, 10)`)
		exec(`INSERT INTO posts (id, organization_id, author_id, title, body, created_at, updated_at) VALUES ('p', 'h', 'u', 'T', 'B', 1, 2)`)
		exec(`INSERT INTO assets (id, organization_id, name, mime, width, height, size_bytes, sha256, blob_key, created_at)
			VALUES ('a', 'h', 'A', 'image/png', 1, 1, 1, 'x', 'assets/h/a', 1)`)
		exec(`INSERT INTO shares (id, organization_id, created_by_user_id, token_hash, token_hint, frames, expires_at, created_at)
			VALUES ('s', 'h', 'u', 'th', 'hint', 1, 99, 1)`)
		exec(`INSERT INTO share_frames (organization_id, share_id, i, asset_id, note) VALUES ('h', 's', 0, 'a', 'n')`)
		exec(`INSERT INTO share_marks (organization_id, share_id, i, asset_id, verdict, note, created_at, updated_at)
			VALUES ('h', 's', 0, 'a', 'keep', 'yes', 3, 4)`)

		if _, err := p.UpTo(ctx, 62); err != nil {
			t.Fatalf("up to 62: %v", err)
		}
		var got []string
		for _, q := range []string{
			`SELECT user_id || idempotency_key || tool FROM jobs WHERE id = 'j'`,
			`SELECT author_id || title FROM posts WHERE id = 'p'`,
			`SELECT created_by_user_id || token_hash FROM shares WHERE id = 's'`,
			`SELECT share_id || asset_id || note FROM share_frames WHERE i = 0`,
			`SELECT share_id || verdict || note FROM share_marks WHERE i = 0`,
		} {
			var s string
			if err := db.read().QueryRow(ctx, q).Scan(&s); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			got = append(got, s)
		}
		if want := []string{"ukupscale", "uT", "uth", "san", "skeepyes"}; !slices.Equal(got, want) {
			t.Errorf("rows after the rebuild: %v; want %v", got, want)
		}
		// The attribution may now be null; everything else still holds.
		exec(`UPDATE jobs SET user_id = NULL`)
		exec(`UPDATE posts SET author_id = NULL`)
		exec(`UPDATE shares SET created_by_user_id = NULL`)
		exec(`DELETE FROM users WHERE id = 'u'`)
		for _, bad := range []string{
			`INSERT INTO share_frames (organization_id, share_id, i, asset_id) VALUES ('h', 'nope', 1, 'a')`,
			`INSERT INTO share_marks (organization_id, share_id, i, asset_id, created_at, updated_at) VALUES ('h', 's', 5, 'a', 1, 1)`,
			`INSERT INTO shares (id, organization_id, token_hash, token_hint, frames, expires_at, created_at) VALUES ('s2', 'h', 'th', 'x', 1, 9, 1)`,
			`INSERT INTO posts (id, organization_id, title, body, created_at, updated_at) VALUES ('p2', 'nowhere', 'T', 'B', 1, 1)`,
			`INSERT INTO jobs (id, organization_id, tool, tier, status, params, inputs, fingerprint, cost, event_seq, created_at)
				VALUES ('j2', 'h', 'upscale', '8k', 'queued', '{}', '[]', 'fp', 1, 2, 1)`,
		} {
			if _, err := db.writer().Exec(ctx, bad); err == nil {
				t.Errorf("accepted after the rebuild: %s", bad)
			}
		}
		q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`
		if db.engine == Postgres {
			q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?
				AND indexname NOT LIKE '%pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`
		}
		for table, want := range map[string][]string{
			"jobs":         {"jobs_house_created", "jobs_house_seq", "jobs_idempotency", "jobs_leased", "jobs_queued"},
			"posts":        {"posts_org"},
			"shares":       {"shares_house"},
			"share_frames": {"share_frames_asset"},
			"share_marks":  {"share_marks_asset", "share_marks_house"},
		} {
			var names []string
			err := each(ctx, db.read(), q, []any{table}, func(r *sql.Rows) error {
				var s string
				err := r.Scan(&s)
				names = append(names, s)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names, want) {
				t.Errorf("indexes of %s: %v; want %v", table, names, want)
			}
		}
	})
}
