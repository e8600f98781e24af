package asset

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"studio/internal/auth"
	"studio/internal/errs"
)

// The library list is newest first: by creation instant, then by id, both
// descending. It is whole unless a limit is asked; a page ends with a
// cursor naming the last asset sent, and the next page starts below it.

// MaxPage is the largest page a list may ask for.
const MaxPage = 1000

// Cursor is a position in the list's order: the page it starts lists the
// assets below the one created at CreatedAt (Unix milliseconds) with ID.
type Cursor struct {
	CreatedAt int64
	ID        string
}

// ListQuery selects assets of the house, newest first.
type ListQuery struct {
	Folder string  // "" every asset; RootFolder those at the root; else a collection id
	Limit  int     // 0: every one; otherwise at most this many
	Before *Cursor // nil: from the newest
}

const cursorPrefix = "a1:"

// String encodes the cursor as the opaque nextCursor of the wire.
func (c Cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(c.CreatedAt, 10) + ":" + c.ID))
}

// CursorOf is the cursor below a.
func CursorOf(a Asset) Cursor { return Cursor{CreatedAt: a.CreatedAt.UnixMilli(), ID: a.ID} }

// ParseCursor decodes a nextCursor; errs.BadCursor when it is not one.
func ParseCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	rest, ok := strings.CutPrefix(string(b), cursorPrefix)
	if err != nil || !ok {
		return Cursor{}, errs.BadCursor
	}
	ms, id, ok := strings.Cut(rest, ":")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || n < 0 || id == "" || len(id) > 64 || strings.ContainsFunc(id, isControl) {
		return Cursor{}, errs.BadCursor
	}
	return Cursor{CreatedAt: n, ID: id}, nil
}

// Each calls fn with each live asset of the house q selects, newest first,
// as the store reads them: the list is never held whole. With a limit it
// returns the cursor of the next page, or nil when the page is the last;
// without one it is always nil. errs.BadLimit when the limit is outside 0
// to MaxPage.
func (s *Service) Each(ctx context.Context, p auth.Principal, q ListQuery, fn func(Asset) error) (*Cursor, error) {
	if q.Limit < 0 || q.Limit > MaxPage {
		return nil, errs.Msg(errs.BadLimit, "limit must be a whole number from 1 to "+strconv.Itoa(MaxPage)+".")
	}
	if q.Limit == 0 {
		return nil, s.store.ListAssets(ctx, p.HouseID, q, fn)
	}
	want := q.Limit
	q.Limit++ // one more tells whether a next page exists
	var sent int
	var last Asset
	var next *Cursor
	err := s.store.ListAssets(ctx, p.HouseID, q, func(a Asset) error {
		if sent == want {
			c := CursorOf(last)
			next = &c
			return nil
		}
		sent++
		last = a
		return fn(a)
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}

// List returns the assets Each would send.
func (s *Service) List(ctx context.Context, p auth.Principal, q ListQuery) ([]Asset, *Cursor, error) {
	out := []Asset{}
	next, err := s.Each(ctx, p, q, func(a Asset) error {
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, next, nil
}
