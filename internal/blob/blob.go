// Package blob keeps the bytes of assets and packs: in a folder on disk by
// default, in an S3-compatible bucket when BLOB_URL says so. Keys are
// derived from ids by the callers (e.g. "assets/<house>/<asset id>"), never
// from user input.
package blob

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound reports a key with no bytes.
var ErrNotFound = errors.New("blob: not found")

// Info describes stored bytes.
type Info struct {
	Size    int64
	ModTime time.Time
}

// Object is stored bytes opened for reading. It seeks, so it can be served
// with http.ServeContent (ranges, conditional requests).
type Object interface {
	io.ReadSeekCloser
	Info() Info
}

// Store keeps bytes by key.
type Store interface {
	// Put stores r's bytes under key atomically: a reader sees the old
	// bytes or the new, never a part. It returns the size written.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open opens the bytes under key; ErrNotFound when there are none.
	Open(ctx context.Context, key string) (Object, error)
	// Stat describes the bytes under key; ErrNotFound when there are none.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the bytes under key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}
