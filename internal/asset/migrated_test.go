package asset_test

import (
	"context"
	"testing"

	"studio/internal/dbtest"
	"studio/internal/sqlstore"
)

// migratedDir is a new folder holding a copy of a migrated SQLite database
// (dbtest.MigratedDir, built once per test binary): applying every
// migration to a fresh file costs seconds under the race detector, and
// these tests are about what runs on the store, not its migrations (the
// store's own tests migrate empty databases). The store still runs its
// migrations on open; none is left to apply.
func migratedDir(t *testing.T) string {
	t.Helper()
	return dbtest.MigratedDir(t, "sqlite", func(dir string) error {
		db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
		if err != nil {
			return err
		}
		return db.Close()
	})
}
