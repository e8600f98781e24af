package blob

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// Disk keeps blobs as files under one directory, each key a relative path
// in it. Every access goes through an os.Root, so no key or symlink can
// reach outside the directory.
//
// Put writes a temporary file ".<name>.tmp-<random>" beside the key, fsyncs
// it, renames it over the key and fsyncs the directory: readers see the old
// file or the new one, and a completed Put survives a crash. A failed or
// cancelled Put removes its temporary file; only a crash in the middle of a
// Put can leave one, and since keys never start with a dot it never shows
// as a key.
type Disk struct {
	root *os.Root
}

const (
	diskFileMode = 0o640
	diskDirMode  = 0o750
)

// NewDisk returns the disk store rooted at dir, creating dir if needed.
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, diskDirMode); err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &Disk{root: root}, nil
}

// Dir returns the directory the store keeps its files in.
func (d *Disk) Dir() string { return d.root.Name() }

// Close closes the directory handle. Objects already opened stay readable.
func (d *Disk) Close() error { return d.root.Close() }

// Put stores r's bytes under key; see Disk for how.
func (d *Disk) Put(ctx context.Context, key string, r io.Reader) (n int64, err error) {
	if err := CheckKey(key); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	dir := path.Dir(key)
	created, err := d.mkdirs(dir)
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	tmp := path.Join(dir, "."+path.Base(key)+".tmp-"+rand.Text())
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, diskFileMode)
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close()          // a second Close after success only reports ErrClosed
			d.root.Remove(tmp) // best effort: the error that matters is err
		}
	}()

	n, err = CopyCtx(ctx, f, r)
	if err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil { // last chance to give up with the old bytes intact
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err := d.root.Rename(tmp, key); err != nil {
		return 0, fmt.Errorf("blob: put %s: %w", key, err)
	}
	renamed = true
	// The new name, and any directory created for it, must reach the disk too.
	for _, changed := range append(created, dir) {
		if err := d.syncDir(changed); err != nil {
			return 0, fmt.Errorf("blob: put %s: %w", key, err)
		}
	}
	return n, nil
}

// mkdirs creates the missing directories of dir (a clean relative path) and
// returns the parents of those it created: their entries changed and need
// an fsync.
func (d *Disk) mkdirs(dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	if fi, err := d.root.Stat(dir); err == nil && fi.IsDir() {
		return nil, nil // the common case: one stat
	}
	var created []string
	for i := range len(dir) + 1 {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		p := dir[:i] // each ancestor in turn, then dir
		switch err := d.root.Mkdir(p, diskDirMode); {
		case err == nil:
			created = append(created, path.Dir(p))
		case errors.Is(err, fs.ErrExist):
			// Made by an earlier or a concurrent Put. A file in the way
			// makes the next Mkdir or the OpenFile fail.
		default:
			return nil, err
		}
	}
	return created, nil
}

// syncDir fsyncs the directory dir, so that the entries renamed or created
// in it are durable.
func (d *Disk) syncDir(dir string) error {
	f, err := d.root.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open opens the file under key. The Object is the *os.File's own reads and
// seeks.
func (d *Disk) Open(ctx context.Context, key string) (Object, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := d.root.Open(key)
	if err != nil {
		return nil, diskErr("open", key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, diskErr("open", key, err)
	}
	if !fi.Mode().IsRegular() { // a directory holding longer keys
		f.Close()
		return nil, fmt.Errorf("blob: open %s: %w", key, ErrNotFound)
	}
	return &diskObject{f: f, info: Info{Size: fi.Size(), ModTime: fi.ModTime()}}, nil
}

// Stat describes the file under key.
func (d *Disk) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	fi, err := d.root.Stat(key)
	if err != nil {
		return Info{}, diskErr("stat", key, err)
	}
	if !fi.Mode().IsRegular() {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, ErrNotFound)
	}
	return Info{Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// Delete removes the file under key and fsyncs its directory. A missing key,
// or one that names a directory of longer keys, is left as it is.
func (d *Disk) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := d.root.Lstat(key)
	if err != nil {
		if err = diskErr("delete", key, err); errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
	if fi.IsDir() {
		return nil
	}
	if err := d.root.Remove(key); err != nil {
		if err = diskErr("delete", key, err); errors.Is(err, ErrNotFound) {
			return nil // a concurrent Delete won
		}
		return err
	}
	if err := d.syncDir(path.Dir(key)); err != nil {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// Walk calls fn for each file under the directory prefix (a clean relative
// path ending in "/", or "" for all), skipping the temporary files of Puts.
func (d *Disk) Walk(ctx context.Context, prefix string, fn func(key string, info Info) error) error {
	dir := strings.TrimSuffix(prefix, "/")
	if dir == "" {
		dir = "."
	}
	err := fs.WalkDir(d.root.FS(), dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // nothing stored under prefix yet
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			return nil // temporary files, and the directories' own entries
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted since the directory was read
		}
		if err != nil {
			return err
		}
		return fn(p, Info{Size: fi.Size(), ModTime: fi.ModTime()})
	})
	if err != nil {
		return fmt.Errorf("blob: walk %s: %w", prefix, err)
	}
	return nil
}

// SweepTemp removes the temporary files (".<name>.tmp-<random>") that Puts
// interrupted by a crash left, when last written before before.
func (d *Disk) SweepTemp(ctx context.Context, before time.Time) (n int, size int64, err error) {
	err = fs.WalkDir(d.root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), ".") || !strings.Contains(e.Name(), ".tmp-") {
			return nil
		}
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(before) {
			return nil // gone already, or a Put writing it now
		}
		if err := d.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		size += fi.Size()
		return nil
	})
	if err != nil {
		return n, size, fmt.Errorf("blob: sweep temporary files: %w", err)
	}
	return n, size, nil
}

// diskErr wraps a file system error, turning "no such file" (also when a
// parent of key is a file) into ErrNotFound.
func diskErr(op, key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("blob: %s %s: %w", op, key, ErrNotFound)
	}
	return fmt.Errorf("blob: %s %s: %w", op, key, err)
}

// diskObject is an open file with the Info taken when it was opened.
type diskObject struct {
	f    *os.File
	info Info
}

func (o *diskObject) Read(p []byte) (int, error) { return o.f.Read(p) }

func (o *diskObject) Seek(offset int64, whence int) (int64, error) {
	return o.f.Seek(offset, whence)
}

func (o *diskObject) Close() error { return o.f.Close() }

func (o *diskObject) Info() Info { return o.info }
