package apptest

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"studio/internal/engine"
)

// EnvRenderMemo names a folder the test binaries of one run share their
// local renders through (scripts/test.sh sets it to a folder of the run's
// own, empty at its start): the three httpapi shards and the console render
// the same fixtures, and each would otherwise render them once more. An
// entry is a file named by the memo's key, written whole to a temporary
// name and renamed, so a reader sees all of it or nothing; one missing or
// unreadable is simply rendered. Unset, the memo is per test binary.
//
// The folder is only as good as the run that fills it: the key holds the
// request, not the engine's code, so it must not outlive the source tree
// that wrote it (test.sh makes a new one each run).
const EnvRenderMemo = "STUDIO_RENDER_MEMO"

// sharedLimit bounds the bytes one test binary writes into the folder.
const sharedLimit = 512 << 20

var shared = &sharedMemo{dir: os.Getenv(EnvRenderMemo)}

type sharedMemo struct {
	dir     string
	mu      sync.Mutex
	written int
}

// memoFile is a memoEntry as written to the folder.
type memoFile struct {
	Res  engine.Result
	Sent []engine.Sent
	IDs  []string
}

func (s *sharedMemo) path(key [sha256.Size]byte) string {
	return filepath.Join(s.dir, hex.EncodeToString(key[:]))
}

func (s *sharedMemo) load(key [sha256.Size]byte) (memoEntry, bool) {
	if s.dir == "" {
		return memoEntry{}, false
	}
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return memoEntry{}, false
	}
	var f memoFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil || len(f.Res.Data) == 0 {
		return memoEntry{}, false
	}
	return memoEntry{res: f.Res, sent: f.Sent, ids: f.IDs}, true
}

// store writes e under key, unless another binary did already; a failure
// to write only means the next binary renders it again.
func (s *sharedMemo) store(key [sha256.Size]byte, e memoEntry) {
	if s.dir == "" {
		return
	}
	s.mu.Lock()
	if s.written+len(e.res.Data) > sharedLimit {
		s.mu.Unlock()
		return
	}
	s.written += len(e.res.Data)
	s.mu.Unlock()
	path := s.path(key)
	if _, err := os.Stat(path); err == nil {
		return
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(memoFile{Res: e.res, Sent: e.sent, IDs: e.ids}); err != nil {
		return
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		_ = os.Remove(tmp.Name())
	}
}
