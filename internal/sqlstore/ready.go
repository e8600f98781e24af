package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ErrPending is Ready's answer, wrapped, when an embedded migration is not
// applied to the database.
var ErrPending = errors.New("migrations not applied")

// Ready reports whether the database answers and holds every migration
// this binary embeds: the database's half of GET /ready. It reads only the
// migrations' own table (a hundred-odd rows); ctx bounds it.
func (db *DB) Ready(ctx context.Context) error {
	rows, err := db.r.QueryContext(ctx, `SELECT version_id FROM goose_db_version`)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer rows.Close()
	applied := make(map[int64]bool, 256)
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return fmt.Errorf("database: %w", err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	var pending []int64
	for _, v := range embeddedVersions() {
		if !applied[v] {
			pending = append(pending, v)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: %d, the first %05d", ErrPending, len(pending), pending[0])
	}
	return nil
}

// embeddedVersions are the versions of the migrations this binary carries:
// the SQL files and the Go migrations, in order.
var embeddedVersions = sync.OnceValue(func() []int64 {
	vs := []int64{searchVersion, webhookHostsVersion}
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	for _, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		digits, _, _ := strings.Cut(base, "_")
		if v, err := strconv.ParseInt(digits, 10, 64); err == nil {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
})
