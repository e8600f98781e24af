package events

import (
	"bufio"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// Socket is an accepted WebSocket that Stream writes a subscription to.
//
// When the connection beneath is a plain TCP or Unix socket (no TLS in
// this process), a message goes out as one frame built once per publish
// and shared by every socket (a server's frames are not masked, so the
// bytes are the same for all), written by a small pool of writers, one per
// CPU, that walk the sockets with messages waiting: a publish to 1,000
// sockets wakes two goroutines, not 1,000. A pool write never waits: it
// is a non-blocking write of the whole frame, and a socket whose kernel
// buffer is full (or whose connection is busy with a control frame) is
// handed to its own Stream goroutine, which finishes the frame and drains
// the socket's queue with blocking writes bounded by the write timeout,
// then gives the socket back to the pool. Each socket has one writer at a
// time, so its messages keep their order; no lock is held by a pool
// writer across a wait; a slow socket delays no other.
type Socket struct {
	*websocket.Conn
	sink *sink // nil: every frame goes through Conn (a TLS connection, say)
}

// Accept answers a WebSocket handshake as websocket.Accept does and keeps
// hold of the connection beneath, for Stream's pre-framed writes.
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*Socket, error) {
	h := &hijacker{ResponseWriter: w}
	conn, err := websocket.Accept(h, r, opts)
	if err != nil {
		return nil, err
	}
	return &Socket{Conn: conn, sink: h.sink}, nil
}

// hijacker hands the websocket library the hijacked connection wrapped in
// a sink, so that the library's own frames (pings, pongs, close) and the
// pool's frames never interleave.
type hijacker struct {
	http.ResponseWriter
	sink *sink
}

func (h *hijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, brw, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c, brw, nil
	}
	if err := brw.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	k := &sink{Conn: c, raw: raw, handoff: make(chan []byte, 1)}
	k.writeFn = k.writeFd
	h.sink = k
	// The library's writes: one frame per flush, whole, through k.Write.
	brw.Writer = bufio.NewWriterSize(k, 4096)
	return k, brw, nil
}

// sink is a socket's connection as the pool writes it.
type sink struct {
	net.Conn // Write is sink's own; the others are the connection's
	raw      syscall.RawConn
	sub      *Subscription // set before the sink is attached to it
	timeout  time.Duration // bounds each blocking write

	// scheduled: one writer owns the socket's queue, a pool writer or,
	// after a handoff, the socket's Stream goroutine.
	scheduled atomic.Bool
	// handoff carries the socket from its pool writer to its Stream
	// goroutine: a frame not begun, or nil when rest holds the unwritten
	// tail of a begun one. At most one is outstanding.
	handoff  chan []byte
	handoffs atomic.Int64 // how many there have been (tests read it)

	mu      sync.Mutex // held while a frame is written; never across a wait by the pool
	rest    []byte     // the unwritten tail of a frame; written before anything else
	stopped bool       // no more data frames: the stream is closing

	// The non-blocking write's argument and results (writeFn is
	// writeFd, bound once, so that a write allocates nothing).
	wbuf    []byte
	wn      int
	werr    error
	writeFn func(fd uintptr) bool
}

// Write writes the websocket library's frames (control frames), after
// the tail of any frame the pool began.
func (k *sink) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.flushRest(); err != nil {
		return 0, err
	}
	return k.Conn.Write(p)
}

// flushRest writes the tail of a begun frame, blocking. k.mu is held.
func (k *sink) flushRest() error {
	if len(k.rest) == 0 {
		return nil
	}
	_, err := k.Conn.Write(k.rest)
	k.rest = nil
	return err
}

func (k *sink) writeFd(fd uintptr) bool {
	k.wn, k.werr = syscall.Write(int(fd), k.wbuf)
	return true // never wait for the socket to become writable
}

// tryWrite writes frame without waiting. It reports false when the
// socket has been handed to its Stream goroutine, which then owns it.
// The caller owns the socket (scheduled).
func (k *sink) tryWrite(frame []byte) bool {
	if !k.mu.TryLock() {
		k.handoffs.Add(1)
		k.handoff <- frame // the library is writing a control frame
		return false
	}
	defer k.mu.Unlock()
	if k.stopped {
		return true
	}
	k.wbuf = frame
	err := k.raw.Write(k.writeFn)
	n := max(k.wn, 0)
	k.wbuf = nil
	if err == nil && n == len(frame) {
		return true
	}
	// EAGAIN, a partial write, or an error: the Stream goroutine finishes
	// the frame with a blocking write, which reports any error.
	k.rest = frame[n:]
	k.handoffs.Add(1)
	k.handoff <- nil
	return false
}

