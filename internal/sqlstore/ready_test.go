package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestReady: a migrated store is ready; one missing an embedded migration
// says ErrPending; a closed one fails without saying ErrPending.
func TestReady(t *testing.T) {
	ctx := context.Background()
	e := ledgerEngines()[0] // SQLite: the statement is the same on both engines
	db := openLedgerDB(t, e, time.Now)
	if err := db.Ready(ctx); err != nil {
		t.Fatalf("Ready on a migrated store: %v", err)
	}
	vs := embeddedVersions()
	if len(vs) < 40 || vs[0] != 1 {
		t.Fatalf("embedded versions = %v; want every migration from 00001", vs)
	}
	last := vs[len(vs)-1]
	if _, err := db.w.ExecContext(ctx, `DELETE FROM goose_db_version WHERE version_id = ?`, last); err != nil {
		t.Fatal(err)
	}
	if err := db.Ready(ctx); !errors.Is(err, ErrPending) {
		t.Errorf("Ready without migration %d = %v; want ErrPending", last, err)
	}
	db.Close()
	if err := db.Ready(ctx); err == nil || errors.Is(err, ErrPending) {
		t.Errorf("Ready on a closed store = %v; want the database's error", err)
	}
}
