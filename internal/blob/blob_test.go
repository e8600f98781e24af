package blob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badKeys are refused by CheckKey and so by every store method.
var badKeys = []string{
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

func TestCheckKey(t *testing.T) {
	good := []string{
		"a",
		"assets/0193f0c2-7d4e-7b1a-9c3e-2f1e4d5c6b7a/0193f0c2-7d4e-7b1a-9c3e-2f1e4d5c6b7b",
		"packs/house/pack.zip",
		"a..b",
		"name.with.dots.",
		"üñíçødé/ok",
		"spaces are fine",
		strings.Repeat("s", 200),
		strings.Repeat("abcdefghi/", 102) + "x", // 1021 bytes
	}
	for _, key := range good {
		if err := CheckKey(key); err != nil {
			t.Errorf("CheckKey(%q) = %v; want nil", key, err)
		}
	}
	for _, key := range badKeys {
		if err := CheckKey(key); !errors.Is(err, ErrBadKey) {
			t.Errorf("CheckKey(%q) = %v; want ErrBadKey", key, err)
		}
	}
}

func TestOpen(t *testing.T) {
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
			s, err := Open(t.Context(), tt.url, tt.dataDir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open(%q, %q) = %v; want an error with %q", tt.url, tt.dataDir, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			d, ok := s.(*Disk)
			if !ok {
				t.Fatalf("Open(%q) = %T; want *Disk", tt.url, s)
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
