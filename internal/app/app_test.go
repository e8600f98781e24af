package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/blob"
	"studio/internal/engine"
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

// TestEngines: each tool runs on the first configured engine that can
// perform it, fal first, then the image endpoint, then the local engine,
// and capabilities name that engine.
func TestEngines(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		lookbook  string
		character string
		upscale   string
		err       bool
	}{
		{name: "local only", lookbook: "local", upscale: "local"},
		{name: "image endpoint", cfg: Config{AIImageBaseURL: "http://img.test", AIImageModel: "gpt-image-1"},
			lookbook: "image-api", character: "image-api", upscale: "local"},
		{name: "fal and the image endpoint", cfg: Config{FalKey: "k", FalURL: "http://fal.test", AIImageBaseURL: "http://img.test"},
			lookbook: "fal", character: "fal", upscale: "fal"},
		{name: "a bad image endpoint", cfg: Config{AIImageBaseURL: "ftp://img.test"}, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, _, err := engines(c.cfg)
			if c.err {
				if err == nil {
					t.Fatal("a bad AI_IMAGE_BASE_URL is accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for tool, want := range map[string]string{"lookbook": c.lookbook, "generate-character": c.character, "upscale": c.upscale} {
				if got, _ := engine.Provider(eng, tool); got != want {
					t.Errorf("%s is served by %q; want %q", tool, got, want)
				}
			}
		})
	}
}
