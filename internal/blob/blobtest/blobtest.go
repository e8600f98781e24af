// Package blobtest is the conformance suite every blob.Store passes: the
// disk store's tests and the S3 store's run the same checks (perkeep's
// kvtest pattern), so a key valid on one store behaves the same on the other.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/blob"
)

// Store is one fresh, empty store under test and a way to see all it
// keeps, temporary files included.
type Store struct {
	blob.Store
	// Leftovers lists what the store holds: keys (each with KeyPrefix), and
	// the temporary files of failed writes, which must not exist.
	Leftovers func(t testing.TB) []string
	// KeyPrefix is how Leftovers names a key: "" on disk, "s3:" on S3.
	KeyPrefix string
	// PlantTemp leaves a temporary file as a Put that a crash interrupted
	// would, last written at mod, and returns its path (PlantFile helps).
	PlantTemp func(t testing.TB, mod time.Time) string
}

// Conformance runs the behaviour checks against the stores newStore makes;
// each check gets a fresh, empty store.
func Conformance(t *testing.T, newStore func(t testing.TB) *Store) {
	checks := []struct {
		name string
		run  func(t *testing.T, s *Store)
	}{
		{"put and read back", testPutRead},
		{"overwrite", testOverwrite},
		{"stat", testStat},
		{"delete", testDelete},
		{"delete missing", testDeleteMissing},
		{"open missing", testOpenMissing},
		{"seek and read", testSeekRead},
		{"5 MB", testLarge},
		{"concurrent puts", testConcurrentPuts},
		{"failed put leaves nothing", testFailedPut},
		{"bad keys", testBadKeys},
		{"serve ranges", testServeContent},
		{"walk", testWalk},
		{"sweep temporary files", testSweepTemp},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newStore(t))
		})
	}
}

// BadKeys are refused by blob.CheckKey and so by every store method.
var BadKeys = []string{
	"",
	"/abs",
	"/",
	"a/",
	"a//b",
	"..",
	".",
	"../up",
	"a/../b",
	"a/./b",
	"a/..",
	".hidden",
	"a/.tmp-x",
	`a\b`,
	`..\up`,
	"nul\x00byte",
	"new\nline",
	"del\x7f",
	"bad\xffutf8",
	strings.Repeat("s", 201),
	strings.Repeat("abcdefghi/", 103), // 1030 bytes
}

// RandomBytes returns n random bytes.
func RandomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// MustPut stores data under key and checks the size Put returns.
func MustPut(t testing.TB, s blob.Store, key string, data []byte) {
	t.Helper()
	n, err := s.Put(t.Context(), key, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	if n != int64(len(data)) {
		t.Fatalf("Put(%q) = %d; want %d", key, n, len(data))
	}
}

// ReadAll opens key and reads it to the end.
func ReadAll(t testing.TB, s blob.Store, key string) []byte {
	t.Helper()
	o, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	if o.Info().Size != int64(len(b)) {
		t.Errorf("Open(%q).Info().Size = %d; read %d bytes", key, o.Info().Size, len(b))
	}
	return b
}

func wantNoLeftovers(t *testing.T, s *Store, want ...string) {
	t.Helper()
	got := s.Leftovers(t)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("store holds %q; want %q", got, want)
	}
}

func testPutRead(t *testing.T, s *Store) {
	for _, size := range []int{0, 1, 1000, 300_000} {
		key := fmt.Sprintf("assets/house-1/%d.bin", size)
		data := RandomBytes(size)
		MustPut(t, s, key, data)
		if got := ReadAll(t, s, key); !bytes.Equal(got, data) {
			t.Errorf("%s: read back %d bytes that differ from the %d put", key, len(got), len(data))
		}
	}
}

