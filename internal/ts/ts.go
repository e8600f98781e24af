// Package ts is the wire form of an instant: RFC 3339 in UTC with
// milliseconds, stored as Unix milliseconds (DECISIONS §1).
package ts

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Layout is the one timestamp layout on the wire.
const Layout = "2006-01-02T15:04:05.000Z"

// Time is an instant with millisecond precision.
type Time struct{ time.Time }

// Milli makes a Time from Unix milliseconds.
func Milli(ms int64) Time { return Time{time.UnixMilli(ms).UTC()} }

// Of truncates t to milliseconds.
func Of(t time.Time) Time { return Milli(t.UnixMilli()) }

func (t Time) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(make([]byte, 0, len(Layout)+2)), nil
}

// AppendJSON appends the wire form, quoted, as MarshalJSON writes it.
func (t Time) AppendJSON(b []byte) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, Layout)
	return append(b, '"')
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' {
		return fmt.Errorf("ts: not a string")
	}
	v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return err
	}
	*t = Of(v)
	return nil
}

func (t Time) String() string { return t.UTC().Format(Layout) }

// Value stores the instant as Unix milliseconds.
func (t Time) Value() (driver.Value, error) { return t.UnixMilli(), nil }

// Scan reads Unix milliseconds.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*t = Milli(v)
	case int32:
		*t = Milli(int64(v))
	default:
		return fmt.Errorf("ts: cannot scan %T", src)
	}
	return nil
}
