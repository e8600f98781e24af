package sqlstore

import (
	"database/sql"
	"time"

	"studio/internal/ts"
)

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func nullStr(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func tsPtr(v sql.NullInt64) *ts.Time {
	if !v.Valid {
		return nil
	}
	t := ts.Milli(v.Int64)
	return &t
}
