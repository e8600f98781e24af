package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokensGrantNeedsADatabase: run where there is no database (a folder
// serve never used), tokens grant refuses, names the folder and the
// setting, and creates nothing; where serve keeps its data it grants.
func TestTokensGrantNeedsADatabase(t *testing.T) {
	grant := []string{"tokens", "grant", "--email", "ada@example.com", "--tokens", "5"}
	cases := []struct {
		name    string
		dataDir string // STUDIO_DATA_DIR; "" is the default, ./data in the working folder
		setup   func(t *testing.T, dir string)
		want    string
	}{
		{name: "the default folder", want: "no database in ./data; run it where serve keeps its data, or set STUDIO_DATA_DIR"},
		{name: "a missing folder", dataDir: "elsewhere/data", want: "no database in elsewhere/data; run it where serve keeps its data, or set STUDIO_DATA_DIR"},
		{name: "a folder without a database", dataDir: "empty", setup: func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: "no database in empty; run it where serve keeps its data, or set STUDIO_DATA_DIR"},
		{name: "serve's folder", dataDir: "served", setup: func(t *testing.T, dir string) {
			// A folder serve migrated: a copy of the test binary's migrated one.
			if err := os.CopyFS(filepath.Join(dir, "served"), os.DirFS(migratedData(t))); err != nil {
				t.Fatal(err)
			}
		}, want: "no user"}, // the database is read: the address has no account there
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if c.setup != nil {
				c.setup(t, dir)
			}
			before, refused := listing(t, dir), strings.HasPrefix(c.want, "no database")
			var out bytes.Buffer
			err := run(context.Background(), grant, func(k string) string {
				if k == "STUDIO_DATA_DIR" {
					return c.dataDir
				}
				return ""
			}, &out, io.Discard)
			if err == nil || refused && err.Error() != c.want || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
				t.Fatalf("tokens grant: %v; want %q", err, c.want)
			}
			if after := listing(t, dir); refused && after != before {
				t.Errorf("tokens grant changed the folder:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// listing names every file and folder under dir.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		b.WriteString(strings.TrimPrefix(path, dir) + " ")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
