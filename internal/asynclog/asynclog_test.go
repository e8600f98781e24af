package asynclog_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"studio/internal/asynclog"
)

// lockedBuffer is an output that can be held still.
type lockedBuffer struct {
	mu   sync.Mutex
	hold sync.Mutex
	b    bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.hold.Lock()
	defer l.hold.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestEveryLineWhole: lines written from many goroutines all reach the
// output, whole and once, by Close.
func TestEveryLineWhole(t *testing.T) {
	var out lockedBuffer
	w := asynclog.New(&out, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(w, "{\"g\":%d,\"i\":%d}\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] || !strings.HasPrefix(l, `{"g":`) || !strings.HasSuffix(l, "}") {
			t.Fatalf("line %q repeated or cut", l)
		}
		seen[l] = true
	}
	if len(seen) != 8*500 {
		t.Errorf("%d lines; want %d", len(seen), 8*500)
	}
	fmt.Fprintln(w, "after")
	if !strings.HasSuffix(out.String(), "after\n") {
		t.Error("a write after Close did not go straight to the output")
	}
}

// TestStalledOutputDrops: when the output does not take lines and the
// buffer is full, Write still returns at once; the lines it dropped are
// counted, then reported once the output moves.
func TestStalledOutputDrops(t *testing.T) {
	var out lockedBuffer
	out.hold.Lock()
	w := asynclog.New(&out, 64)
	line := []byte(strings.Repeat("x", 15) + "\n")
	for range 100 { // would block forever if Write waited on the output
		if n, err := w.Write(line); n != len(line) || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
	}
	if d := w.Dropped(); d < 100-2*64/len(line) {
		t.Errorf("dropped %d of 100 lines of 16 bytes into 64; want most", d)
	}
	out.hold.Unlock()
	w.Close()
	if got := out.String(); !strings.Contains(got, `"msg":"log lines dropped: the output was not keeping up","dropped":`) {
		t.Errorf("no report of the dropped lines in %q", got)
	}
}
