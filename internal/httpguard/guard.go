// Package httpguard keeps an HTTP server answering while hostile or broken
// clients hold connections open: it bounds how long the server waits for
// each part of a request, and how many connections it keeps.
//
//   - Headers must arrive within HeaderTimeout. A body must arrive within
//     BodyTimeout, or UploadTimeout for multipart bodies (images of up to
//     12 MB); once a body is read the deadline is lifted, so a long answer
//     (a pack, a socket) is never cut by it. Each write to the client must
//     make progress within WriteTimeout. Keep-alive connections idle for
//     IdleTimeout are closed. A handler learns that its body's deadline
//     passed with BodyTimedOut, and answers 408 while it still can.
//   - At most MaxConns connections are open, and at most MaxPerClient from
//     one client address (an IPv6 client counts by its /64). A connection
//     past the per-client cap is closed at once. When the server is full,
//     the connection that has waited longest for its client (for the first
//     request, the next one, a body, or to take an answer) is closed to make
//     room; connections the server is working for are never chosen, so the
//     slots cannot be monopolised by clients that send nothing.
//
// Apply installs all of it on an http.Server and its listener.
package httpguard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Options are the limits; zero values take the defaults below.
type Options struct {
	HeaderTimeout time.Duration // 5 s
	BodyTimeout   time.Duration // 30 s
	UploadTimeout time.Duration // 5 min
	WriteTimeout  time.Duration // 60 s without progress
	IdleTimeout   time.Duration // 60 s
	MaxConns      int           // DefaultMaxConns()
	MaxPerClient  int           // 256; negative means no per-client cap
	Log           *slog.Logger
}

// Defaults of Options.
const (
	DefaultHeaderTimeout = 5 * time.Second
	DefaultBodyTimeout   = 30 * time.Second
	DefaultUploadTimeout = 5 * time.Minute
	DefaultWriteTimeout  = 60 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
	DefaultMaxPerClient  = 256
)

func (o *Options) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.HeaderTimeout, DefaultHeaderTimeout)
	set(&o.BodyTimeout, DefaultBodyTimeout)
	set(&o.UploadTimeout, DefaultUploadTimeout)
	set(&o.WriteTimeout, DefaultWriteTimeout)
	set(&o.IdleTimeout, DefaultIdleTimeout)
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns()
	}
	if o.MaxPerClient == 0 {
		o.MaxPerClient = DefaultMaxPerClient
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// Guard is the state behind one server's listener.
type Guard struct {
	opts      Options
	mu        sync.Mutex
	conns     map[*conn]struct{}
	perClient map[string]int
	// counters, for logs and tests
	refused  atomic.Int64 // closed at accept: over the per-client cap, or full with nothing to evict
	evicted  atomic.Int64 // closed to make room
	reported atomic.Int64 // Unix ns of the last warning
}

// Apply sets srv's timeouts, hooks and handler and returns the listener to
// serve srv on (ln wrapped).
func Apply(srv *http.Server, ln net.Listener, opts Options) (*Guard, net.Listener) {
	opts.defaults()
	g := &Guard{opts: opts, conns: map[*conn]struct{}{}, perClient: map[string]int{}}
	srv.ReadHeaderTimeout = opts.HeaderTimeout
	srv.IdleTimeout = opts.IdleTimeout
	srv.ReadTimeout, srv.WriteTimeout = 0, 0 // per request, below
	srv.Handler = g.bodies(srv.Handler)
	prevState := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		if gc, ok := c.(*conn); ok {
			gc.state(s)
		}
		if prevState != nil {
			prevState(c, s)
		}
	}
	prevCtx := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prevCtx != nil {
			ctx = prevCtx(ctx, c)
		}
		if gc, ok := c.(*conn); ok {
			ctx = context.WithValue(ctx, connKey{}, gc)
		}
		return ctx
	}
	return g, &listener{Listener: ln, g: g}
}

// Options returns the limits in force (defaults filled in).
func (g *Guard) Options() Options { return g.opts }

// Stats reports the connections open, refused at accept and evicted.
func (g *Guard) Stats() (open int, refused, evicted int64) {
	g.mu.Lock()
	open = len(g.conns)
	g.mu.Unlock()
	return open, g.refused.Load(), g.evicted.Load()
}

type connKey struct{}

// ClientKey is the part of a remote address connections are counted by:
// the IPv4 address, or the /64 network of an IPv6 address.
func ClientKey(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

type listener struct {
	net.Listener
	g *Guard
}

// evictScan bounds how many connections are looked at to choose one to
// evict: the oldest waiter among them (map order varies), so an accept
// under a flood stays cheap however many connections are open.
const evictScan = 64

func (l *listener) Accept() (net.Conn, error) {
	g := l.g
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		gc := &conn{Conn: c, g: g, client: ClientKey(c.RemoteAddr())}
		gc.waitSince.Store(time.Now().UnixNano())
		var victim *conn
		g.mu.Lock()
		switch {
		case g.opts.MaxPerClient > 0 && g.perClient[gc.client] >= g.opts.MaxPerClient:
			gc = nil
		case len(g.conns) >= g.opts.MaxConns:
			victim = g.oldestWaiter()
			if victim == nil {
				gc = nil
				break
			}
			g.forget(victim)
		}
		if gc != nil {
			g.conns[gc] = struct{}{}
			g.perClient[gc.client]++
		}
		g.mu.Unlock()
		if victim != nil {
			g.evicted.Add(1)
			victim.Conn.Close()
			g.report()
		}
		if gc == nil {
			g.refused.Add(1)
			c.Close()
			g.report()
			continue
		}
		return gc, nil
	}
}

// reportEvery spaces the warnings about a full server.
const reportEvery = 10 * time.Second

