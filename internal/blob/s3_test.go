package blob

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func skipWithoutS3(t testing.TB) {
	t.Helper()
	if os.Getenv(testS3Env) == "" {
		t.Skip(testS3Env + " is not set: skipping the S3 store (scripts/test.sh starts versitygw and sets it)")
	}
}

// TestOpenS3 checks that Open picks the S3 store for an s3:// URL, and
// refuses a bucket that does not exist.
func TestOpenS3(t *testing.T) {
	skipWithoutS3(t)
	cfg, _ := testS3Bucket(t)
	s, err := Open(t.Context(), cfg.String(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*S3); !ok {
		t.Fatalf("Open(%q) = %T; want *S3", cfg, s)
	}
	if _, err := s.Put(t.Context(), "hello", strings.NewReader("world")); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, "hello"); string(got) != "world" {
		t.Errorf("read %q", got)
	}

	missing := cfg
	missing.Bucket += "-missing"
	if s, err := Open(t.Context(), missing.String(), ""); err == nil {
		s.Close()
		t.Errorf("Open(%q) of a missing bucket succeeded", missing)
	}
}

// TestS3OverwriteWhileReading checks that an Object never mixes two
// versions: once the key is overwritten, its next request fails.
func TestS3OverwriteWhileReading(t *testing.T) {
	skipWithoutS3(t)
	s := newS3TestStore(t)
	first := randomBytes(100_000)
	mustPut(t, s, "k", first)
	o, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.(*s3Object).etag == "" {
		t.Skip("the server keeps no ETags (versitygw --nometa): If-Match cannot guard reads")
	}
	head := make([]byte, 10)
	if _, err := io.ReadFull(o, head); err != nil || !bytes.Equal(head, first[:10]) {
		t.Fatalf("first read: %v", err)
	}
	mustPut(t, s, "k", randomBytes(100_000))
	if _, err := o.Seek(50_000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if n, err := o.Read(make([]byte, 10)); err == nil || !strings.Contains(err.Error(), "overwritten") {
		t.Errorf("read after overwrite = %d, %v; want an overwritten error", n, err)
	}
}

// TestS3ObjectClosed checks that a closed Object refuses reads and seeks.
func TestS3ObjectClosed(t *testing.T) {
	skipWithoutS3(t)
	s := newS3TestStore(t)
	mustPut(t, s, "k", []byte("bytes"))
	o, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Read(make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Read(make([]byte, 2)); err == nil {
		t.Error("Read after Close succeeded")
	}
	if _, err := o.Seek(0, io.SeekStart); err == nil {
		t.Error("Seek after Close succeeded")
	}
}

// recordingTransport records the method and Range header of each request
// and counts the response body bytes the client reads.
type recordingTransport struct {
	tr       http.RoundTripper
	mu       sync.Mutex
	requests []string
	read     int64
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.requests = append(rt.requests, r.Method+" "+r.Header.Get("Range"))
	rt.mu.Unlock()
	res, err := rt.tr.RoundTrip(r)
	if err == nil {
		res.Body = &countingBody{ReadCloser: res.Body, rt: rt}
	}
	return res, err
}

type countingBody struct {
	io.ReadCloser
	rt *recordingTransport
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.rt.mu.Lock()
	b.rt.read += int64(n)
	b.rt.mu.Unlock()
	return n, err
}

// TestS3ServeRangeFetchesTheRange checks that http.ServeContent over an S3
// Object sends one HEAD and one ranged GET from the range's start, and
// reads little more than the range: never the whole object.
func TestS3ServeRangeFetchesTheRange(t *testing.T) {
	skipWithoutS3(t)
	ts := newS3TestStore(t)
	data := randomBytes(5 << 20)
	mustPut(t, ts, "big", data)

	st := ts.Store.(*S3)
	rt := &recordingTransport{tr: st.transport}
	s := *st
	s.client = s3.New(st.client.Options(), func(o *s3.Options) { o.HTTPClient = &http.Client{Transport: rt} })

	o, err := s.Open(t.Context(), "big")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	req := httptest.NewRequest(http.MethodGet, "/big", nil)
	req.Header.Set("Range", "bytes=3000000-3000009")
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(rec, req, "big", o.Info().ModTime, o)
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), data[3000000:3000010]) {
		t.Fatalf("status %d, body %x; want 206 and %x", rec.Code, rec.Body.Bytes(), data[3000000:3000010])
	}
	if len(rt.requests) != 2 || rt.requests[0] != "HEAD " || rt.requests[1] != "GET bytes=3000000-" {
		t.Errorf("requests %q; want a HEAD and one GET bytes=3000000-", rt.requests)
	}
	if rt.read > 1<<20 {
		t.Errorf("read %d bytes of responses for a 10-byte range", rt.read)
	}
}