func testOverwrite(t *testing.T, s *Store) {
	MustPut(t, s, "k", RandomBytes(10_000))
	MustPut(t, s, "k", []byte("new"))
	if got := ReadAll(t, s, "k"); string(got) != "new" {
		t.Errorf("after overwrite read %q; want %q", got, "new")
	}
	info, err := s.Stat(t.Context(), "k")
	if err != nil || info.Size != 3 {
		t.Errorf("Stat = %+v, %v; want size 3", info, err)
	}
	wantNoLeftovers(t, s, prefixed(s, "k")...)
}

// prefixed returns what Leftovers lists for keys.
func prefixed(s *Store, keys ...string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = s.KeyPrefix + k
	}
	return out
}

func testStat(t *testing.T, s *Store) {
	before := time.Now()
	MustPut(t, s, "a/b/c", RandomBytes(1234))
	after := time.Now()
	info, err := s.Stat(t.Context(), "a/b/c")
	if err != nil {
		t.Fatal(err)
	}
	// S3 keeps whole seconds; allow for that and a little clock skew.
	if info.Size != 1234 || info.ModTime.Before(before.Add(-2*time.Second)) || info.ModTime.After(after.Add(2*time.Second)) {
		t.Errorf("Stat = %+v; want size 1234 and a time within [%v, %v]", info, before, after)
	}
	o, err := s.Open(t.Context(), "a/b/c")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if got := o.Info(); got.Size != info.Size || !got.ModTime.Equal(info.ModTime) {
		t.Errorf("Open().Info() = %+v; Stat = %+v", got, info)
	}
}

func testDelete(t *testing.T, s *Store) {
	MustPut(t, s, "x/1", []byte("one"))
	MustPut(t, s, "x/2", []byte("two"))
	if err := s.Delete(t.Context(), "x/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(t.Context(), "x/1"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open after Delete: %v; want blob.ErrNotFound", err)
	}
	if _, err := s.Stat(t.Context(), "x/1"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat after Delete: %v; want blob.ErrNotFound", err)
	}
	if got := ReadAll(t, s, "x/2"); string(got) != "two" {
		t.Errorf("the other key reads %q", got)
	}
	wantNoLeftovers(t, s, prefixed(s, "x/2")...)
}

func testDeleteMissing(t *testing.T, s *Store) {
	MustPut(t, s, "dir/file", []byte("x"))
	for _, key := range []string{"never/was", "dir", "dir/file/below", "dir/file", "dir/file"} {
		if err := s.Delete(t.Context(), key); err != nil {
			t.Errorf("Delete(%q): %v; want nil", key, err)
		}
	}
	wantNoLeftovers(t, s)
}

func testOpenMissing(t *testing.T, s *Store) {
	MustPut(t, s, "dir/file", []byte("x"))
	// "dir" is a folder on disk, "dir/file/below" has a file for a parent.
	for _, key := range []string{"missing", "no/such/dir/key", "dir", "dir/file/below", "dir/fil"} {
		if _, err := s.Open(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Open(%q): %v; want blob.ErrNotFound", key, err)
		}
		if _, err := s.Stat(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat(%q): %v; want blob.ErrNotFound", key, err)
		}
	}
}

