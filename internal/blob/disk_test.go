package blob_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"studio/internal/blob"
	"studio/internal/blob/blobtest"
)

// TestDiskStaysInside checks that symlinks cannot take a key out of the
// store's directory: os.Root refuses them.
func TestDiskStaysInside(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := blob.NewDisk(filepath.Join(base, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Symlink(outside, filepath.Join(d.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if o, err := d.Open(ctx, "link/secret"); err == nil {
		o.Close()
		t.Error("Open through a symlink out of the store succeeded")
	}
	if _, err := d.Stat(ctx, "link/secret"); err == nil {
		t.Error("Stat through a symlink out of the store succeeded")
	}
	if _, err := d.Put(ctx, "link/new", bytes.NewReader([]byte("x"))); err == nil {
		t.Error("Put through a symlink out of the store succeeded")
	}
	if err := d.Delete(ctx, "link/secret"); err == nil {
		t.Error("Delete through a symlink out of the store succeeded")
	}
	if got := blobtest.FilesUnder(t, outside); len(got) != 1 || got[0] != "secret" {
		t.Errorf("outside holds %q; want only secret", got)
	}
}

// TestDiskPathConflicts checks keys that are folders of other keys, and keys
// below a file: errors, and nothing broken.
func TestDiskPathConflicts(t *testing.T) {
	s := newDiskTestStore(t)
	ctx := t.Context()
	blobtest.MustPut(t, s, "a/b", []byte("b"))
	if _, err := s.Put(ctx, "a", bytes.NewReader([]byte("a"))); err == nil {
		t.Error(`Put("a") over the folder of "a/b" succeeded`)
	}
	if _, err := s.Put(ctx, "a/b/c", bytes.NewReader([]byte("c"))); err == nil {
		t.Error(`Put("a/b/c") below the file "a/b" succeeded`)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Errorf(`Delete("a"), a folder: %v; want nil`, err)
	}
	if got := blobtest.ReadAll(t, s, "a/b"); string(got) != "b" {
		t.Errorf("a/b reads %q", got)
	}
	if got := s.Leftovers(t); len(got) != 1 || got[0] != "a/b" {
		t.Errorf("store holds %q; want only a/b", got)
	}
}

// TestDiskOpenedObjectOutlivesOverwrite checks that an open Object keeps
// reading the bytes it opened, whatever Put and Delete do meanwhile.
func TestDiskOpenedObjectOutlivesOverwrite(t *testing.T) {
	s := newDiskTestStore(t)
	blobtest.MustPut(t, s, "k", []byte("first"))
	o, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	blobtest.MustPut(t, s, "k", []byte("second"))
	if err := s.Delete(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	buf := new(bytes.Buffer)
	if _, err := buf.ReadFrom(o); err != nil || buf.String() != "first" {
		t.Errorf("read %q, %v; want %q", buf, err, "first")
	}
	if _, err := s.Stat(t.Context(), "k"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat after Delete: %v", err)
	}
}
