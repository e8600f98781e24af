package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// testS3Env names the S3 server the S3 tests run against, e.g.
// "s3://studio-test?endpoint=http://127.0.0.1:7070&region=us-east-1", with
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set; scripts/test.sh sets all
// three. Each test gets a fresh bucket named after the URL's.
const testS3Env = "TEST_S3_URL"

// testStore is one fresh, empty store under test and a way to see all it
// keeps, temporary files included.
type testStore struct {
	Store
	// leftovers lists what the store holds: keys, and the temporary files
	// of failed writes, which must not exist.
	leftovers func(t testing.TB) []string
}

// engine makes fresh stores of one kind.
type engine struct {
	name string
	// skip, if set, says why this engine does not run.
	skip string
	new  func(t testing.TB) *testStore
}

func engines() []engine {
	s3Skip := ""
	if os.Getenv(testS3Env) == "" {
		s3Skip = testS3Env + " is not set: skipping the S3 store (scripts/test.sh starts versitygw and sets it)"
	}
	return []engine{
		{name: "disk", new: newDiskTestStore},
		{name: "s3", skip: s3Skip, new: newS3TestStore},
	}
}

// newDiskTestStore returns a disk store in a fresh temporary directory.
func newDiskTestStore(t testing.TB) *testStore {
	dir := filepath.Join(t.TempDir(), "blobs")
	d, err := NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return &testStore{Store: d, leftovers: func(t testing.TB) []string { return filesUnder(t, dir) }}
}

// filesUnder lists the files under dir (not the directories), relative and
// slash-separated.
func filesUnder(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// newS3TestStore creates a bucket with a random name on the TEST_S3_URL
// server, returns an S3 store on it and removes the bucket at the end.
func newS3TestStore(t testing.TB) *testStore {
	cfg, client := testS3Bucket(t)
	cfg.SpoolDir = t.TempDir()
	s, err := NewS3(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	leftovers := func(t testing.TB) []string {
		files := filesUnder(t, cfg.SpoolDir)
		for _, k := range listKeys(t, client, cfg.Bucket) {
			files = append(files, "s3:"+k)
		}
		return files
	}
	return &testStore{Store: s, leftovers: leftovers}
}

// testS3Bucket creates a fresh bucket on the TEST_S3_URL server, named after
// the URL's bucket with a random suffix, and empties and deletes it when t
// ends. It returns the config of the new bucket and a client for checks.
func testS3Bucket(t testing.TB) (S3Config, *s3.Client) {
	t.Helper()
	cfg, err := ParseURL(os.Getenv(testS3Env))
	if err != nil {
		t.Fatalf("%s: %v", testS3Env, err)
	}
	client, tr, err := newS3Client(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	prefix := strings.TrimRight(cfg.Bucket[:min(len(cfg.Bucket), 63-1-2*len(suffix))], ".-")
	cfg.Bucket = prefix + "-" + hex.EncodeToString(suffix)
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: &cfg.Bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", cfg.Bucket, err)
	}
	t.Cleanup(func() {
		defer tr.CloseIdleConnections()
		ctx := context.Background() // t.Context is done by now
		for _, k := range listKeys(t, client, cfg.Bucket) {
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &cfg.Bucket, Key: &k}); err != nil {
				t.Errorf("empty bucket %s: %v", cfg.Bucket, err)
			}
		}
		if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &cfg.Bucket}); err != nil {
			t.Errorf("delete bucket %s: %v", cfg.Bucket, err)
		}
	})
	return cfg, client
}

// listKeys lists every key in bucket.
func listKeys(t testing.TB, client *s3.Client, bucket string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket})
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