func testSeekRead(t *testing.T, s *Store) {
	const size = 100_000
	data := RandomBytes(size)
	MustPut(t, s, "seek", data)
	o, err := s.Open(t.Context(), "seek")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	// The steps run in order on one Object. read < 0 reads to the end.
	steps := []struct {
		name    string
		offset  int64
		whence  int
		wantPos int64
		read    int
		want    []byte
		wantErr bool
	}{
		{name: "end", offset: 0, whence: io.SeekEnd, wantPos: size},
		{name: "read at end", offset: 0, whence: io.SeekCurrent, wantPos: size, read: 1, want: []byte{}},
		{name: "start+10", offset: 10, whence: io.SeekStart, wantPos: 10, read: 20, want: data[10:30]},
		{name: "current+5", offset: 5, whence: io.SeekCurrent, wantPos: 35, read: 10, want: data[35:45]},
		{name: "current-45", offset: -45, whence: io.SeekCurrent, wantPos: 0, read: 3, want: data[:3]},
		{name: "same place keeps reading", offset: 0, whence: io.SeekCurrent, wantPos: 3, read: 4, want: data[3:7]},
		{name: "end-10 to the end", offset: -10, whence: io.SeekEnd, wantPos: size - 10, read: -1, want: data[size-10:]},
		{name: "middle to the end", offset: size / 2, whence: io.SeekStart, wantPos: size / 2, read: -1, want: data[size/2:]},
		{name: "past the end", offset: size + 10, whence: io.SeekStart, wantPos: size + 10, read: 1, want: []byte{}},
		{name: "negative", offset: -1, whence: io.SeekStart, wantErr: true},
		{name: "bad whence", offset: 0, whence: 7, wantErr: true},
		{name: "back to start, all", offset: 0, whence: io.SeekStart, wantPos: 0, read: -1, want: data},
	}
	for _, st := range steps {
		pos, err := o.Seek(st.offset, st.whence)
		if st.wantErr {
			if err == nil {
				t.Errorf("%s: Seek(%d, %d) = %d; want an error", st.name, st.offset, st.whence, pos)
			}
			continue
		}
		if err != nil || pos != st.wantPos {
			t.Fatalf("%s: Seek(%d, %d) = %d, %v; want %d", st.name, st.offset, st.whence, pos, err, st.wantPos)
		}
		var got []byte
		switch {
		case st.read < 0:
			got, err = io.ReadAll(o)
		case st.read > 0:
			got = make([]byte, st.read)
			var n int
			n, err = io.ReadFull(o, got)
			got = got[:n]
			if n == 0 && err == io.EOF {
				err = nil // wanted: nothing left
			}
		}
		if err != nil {
			t.Fatalf("%s: read: %v", st.name, err)
		}
		if !bytes.Equal(got, st.want) {
			t.Errorf("%s: read %d bytes %x...; want %d bytes", st.name, len(got), got[:min(len(got), 8)], len(st.want))
		}
	}
}

