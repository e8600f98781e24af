// Package asynclog is the writer under the service's JSON log: a request
// handler's log line is copied into a buffer and written to the real
// output (stdout) by one goroutine, so logging never waits on the output.
// Lines written within a millisecond of each other, or while the goroutine
// writes, are gathered into one write. When the output stalls and the buffer is full, lines are
// dropped rather than block a request; the next write reports how many
// as a line of its own.
package asynclog

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// gather is how long the writer waits after the first line of a write
// for others to join it: a log line reaches the output at most this much
// later than it would have.
const gather = time.Millisecond

// DefaultLimit is the buffer a Writer holds before it drops lines: about
// four thousand request lines.
const DefaultLimit = 1 << 20

// Writer is an io.Writer that returns at once; Close writes what is left.
// It is safe for concurrent use. Each Write should be whole lines (slog's
// handlers write one record per call).
type Writer struct {
	out   io.Writer
	limit int
	wake  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	buf     []byte
	dropped int
	closed  bool
}

// New starts a Writer on out holding at most limit bytes (DefaultLimit
// when limit <= 0).
func New(out io.Writer, limit int) *Writer {
	if limit <= 0 {
		limit = DefaultLimit
	}
	w := &Writer{out: out, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop()
	return w
}

// Write copies p into the buffer and returns; it drops p (and counts it)
// when the buffer is full, and writes through once the Writer is closed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > w.limit {
		w.dropped++
		w.mu.Unlock()
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	select { // under the lock: Close closes wake under it too
	case w.wake <- struct{}{}:
	default:
	}
	w.mu.Unlock()
	return len(p), nil
}

// Dropped is how many lines were dropped and not yet reported.
func (w *Writer) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

func (w *Writer) loop() {
	defer close(w.done)
	var spare []byte
	for range w.wake {
		// Let the lines of the next moment join this write: under load,
		// one write carries many lines instead of one each.
		time.Sleep(gather)
		spare = w.flush(spare)
	}
	w.flush(spare)
}

// flush writes what the buffer holds until it is empty, and returns the
// buffer it wrote from for the next turn.
func (w *Writer) flush(spare []byte) []byte {
	for {
		w.mu.Lock()
		if len(w.buf) == 0 && w.dropped == 0 {
			w.mu.Unlock()
			return spare
		}
		w.buf, spare = spare[:0], w.buf
		dropped := w.dropped
		w.dropped = 0
		w.mu.Unlock()
		_, _ = w.out.Write(spare)
		if dropped > 0 {
			fmt.Fprintf(w.out, "{\"level\":\"WARN\",\"msg\":\"log lines dropped: the output was not keeping up\",\"dropped\":%d}\n", dropped)
		}
	}
}

// Close writes what the buffer holds and makes later writes go straight
// to the output.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	close(w.wake)
	w.mu.Unlock()
	<-w.done
	return nil
}