// run writes the socket's queued messages from a pool writer, until the
// queue is empty or the socket is handed off. The caller owns the socket.
func (k *sink) run() {
	for {
	drain:
		for {
			select {
			case m := <-k.sub.c:
				if !k.tryWrite(m.frameBytes()) {
					return
				}
			default:
				break drain
			}
		}
		// Give the socket up, unless a message came in between.
		k.scheduled.Store(false)
		if len(k.sub.c) == 0 || !k.scheduled.CompareAndSwap(false, true) {
			return
		}
	}
}

// drain is the Stream goroutine's side of a handoff: it finishes the
// handed frame, then writes the queue with blocking writes, each bounded
// by the write timeout, and gives the socket back to the pool.
func (k *sink) drain(first []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	defer k.Conn.SetWriteDeadline(time.Time{})
	write := func(b []byte) error {
		if k.stopped {
			return nil
		}
		if err := k.Conn.SetWriteDeadline(time.Now().Add(k.timeout)); err != nil {
			return err
		}
		_, err := k.Conn.Write(b)
		return err
	}
	if len(k.rest) > 0 {
		if err := write(k.rest); err != nil {
			return err
		}
		k.rest = nil
	}
	if first != nil {
		if err := write(first); err != nil {
			return err
		}
	}
	for {
	queue:
		for {
			select {
			case m := <-k.sub.c:
				if err := write(m.frameBytes()); err != nil {
					return err
				}
			default:
				break queue
			}
		}
		k.scheduled.Store(false)
		if len(k.sub.c) == 0 || !k.scheduled.CompareAndSwap(false, true) {
			return nil
		}
	}
}

// stop ends the data frames: the stream is about to close.
func (k *sink) stop() {
	k.mu.Lock()
	k.stopped = true
	k.mu.Unlock()
}

// attach makes the pool write sub's messages to k.
func (k *sink) attach(sub *Subscription, timeout time.Duration) {
	k.sub, k.timeout = sub, timeout
	sub.sink.Store(k)
	// Messages published before the sink was attached.
	if len(sub.c) > 0 && k.scheduled.CompareAndSwap(false, true) {
		writers.push([]*sink{k})
	}
}

// textFrame is msg as one unmasked, final text frame.
func textFrame(msg []byte) []byte {
	n := len(msg)
	var f []byte
	switch {
	case n < 126:
		f = append(make([]byte, 0, 2+n), 0x81, byte(n))
	case n < 1<<16:
		f = append(make([]byte, 0, 4+n), 0x81, 126, byte(n>>8), byte(n))
	default:
		f = append(make([]byte, 0, 10+n), 0x81, 127,
			byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(f, msg...)
}

// frameBytes is the message's frame: the one built at publish, or one
// built now for a message queued before its socket joined the pool.
func (m Message) frameBytes() []byte {
	if m.frame != nil {
		return m.frame
	}
	return textFrame(m.Data)
}

// pool is the writers shared by every socket of the process.
type pool struct {
	once  sync.Once
	mu    sync.Mutex
	ready *sync.Cond
	queue []*sink // sockets with messages waiting, each owned by the pool
	head  int
}

var writers pool

// push queues sockets the caller has scheduled.
func (p *pool) push(ks []*sink) {
	p.once.Do(p.start)
	p.mu.Lock()
	p.queue = append(p.queue, ks...)
	p.mu.Unlock()
	p.ready.Broadcast()
}

func (p *pool) start() {
	p.ready = sync.NewCond(&p.mu)
	for range runtime.GOMAXPROCS(0) {
		go p.work()
	}
}

// work writes sockets, a batch at a time, first queued first.
func (p *pool) work() {
	var batch [16]*sink
	for {
		p.mu.Lock()
		for p.head == len(p.queue) {
			p.ready.Wait()
		}
		n := copy(batch[:], p.queue[p.head:])
		p.head += n
		if p.head == len(p.queue) {
			clear(p.queue)
			p.queue, p.head = p.queue[:0], 0
		}
		p.mu.Unlock()
		for i, k := range batch[:n] {
			k.run()
			batch[i] = nil
		}
	}
}