// report logs, at most every reportEvery, that connections are being
// refused or evicted.
func (g *Guard) report() {
	now := time.Now().UnixNano()
	last := g.reported.Load()
	if now-last < int64(reportEvery) || !g.reported.CompareAndSwap(last, now) {
		return
	}
	open, refused, evicted := g.Stats()
	g.opts.Log.Warn("connection limits reached: closing connections", "open", open, "refused", refused,
		"evicted", evicted, "max_conns", g.opts.MaxConns, "max_per_client", g.opts.MaxPerClient)
}

// oldestWaiter picks, among up to evictScan connections, the one that has
// waited longest for its client; nil when none waits. g.mu is held.
func (g *Guard) oldestWaiter() *conn {
	var best *conn
	var bestSince int64
	n := 0
	for c := range g.conns {
		if since := c.waitSince.Load(); since != 0 && (best == nil || since < bestSince) {
			best, bestSince = c, since
		}
		if n++; n >= evictScan && best != nil {
			break
		}
	}
	return best
}

// forget drops c from the counts once. g.mu is held.
func (g *Guard) forget(c *conn) {
	if c.gone {
		return
	}
	c.gone = true
	delete(g.conns, c)
	if g.perClient[c.client]--; g.perClient[c.client] <= 0 {
		delete(g.perClient, c.client)
	}
}

// conn is an accepted connection with its waiting state.
type conn struct {
	net.Conn
	g      *Guard
	client string
	gone   bool // guarded by g.mu
	// waitSince is when the connection started waiting for its client
	// (Unix ns), 0 while the server works for it.
	waitSince atomic.Int64
	hijacked  atomic.Bool // a socket keeps its own deadlines
	// bodyTimedOut is set when the current request's body deadline
	// passed before the body was read.
	bodyTimedOut atomic.Bool
	closeOnce    sync.Once
}

func (c *conn) waiting() { c.waitSince.CompareAndSwap(0, time.Now().UnixNano()) }
func (c *conn) busy()    { c.waitSince.Store(0) }

func (c *conn) state(s http.ConnState) {
	switch s {
	case http.StateHijacked:
		c.busy()
		c.hijacked.Store(true)
	case http.StateIdle:
		c.waitSince.Store(time.Now().UnixNano())
	}
}

// Write gives each write WriteTimeout to make progress, and counts the time
// blocked on a client that does not read as waiting.
func (c *conn) Write(p []byte) (int, error) {
	if c.hijacked.Load() {
		return c.Conn.Write(p)
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.g.opts.WriteTimeout))
	c.waiting()
	n, err := c.Conn.Write(p)
	c.busy()
	return n, err
}

// readFromChunk is the most one sendfile call may send under one write
// deadline: at the default 60 s a client must take about 4 KB/s.
const readFromChunk = 256 << 10

// ReadFrom keeps the kernel's sendfile for file answers (net/http uses it
// through the connection's ReadFrom), in chunks that each get a deadline.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	rf, ok := c.Conn.(io.ReaderFrom)
	if !ok {
		return io.Copy(struct{ io.Writer }{c}, r)
	}
	if c.hijacked.Load() {
		return rf.ReadFrom(r)
	}
	var total int64
	for {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(c.g.opts.WriteTimeout))
		c.waiting()
		n, err := rf.ReadFrom(&io.LimitedReader{R: r, N: readFromChunk})
		c.busy()
		total += n
		if err != nil || n < readFromChunk {
			return total, err
		}
	}
}

// SyscallConn exposes the descriptor beneath, for a hijacked WebSocket's
// non-blocking writes (events.Socket): a hijacked connection's writes
// pass straight through anyway. It fails when there is no descriptor (a
// TLS connection beneath).
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// CloseWrite keeps TCP's half-close, which net/http uses to close politely.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		c.g.mu.Lock()
		c.g.forget(c)
		c.g.mu.Unlock()
	})
	return err
}

// bodies gives each request body its deadline and marks the connection as
// waiting while the handler waits for body bytes.
func (g *Guard) bodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gc, _ := r.Context().Value(connKey{}).(*conn)
		if gc != nil {
			gc.busy() // the headers are in: the server works for it now
			gc.bodyTimedOut.Store(false)
		}
		if gc == nil || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		d := g.opts.BodyTimeout
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			d = g.opts.UploadTimeout
		}
		_ = gc.Conn.SetReadDeadline(time.Now().Add(d))
		r.Body = &body{ReadCloser: r.Body, c: gc}
		next.ServeHTTP(w, r)
	})
}

// BodyTimedOut reports whether the body deadline of the request whose
// context ctx is passed before its body was read. net/http cancels that
// context when the read fails, as it does for a client that hangs up; a
// timed-out client is still there to read an answer (408), one that hung up
// is not.
func BodyTimedOut(ctx context.Context) bool {
	c, _ := ctx.Value(connKey{}).(*conn)
	return c != nil && c.bodyTimedOut.Load()
}

// body is a request body under its deadline.
type body struct {
	io.ReadCloser
	c   *conn
	eof bool
}

func (b *body) Read(p []byte) (int, error) {
	b.c.waiting()
	n, err := b.ReadCloser.Read(p)
	b.c.busy()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// net/http cancels the request's context on a failed read; the
		// flag tells the handler why, so it can answer 408 rather than
		// take the cancel for a client that left.
		b.c.bodyTimedOut.Store(true)
	}
	if err == io.EOF && !b.eof {
		// The whole body is in: lift the deadline, so that the server's
		// watch for a client hanging up cannot time out a long answer.
		b.eof = true
		_ = b.c.Conn.SetReadDeadline(time.Time{})
	}
	return n, err
}
