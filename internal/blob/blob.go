// Package blob keeps the bytes of assets and packs behind one interface,
// Store: in a folder on disk (Disk, here) by default, in an S3-compatible
// bucket (package blob/s3) when BLOB_URL says so. Keys are derived from ids
// by the callers (e.g. "assets/<house>/<asset id>"), never from user input.
// Both stores pass the same conformance suite (package blob/blobtest).
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrNotFound reports a key with no bytes.
var ErrNotFound = errors.New("blob: not found")

// ErrBadKey reports a key that is not a clean relative slash path (see
// CheckKey). Keys come from ids, so this is a programming error.
var ErrBadKey = errors.New("blob: bad key")

// Info describes stored bytes.
type Info struct {
	Size    int64
	ModTime time.Time
}

// Object is stored bytes opened for reading. It seeks, so it can be served
// with http.ServeContent (ranges, conditional requests). An Object is not
// safe for concurrent use.
type Object interface {
	io.ReadSeekCloser
	Info() Info
}

// Store keeps bytes by key. Its methods are safe for concurrent use.
type Store interface {
	// Put stores r's bytes under key atomically: a reader sees the old
	// bytes or the new, never a part. It returns the size written. When r
	// fails or ctx ends first, nothing is stored and the old bytes stay.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open opens the bytes under key; ErrNotFound when there are none.
	Open(ctx context.Context, key string) (Object, error)
	// Stat describes the bytes under key; ErrNotFound when there are none.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the bytes under key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Walk calls fn with each key under prefix (a folder such as "assets/",
	// or "" for all) and its Info, in no set order; the temporary files of
	// unfinished Puts are not keys. An error from fn stops the walk and is
	// returned.
	Walk(ctx context.Context, prefix string, fn func(key string, info Info) error) error
	// SweepTemp removes the temporary files that Puts interrupted by a crash
	// left, when last written before before, and says how many and their
	// bytes. A Put in progress is younger than any sensible before.
	SweepTemp(ctx context.Context, before time.Time) (n int, size int64, err error)
	// Close releases the store (the disk store's directory handle, the S3
	// store's idle connections). Objects already opened stay readable.
	Close() error
}

// Key limits, shared by both stores so that a key valid on one is valid on
// the other: S3 allows 1024 bytes, and a segment leaves room on disk (255
// bytes a name) for the temporary file's prefix and suffix.
const (
	maxKeyLen     = 1024
	maxSegmentLen = 200
)

// CheckKey reports whether key is a valid key: a relative slash path of
// 1 to 1024 bytes of valid UTF-8 whose segments are 1 to 200 bytes long,
// do not start with a dot (so ".", ".." and the disk store's temporary
// files are excluded) and hold no backslash or control character. The error
// wraps ErrBadKey.
func CheckKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > maxKeyLen:
		return bad("longer than 1024 bytes")
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "":
			return bad("empty segment (leading, trailing or double slash)")
		case seg[0] == '.':
			return bad("segment starts with a dot")
		case len(seg) > maxSegmentLen:
			return bad("segment longer than 200 bytes")
		}
		for _, c := range seg {
			if c == '\\' || c < 0x20 || c == 0x7f {
				return bad("backslash or control character")
			}
		}
	}
	return nil
}

// CopyCtx copies r to w in chunks of 256 KiB (a 5 MB image takes a few
// dozen reads) until EOF, an error or the end of ctx: a cancelled Put stops
// at the next chunk even when the source would go on.
func CopyCtx(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	// Hide w's ReadFrom and r's WriteTo: both would bypass ctxReader.
	return io.CopyBuffer(struct{ io.Writer }{w}, ctxReader{ctx, r}, make([]byte, copyBufSize))
}

// ctxReader stops reading once ctx ends, so that a cancelled Put stops at
// the next chunk even when the source would go on.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

const copyBufSize = 256 << 10
