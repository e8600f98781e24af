package apptest

import (
	"crypto/sha256"
	"os"
	"slices"
	"testing"

	"studio/internal/engine"
)

// TestSharedMemo: an entry one binary stores is what another loads, whole;
// a missing, truncated or foreign file is a miss (the render runs), and
// with no folder nothing is read or written.
func TestSharedMemo(t *testing.T) {
	dir := t.TempDir()
	w, r := &sharedMemo{dir: dir}, &sharedMemo{dir: dir}
	key := sha256.Sum256([]byte("a request"))
	e := memoEntry{
		res:  engine.Result{Data: []byte("png bytes"), Mime: "image/png", Width: 3, Height: 2},
		sent: []engine.Sent{{Prompt: "p", Refs: []engine.SentRef{{Role: "image", AssetID: "as_1"}}}},
		ids:  []string{"as_1"},
	}
	if _, ok := r.load(key); ok {
		t.Fatal("a key never stored was found")
	}
	w.store(key, e)
	got, ok := r.load(key)
	if !ok || string(got.res.Data) != "png bytes" || got.res.Mime != "image/png" || got.res.Width != 3 || got.res.Height != 2 ||
		!slices.Equal(got.ids, e.ids) || len(got.sent) != 1 || got.sent[0].Prompt != "p" || got.sent[0].Refs[0] != e.sent[0].Refs[0] {
		t.Fatalf("loaded %+v, %v; stored %+v", got, ok, e)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the folder holds %d files after one store; want the entry alone (no temporary left)", len(left))
	}

	b, _ := os.ReadFile(w.path(key))
	for _, bad := range [][]byte{b[:len(b)/2], []byte("not gob"), nil} {
		if err := os.WriteFile(w.path(key), bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.load(key); ok {
			t.Errorf("an entry of %d unreadable bytes was loaded", len(bad))
		}
	}

	none := &sharedMemo{}
	none.store(key, e)
	if _, ok := none.load(key); ok {
		t.Error("a memo with no folder loaded an entry")
	}
}
