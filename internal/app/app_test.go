package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/blob"
)

// TestOpenBlobs checks the choice of blob store from BLOB_URL (the S3 store
// itself is tested in package blob/s3).
func TestOpenBlobs(t *testing.T) {
	dataDir := t.TempDir()
	tests := []struct {
		name, url, dataDir string
		wantErr            string
	}{
		{"disk", "", dataDir, ""},
		{"no data dir", "", "", "no data dir"},
		{"unknown scheme", "gs://bucket", dataDir, "want s3://"},
		{"file URL", "file:///tmp/blobs", dataDir, "want s3://"},
		{"bad s3 URL", "s3://B?region=us-east-1", dataDir, "bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := openBlobs(t.Context(), tt.url, tt.dataDir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("openBlobs(%q, %q) = %v; want an error with %q", tt.url, tt.dataDir, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			d, ok := s.(*blob.Disk)
			if !ok {
				t.Fatalf("openBlobs(%q) = %T; want *Disk", tt.url, s)
			}
			if want := filepath.Join(dataDir, "blobs"); d.Dir() != want {
				t.Errorf("Dir() = %q; want %q", d.Dir(), want)
			}
			if fi, err := os.Stat(d.Dir()); err != nil || !fi.IsDir() {
				t.Errorf("blobs dir: %v", err)
			}
		})
	}
}