func testLarge(t *testing.T, s *Store) {
	data := RandomBytes(5 << 20)
	MustPut(t, s, "large/5mb", data)
	o, err := s.Open(t.Context(), "large/5mb")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	h := sha256.New()
	n, err := io.Copy(h, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256(data); n != int64(len(data)) || !bytes.Equal(h.Sum(nil), want[:]) {
		t.Errorf("read %d bytes with sha256 %x; want %d with %x", n, h.Sum(nil), len(data), want)
	}
}

func testConcurrentPuts(t *testing.T, s *Store) {
	const writers = 8
	datas := make([][]byte, writers)
	for i := range datas {
		datas[i] = RandomBytes(200_000 + i)
	}
	// Different keys, and all writers on one more key at once.
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for i, d := range datas {
		wg.Go(func() {
			if _, err := s.Put(t.Context(), fmt.Sprintf("c/%d", i), bytes.NewReader(d)); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			if _, err := s.Put(t.Context(), "c/shared", bytes.NewReader(d)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, d := range datas {
		if got := ReadAll(t, s, fmt.Sprintf("c/%d", i)); !bytes.Equal(got, d) {
			t.Errorf("c/%d: read %d bytes that differ from the %d put", i, len(got), len(d))
		}
	}
	shared := ReadAll(t, s, "c/shared")
	whole := false
	for _, d := range datas {
		whole = whole || bytes.Equal(shared, d)
	}
	if !whole {
		t.Errorf("c/shared holds %d bytes that are none of the writers' whole bytes", len(shared))
	}
	if got := len(s.Leftovers(t)); got != writers+1 {
		t.Errorf("store holds %d files; want %d: %q", got, writers+1, s.Leftovers(t))
	}
}

var errBoom = errors.New("boom")

// failAfter yields n random bytes and then fails with err.
type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	n := min(len(p), f.n)
	rand.Read(p[:n])
	f.n -= n
	return n, nil
}

// cancelAfter yields random bytes forever and calls cancel once n are out.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
	}
	rand.Read(p)
	c.n -= len(p)
	return len(p), nil
}

func testFailedPut(t *testing.T, s *Store) {
	MustPut(t, s, "old", []byte("old bytes"))
	tests := []struct {
		name    string
		key     string
		reader  func(cancel context.CancelFunc) io.Reader
		early   bool // cancel before Put
		wantErr error
	}{
		{"reader fails mid-way", "new", func(context.CancelFunc) io.Reader { return &failAfter{n: 1 << 20, err: errBoom} }, false, errBoom},
		{"reader fails over old bytes", "old", func(context.CancelFunc) io.Reader { return &failAfter{n: 1 << 20, err: errBoom} }, false, errBoom},
		{"reader fails at once", "new/deeper/key", func(context.CancelFunc) io.Reader { return &failAfter{err: errBoom} }, false, errBoom},
		{"context cancelled mid-way", "new", func(c context.CancelFunc) io.Reader { return &cancelAfter{n: 1 << 20, cancel: c} }, false, context.Canceled},
		{"context cancelled over old bytes", "old", func(c context.CancelFunc) io.Reader { return &cancelAfter{n: 1 << 20, cancel: c} }, false, context.Canceled},
		{"context cancelled before", "new", func(context.CancelFunc) io.Reader { return bytes.NewReader([]byte("never")) }, true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.early {
				cancel()
			}
			n, err := s.Put(ctx, tt.key, tt.reader(cancel))
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Put = %d, %v; want %v", n, err, tt.wantErr)
			}
			if got := ReadAll(t, s, "old"); string(got) != "old bytes" {
				t.Errorf("old reads %q after a failed put", got)
			}
			if _, err := s.Stat(t.Context(), tt.key); tt.key != "old" && !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("Stat(%q) after a failed put: %v; want blob.ErrNotFound", tt.key, err)
			}
			wantNoLeftovers(t, s, prefixed(s, "old")...)
		})
	}
}

func testBadKeys(t *testing.T, s *Store) {
	for _, key := range BadKeys {
		ctx := t.Context()
		if _, err := s.Put(ctx, key, bytes.NewReader([]byte("x"))); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Put(%q): %v; want blob.ErrBadKey", key, err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Open(%q): %v; want blob.ErrBadKey", key, err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Stat(%q): %v; want blob.ErrBadKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Delete(%q): %v; want blob.ErrBadKey", key, err)
		}
	}
	wantNoLeftovers(t, s)
}

