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
// perform it in ENGINE_ORDER (FASHN, fal, the image endpoint, the local
// engine by default), and capabilities name that engine.
func TestEngines(t *testing.T) {
	both := Config{FalKey: "k", FalURL: "http://fal.test", FashnKey: "k", FashnURL: "http://fashn.test", AIImageBaseURL: "http://img.test"}
	falFirst := both
	falFirst.EngineOrder, _ = parseEngineOrder("fal, local")
	apiFirst := Config{FalKey: "k", FalURL: "http://fal.test", AIImageBaseURL: "http://img.test"}
	apiFirst.EngineOrder, _ = parseEngineOrder("image-api")
	cases := []struct {
		name      string
		cfg       Config
		lookbook  string
		character string
		upscale   string
		restores  bool // the image endpoint's answers go through fal's upscale model
		err       bool
	}{
		{name: "FASHN only", cfg: Config{FashnKey: "k", FashnURL: "http://fashn.test"}, lookbook: "fashn", character: "fashn", upscale: "local"},
		{name: "every provider, the default order", cfg: both, lookbook: "fashn", character: "fashn", upscale: "fal"},
		{name: "fal first, then local, then the rest", cfg: falFirst, lookbook: "fal", character: "fal", upscale: "fal"},
		{name: "local only", lookbook: "local", upscale: "local"},
		{name: "image endpoint", cfg: Config{AIImageBaseURL: "http://img.test", AIImageModel: "gpt-image-1"},
			lookbook: "image-api", character: "image-api", upscale: "local"},
		{name: "fal and the image endpoint", cfg: Config{FalKey: "k", FalURL: "http://fal.test", AIImageBaseURL: "http://img.test"},
			lookbook: "fal", character: "fal", upscale: "fal"},
		{name: "the image endpoint before fal restores through fal", cfg: apiFirst,
			lookbook: "image-api", character: "image-api", upscale: "fal", restores: true},
		{name: "a bad image endpoint", cfg: Config{AIImageBaseURL: "ftp://img.test"}, err: true},
		{name: "a bad FASHN URL", cfg: Config{FashnKey: "k", FashnURL: "ftp://fashn.test"}, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, _, err := engines(c.cfg, nil)
			if c.err {
				if err == nil {
					t.Fatal("a bad provider URL is accepted")
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
			if got := engine.Restores(engine.Serving(eng, "lookbook"), "lookbook"); got != c.restores {
				t.Errorf("look frames restored through a restoration model: %v; want %v", got, c.restores)
			}
		})
	}
}

// TestEngineOrder: ENGINE_ORDER names engines once each; those it leaves
// out follow in the default order; anything else stops the start.
func TestEngineOrder(t *testing.T) {
	for v, want := range map[string]string{
		"fashn,fal,image-api,local": "fashn,fal,image-api,local",
		" Local , fal":              "local,fal,fashn,image-api",
		"image-api":                 "image-api,fashn,fal,local",
		"fal,fal":                   "",
		"fal,openai":                "",
		"fal,,local":                "",
	} {
		got, err := parseEngineOrder(v)
		if (err == nil) != (want != "") || strings.Join(got, ",") != want {
			t.Errorf("ENGINE_ORDER=%q: %v, %v; want %q", v, got, err, want)
		}
	}
	if _, err := Load(func(k string) string { return map[string]string{"ENGINE_ORDER": "fashn,gpu"}[k] }); err == nil || !strings.Contains(err.Error(), "ENGINE_ORDER") {
		t.Errorf("Load with a bad ENGINE_ORDER: %v; want an error naming it", err)
	}
}
