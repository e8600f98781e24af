package blobtest

import (
	"io/fs"
	"path/filepath"
	"testing"
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