func testServeContent(t *testing.T, s *Store) {
	const size = 10_000
	data := RandomBytes(size)
	MustPut(t, s, "serve/image.jpg", data)
	tests := []struct {
		rangeHeader  string
		wantStatus   int
		wantBody     []byte
		contentRange string
		wantParts    [][]byte // a multipart/byteranges answer
	}{
		{"", http.StatusOK, data, "", nil},
		{"bytes=0-99", http.StatusPartialContent, data[:100], "bytes 0-99/10000", nil},
		{"bytes=5000-5009", http.StatusPartialContent, data[5000:5010], "bytes 5000-5009/10000", nil},
		{"bytes=9990-", http.StatusPartialContent, data[9990:], "bytes 9990-9999/10000", nil},
		{"bytes=-25", http.StatusPartialContent, data[size-25:], "bytes 9975-9999/10000", nil},
		{"bytes=9000-20000", http.StatusPartialContent, data[9000:], "bytes 9000-9999/10000", nil},
		{"bytes=20000-", http.StatusRequestedRangeNotSatisfiable, nil, "bytes */10000", nil},
		{"bytes=0-1,8000-8002", http.StatusPartialContent, nil, "", [][]byte{data[0:2], data[8000:8003]}},
	}
	for _, tt := range tests {
		t.Run(tt.rangeHeader, func(t *testing.T) {
			o, err := s.Open(t.Context(), "serve/image.jpg")
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			req := httptest.NewRequest(http.MethodGet, "/files/image.jpg", nil)
			if tt.rangeHeader != "" {
				req.Header.Set("Range", tt.rangeHeader)
			}
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", "image/jpeg") // as the asset routes do: no sniffing read
			http.ServeContent(rec, req, "image.jpg", o.Info().ModTime, o)
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status %d; want %d (body %.100q)", res.StatusCode, tt.wantStatus, body)
			}
			if got := res.Header.Get("Content-Range"); got != tt.contentRange {
				t.Errorf("Content-Range %q; want %q", got, tt.contentRange)
			}
			if tt.wantParts == nil {
				if tt.wantBody != nil && !bytes.Equal(body, tt.wantBody) {
					t.Errorf("body: %d bytes that differ from the %d wanted", len(body), len(tt.wantBody))
				}
				if tt.wantBody != nil && res.Header.Get("Content-Length") != strconv.Itoa(len(tt.wantBody)) {
					t.Errorf("Content-Length %q; want %d", res.Header.Get("Content-Length"), len(tt.wantBody))
				}
				return
			}
			_, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
			if err != nil {
				t.Fatal(err)
			}
			mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
			for i, want := range tt.wantParts {
				part, err := mr.NextPart()
				if err != nil {
					t.Fatalf("part %d: %v", i, err)
				}
				if got, _ := io.ReadAll(part); !bytes.Equal(got, want) {
					t.Errorf("part %d (%s): %x; want %x", i, part.Header.Get("Content-Range"), got, want)
				}
			}
		})
	}
}

func testWalk(t *testing.T, s *Store) {
	keys := map[string]int{"assets/h1/a": 1, "assets/h1/b": 2, "assets/h2/c": 3, "packs/h1/p.zip": 4, "other": 5}
	for k, n := range keys {
		MustPut(t, s, k, RandomBytes(n))
	}
	s.PlantTemp(t, time.Now()) // never a key
	walk := func(prefix string) map[string]int {
		got := map[string]int{}
		err := s.Walk(t.Context(), prefix, func(key string, info blob.Info) error {
			if time.Since(info.ModTime) > time.Hour || info.ModTime.After(time.Now().Add(time.Minute)) {
				t.Errorf("%s: ModTime %v", key, info.ModTime)
			}
			got[key] = int(info.Size)
			return nil
		})
		if err != nil {
			t.Fatalf("Walk(%q): %v", prefix, err)
		}
		return got
	}
	if got := walk(""); !maps.Equal(got, keys) {
		t.Errorf("Walk(\"\") = %v; want %v", got, keys)
	}
	want := map[string]int{"assets/h1/a": 1, "assets/h1/b": 2, "assets/h2/c": 3}
	if got := walk("assets/"); !maps.Equal(got, want) {
		t.Errorf("Walk(assets/) = %v; want %v", got, want)
	}
	if got := walk("nothing/"); len(got) != 0 {
		t.Errorf("Walk(nothing/) = %v; want nothing", got)
	}
	stop := errors.New("stop")
	n := 0
	err := s.Walk(t.Context(), "", func(string, blob.Info) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("a walk fn's error: %v after %d calls; want it returned after 1", err, n)
	}
}

func testSweepTemp(t *testing.T, s *Store) {
	MustPut(t, s, "assets/h1/k", []byte("kept"))
	now := time.Now()
	old := s.PlantTemp(t, now.Add(-2*time.Hour))
	young := s.PlantTemp(t, now)
	n, size, err := s.SweepTemp(t.Context(), now.Add(-time.Hour))
	if err != nil || n != 1 || size != int64(len("half a put")) {
		t.Fatalf("SweepTemp = %d, %d, %v; want the one stale file", n, size, err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a Put's file being written now was removed: %v", err)
	}
	if got := ReadAll(t, s, "assets/h1/k"); string(got) != "kept" {
		t.Errorf("a key was touched: %q", got)
	}
}
