package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"studio/internal/blob/blobtest"
)

// testS3Env names the S3 server the S3 tests run against, e.g.
// "s3://studio-test?endpoint=http://127.0.0.1:7070&region=us-east-1", with
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set; scripts/test.sh sets all
// three. Each test gets a fresh bucket named after the URL's.
const testS3Env = "TEST_S3_URL"

func skipWithoutS3(t testing.TB) {
	t.Helper()
	if os.Getenv(testS3Env) == "" {
		t.Skip(testS3Env + " is not set: skipping the S3 store (scripts/test.sh starts versitygw and sets it)")
	}
}

// TestConformance runs the blob stores' behaviour checks on the S3 store
// (the disk store runs the same ones in package blob).
func TestConformance(t *testing.T) {
	skipWithoutS3(t)
	blobtest.Conformance(t, newTestStore)
}

// BenchmarkPut measures Put of a 5 MB blob on S3:
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/blob/...
func BenchmarkPut(b *testing.B) {
	skipWithoutS3(b)
	blobtest.BenchPut(b, newTestStore)
}

// BenchmarkRead measures Open and a full read of a 5 MB blob on S3.
func BenchmarkRead(b *testing.B) {
	skipWithoutS3(b)
	blobtest.BenchRead(b, newTestStore)
}

// TestNewFromURL checks that the store opens from a BLOB_URL, and that
// New refuses a bucket that does not exist.
func TestNewFromURL(t *testing.T) {
	skipWithoutS3(t)
	bucket, _ := testBucket(t)
	cfg, err := ParseURL(bucket.String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(t.Context(), "hello", strings.NewReader("world")); err != nil {
		t.Fatal(err)
	}
	if got := blobtest.ReadAll(t, s, "hello"); string(got) != "world" {
		t.Errorf("read %q", got)
	}

	missing := cfg
	missing.Bucket += "-missing"
	if s, err := New(t.Context(), missing); err == nil {
		s.Close()
		t.Errorf("New(%q) of a missing bucket succeeded", missing)
	}
}

// TestS3OverwriteWhileReading checks that an Object never mixes two
// versions: once the key is overwritten, its next request fails.
func TestS3OverwriteWhileReading(t *testing.T) {
	skipWithoutS3(t)
	s := newTestStore(t)
	first := blobtest.RandomBytes(100_000)
	blobtest.MustPut(t, s, "k", first)
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
	blobtest.MustPut(t, s, "k", blobtest.RandomBytes(100_000))
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
	s := newTestStore(t)
	blobtest.MustPut(t, s, "k", []byte("bytes"))
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
	ts := newTestStore(t)
	data := blobtest.RandomBytes(5 << 20)
	blobtest.MustPut(t, ts, "big", data)

	st := ts.Store.(*Store)
	rt := &recordingTransport{tr: st.transport}
	s := *st
	s.client = awss3.New(st.client.Options(), func(o *awss3.Options) { o.HTTPClient = &http.Client{Transport: rt} })

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

// newTestStore creates a bucket with a random name on the TEST_S3_URL
// server, returns an S3 store on it and removes the bucket at the end.
func newTestStore(t testing.TB) *blobtest.Store {
	cfg, client := testBucket(t)
	cfg.SpoolDir = t.TempDir()
	s, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	leftovers := func(t testing.TB) []string {
		files := blobtest.FilesUnder(t, cfg.SpoolDir)
		for _, k := range listKeys(t, client, cfg.Bucket) {
			files = append(files, "s3:"+k)
		}
		return files
	}
	plant := func(t testing.TB, mod time.Time) string {
		return blobtest.PlantFile(t, filepath.Join(cfg.SpoolDir, "blob-put-"+rand.Text()), mod)
	}
	return &blobtest.Store{Store: s, Leftovers: leftovers, KeyPrefix: "s3:", PlantTemp: plant}
}

// testBucket creates a fresh bucket on the TEST_S3_URL server, named after
// the URL's bucket with a random suffix, and empties and deletes it when t
// ends. It returns the config of the new bucket and a client for checks.
func testBucket(t testing.TB) (Config, *awss3.Client) {
	t.Helper()
	cfg, err := ParseURL(os.Getenv(testS3Env))
	if err != nil {
		t.Fatalf("%s: %v", testS3Env, err)
	}
	client, tr, err := newClient(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	prefix := strings.TrimRight(cfg.Bucket[:min(len(cfg.Bucket), 63-1-2*len(suffix))], ".-")
	cfg.Bucket = prefix + "-" + hex.EncodeToString(suffix)
	if _, err := client.CreateBucket(t.Context(), &awss3.CreateBucketInput{Bucket: &cfg.Bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", cfg.Bucket, err)
	}
	t.Cleanup(func() {
		defer tr.CloseIdleConnections()
		ctx := context.Background() // t.Context is done by now
		for _, k := range listKeys(t, client, cfg.Bucket) {
			if _, err := client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &cfg.Bucket, Key: &k}); err != nil {
				t.Errorf("empty bucket %s: %v", cfg.Bucket, err)
			}
		}
		if _, err := client.DeleteBucket(ctx, &awss3.DeleteBucketInput{Bucket: &cfg.Bucket}); err != nil {
			t.Errorf("delete bucket %s: %v", cfg.Bucket, err)
		}
	})
	return cfg, client
}

// listKeys lists every key in bucket.
func listKeys(t testing.TB, client *awss3.Client, bucket string) []string {
	t.Helper()
	var keys []string
	p := awss3.NewListObjectsV2Paginator(client, &awss3.ListObjectsV2Input{Bucket: &bucket})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			var nb *types.NoSuchBucket
			if errors.As(err, &nb) {
				return keys
			}
			t.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	slices.Sort(keys)
	return keys
}
