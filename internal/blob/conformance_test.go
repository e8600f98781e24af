package blob_test

import (
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"studio/internal/blob"
	"studio/internal/blob/blobtest"
)

// TestConformance runs the blob stores' behaviour checks on the disk store;
// the S3 store runs the same ones in package s3.
func TestConformance(t *testing.T) { blobtest.Conformance(t, newDiskTestStore) }

// BenchmarkPut measures Put of a 5 MB blob on disk:
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/blob/...
func BenchmarkPut(b *testing.B) { blobtest.BenchPut(b, newDiskTestStore) }

// BenchmarkRead measures Open and a full read of a 5 MB blob on disk.
func BenchmarkRead(b *testing.B) { blobtest.BenchRead(b, newDiskTestStore) }

// newDiskTestStore returns a disk store in a fresh temporary directory.
func newDiskTestStore(t testing.TB) *blobtest.Store {
	dir := filepath.Join(t.TempDir(), "blobs")
	d, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	plant := func(t testing.TB, mod time.Time) string {
		return blobtest.PlantFile(t, filepath.Join(dir, "assets", "h1", ".k.tmp-"+rand.Text()), mod)
	}
	return &blobtest.Store{Store: d, Leftovers: func(t testing.TB) []string { return blobtest.FilesUnder(t, dir) }, PlantTemp: plant}
}
