package events

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"studio/internal/httpguard"
)

// bigMessages are n distinct messages of size bytes each.
func bigMessages(n, size int) [][]byte {
	msgs := make([][]byte, n)
	for i := range msgs {
		msgs[i] = fmt.Appendf(nil, "%06d%s", i, strings.Repeat("x", size-6))
	}
	return msgs
}

// TestSocketPoolBackpressure: more than the kernel's buffers hold is
// published at once to a client that reads only afterwards, while pings
// come every millisecond. The pool's writes run into a full socket and
// hand it to its Stream goroutine (a frame begun, or not begun because a
// ping was being written); the client still reads every message whole, in
// order, with no control frame inside a data frame, then the close frame.
func TestSocketPoolBackpressure(t *testing.T) {
	b := NewBroker(Options{Buffer: 400})
	ss := newStreamServer(t, b, "A", StreamOptions{Ping: time.Millisecond}, nil)
	c := ss.dial(t)
	c.SetReadLimit(1 << 20)
	waitSubscribers(t, b, 1)
	sock := <-ss.socks
	if sock.sink == nil {
		t.Fatal("a loopback TCP socket is not written by the pool")
	}
	msgs := bigMessages(300, 64<<10) // 19 MB
	for i, m := range msgs {
		b.Publish("A", int64(i), m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, want := range msgs {
		typ, got, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if typ != websocket.MessageText || string(got) != string(want) {
			t.Fatalf("message %d: %v %.12q; want text %.12q", i, typ, got, want)
		}
	}
	if sock.sink.handoffs.Load() == 0 {
		t.Error("no write was handed to the Stream goroutine; the test did not fill the socket")
	}
	b.Close()
	rest, code, reason := readUntilClose(t, c)
	if len(rest) != 0 || code != websocket.StatusGoingAway || reason != ReasonShutdown {
		t.Errorf("got %d more messages then %d %q; want 1001 shutdown", len(rest), code, reason)
	}
	ss.wait(t)
}

// TestSocketStalledDelaysNoOther: a client that never reads does not hold
// back another: with a write timeout of a minute, the reading client gets
// every message while the stalled one's stream waits on its full socket.
func TestSocketStalledDelaysNoOther(t *testing.T) {
	b := NewBroker(Options{Buffer: 400})
	ss := newStreamServer(t, b, "A", StreamOptions{WriteTimeout: time.Minute}, nil)
	stalled := ss.dial(t) // never reads
	live := ss.dial(t)
	live.SetReadLimit(1 << 20)
	waitSubscribers(t, b, 2)
	msgs := bigMessages(300, 64<<10)
	for i, m := range msgs {
		b.Publish("A", int64(i), m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, want := range msgs {
		_, got, err := live.Read(ctx)
		if err != nil || string(got) != string(want) {
			t.Fatalf("live client, message %d: %.12q %v; want %.12q", i, got, err, want)
		}
	}
	select {
	case err := <-ss.ended:
		t.Fatalf("a stream ended before the stalled client went away: %v", err)
	default:
	}
	stalled.CloseNow()
	if err := ss.wait(t); err == nil {
		t.Error("the stalled client's stream ended without an error")
	}
	live.CloseNow()
	ss.wait(t)
}

// TestSocketBehindGuard: behind the server's connection guard (as
// `studio serve` runs), the socket is still written by the pool.
func TestSocketBehindGuard(t *testing.T) {
	b := NewBroker(Options{})
	socks := make(chan *Socket, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub := b.Subscribe("A")
		defer sub.Close()
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		socks <- conn
		_ = Stream(r.Context(), conn, sub, StreamOptions{})
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, gl := httpguard.Apply(srv, ln, httpguard.Options{})
	go srv.Serve(gl)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if sock := <-socks; sock.sink == nil {
		t.Error("behind the guard, the socket is not written by the pool")
	}
	waitSubscribers(t, b, 1)
	b.Publish("A", 1, []byte(`{"n":1}`))
	if _, got, err := c.Read(ctx); err != nil || string(got) != `{"n":1}` {
		t.Fatalf("read %q %v", got, err)
	}
	b.Close()
}

// TestSocketTLS: over TLS the connection cannot be written raw; Stream
// writes through the websocket library as before.
func TestSocketTLS(t *testing.T) {
	b := NewBroker(Options{})
	socks := make(chan *Socket, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub := b.Subscribe("A")
		defer sub.Close()
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		socks <- conn
		_ = Stream(r.Context(), conn, sub, StreamOptions{})
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(srv.URL, "https"), &websocket.DialOptions{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if sock := <-socks; sock.sink != nil {
		t.Error("a TLS socket got a raw sink")
	}
	waitSubscribers(t, b, 1)
	b.Publish("A", 1, []byte(`{"n":1}`))
	if _, got, err := c.Read(ctx); err != nil || string(got) != `{"n":1}` {
		t.Fatalf("read %q %v", got, err)
	}
	b.Close()
}

func TestTextFrame(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		f := textFrame(make([]byte, n))
		var hdr []byte
		switch {
		case n < 126:
			hdr = []byte{0x81, byte(n)}
		case n < 1<<16:
			hdr = []byte{0x81, 126, byte(n >> 8), byte(n)}
		default:
			hdr = []byte{0x81, 127, 0, 0, 0, 0, 0, byte(n >> 16), byte(n >> 8), byte(n)}
		}
		if string(f[:len(hdr)]) != string(hdr) || len(f) != len(hdr)+n {
			t.Errorf("%d bytes: header % x, length %d", n, f[:min(len(f), 10)], len(f))
		}
	}
}
