package blobtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FilesUnder lists the files under dir (not the directories), relative and
// slash-separated.
func FilesUnder(t testing.TB, dir string) []string {
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

// PlantFile writes a small file at path (creating its folder), last
// modified at mod, and returns path: a temporary file for Store.PlantTemp.
func PlantFile(t testing.TB, path string, mod time.Time) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("half a put"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}
