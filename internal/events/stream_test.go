package events

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// streamServer serves Stream for house on an httptest server. before,
// when set, runs between Subscribe and Stream. ended receives what Stream
// returned.
type streamServer struct {
	url   string
	ended chan error
	socks chan *Socket // each accepted socket
}

func newStreamServer(t *testing.T, b *Broker, house string, opts StreamOptions, before func(*Subscription)) *streamServer {
	t.Helper()
	ss := &streamServer{ended: make(chan error, 16), socks: make(chan *Socket, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub := b.Subscribe(house)
		defer sub.Close()
		if before != nil {
			before(sub)
		}
		conn, err := Accept(w, r, nil)
		if err != nil {
			ss.ended <- err
			return
		}
		ss.socks <- conn
		ss.ended <- Stream(r.Context(), conn, sub, opts)
	}))
	t.Cleanup(srv.Close)
	ss.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return ss
}

func (ss *streamServer) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, ss.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func (ss *streamServer) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-ss.ended:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return")
	}
	return nil
}

// readUntilClose reads messages until the server's close frame and
// returns them with its status and reason.
func readUntilClose(t *testing.T, c *websocket.Conn) ([]string, websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var msgs []string
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return msgs, ce.Code, ce.Reason
			}
			t.Fatalf("read: %v", err)
		}
		msgs = append(msgs, string(b))
	}
}

func TestStreamDeliversThenShutdown(t *testing.T) {
	b := NewBroker(Options{})
	ss := newStreamServer(t, b, "A", StreamOptions{}, nil)
	c := ss.dial(t)
	waitSubscribers(t, b, 1)
	b.Publish("A", 1, []byte(`{"n":1}`))
	b.Publish("B", 2, []byte(`{"n":"other house"}`))
	b.Publish("A", 3, []byte(`{"n":3}`))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, want := range []string{`{"n":1}`, `{"n":3}`} {
		typ, got, err := c.Read(ctx)
		if err != nil || typ != websocket.MessageText || string(got) != want {
			t.Fatalf("read: %v %s %v; want text %s", typ, got, err, want)
		}
	}
	b.Close()
	msgs, code, reason := readUntilClose(t, c)
	if len(msgs) != 0 || code != websocket.StatusGoingAway || reason != ReasonShutdown {
		t.Errorf("got %q then %d %q; want 1001 shutdown", msgs, code, reason)
	}
	if err := ss.wait(t); !errors.Is(err, ErrClosed) {
		t.Errorf("Stream returned %v; want ErrClosed", err)
	}
}

func waitSubscribers(t *testing.T, b *Broker, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for b.Subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscribers; want %d", b.Subscribers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStreamLaggingClosesWithReason(t *testing.T) {
	b := NewBroker(Options{Buffer: 2})
	ss := newStreamServer(t, b, "A", StreamOptions{}, func(*Subscription) {
		for i := range 3 { // one more than the buffer
			b.Publish("A", int64(i), []byte("m"))
		}
	})
	c := ss.dial(t)
	_, code, reason := readUntilClose(t, c)
	if code != websocket.StatusTryAgainLater || reason != ReasonLagging {
		t.Errorf("closed %d %q; want 1013 lagging", code, reason)
	}
	if err := ss.wait(t); !errors.Is(err, ErrLagging) {
		t.Errorf("Stream returned %v; want ErrLagging", err)
	}
}

func TestStreamCheck(t *testing.T) {
	transient := errors.New("database away")
	for _, tc := range []struct {
		name   string
		fails  error
		after  int32 // calls that succeed first
		code   websocket.StatusCode
		reason string
	}{
		{"revoked", ErrRevoked, 2, websocket.StatusPolicyViolation, ReasonRevoked},
		{"reauth", ErrReauth, 0, websocket.StatusTryAgainLater, ReasonReauth},
		{"unverifiable", transient, 1, websocket.StatusInternalError, ReasonUnverified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBroker(Options{})
			var calls atomic.Int32
			check := func(ctx context.Context) error {
				if calls.Add(1) > tc.after {
					return tc.fails
				}
				return nil
			}
			ss := newStreamServer(t, b, "A", StreamOptions{Check: check, CheckEvery: 10 * time.Millisecond}, nil)
			c := ss.dial(t)
			_, code, reason := readUntilClose(t, c)
			if code != tc.code || reason != tc.reason {
				t.Errorf("closed %d %q; want %d %q", code, reason, tc.code, tc.reason)
			}
			ss.wait(t)
			want := tc.after + 1
			if tc.fails == transient {
				want = tc.after + checkFailures
			}
			if got := calls.Load(); got != want {
				t.Errorf("%d checks; want %d", got, want)
			}
		})
	}
}

// TestStreamWriteOnly: a data frame from the client ends the stream with a
// policy violation.
func TestStreamWriteOnly(t *testing.T) {
	b := NewBroker(Options{})
	ss := newStreamServer(t, b, "A", StreamOptions{}, nil)
	c := ss.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	_, code, _ := readUntilClose(t, c)
	if code != websocket.StatusPolicyViolation {
		t.Errorf("closed %d; want 1008", code)
	}
	ss.wait(t)
	waitSubscribers(t, b, 0)
}

// TestStreamPing: a client that answers pings stays; one that never reads
// (so never answers) is dropped after a ping goes unanswered.
func TestStreamPing(t *testing.T) {
	b := NewBroker(Options{})
	opts := StreamOptions{Ping: 20 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	ss := newStreamServer(t, b, "A", opts, nil)

	live := ss.dial(t)
	ctx := live.CloseRead(context.Background()) // reads, and so answers pings
	time.Sleep(300 * time.Millisecond)          // many ping periods
	if ctx.Err() != nil {
		t.Fatal("a client answering pings was dropped")
	}
	select {
	case err := <-ss.ended:
		t.Fatalf("Stream ended: %v", err)
	default:
	}
	live.Close(websocket.StatusNormalClosure, "")
	if err := ss.wait(t); !errors.Is(err, errPeerGone) {
		t.Errorf("client close: Stream returned %v; want errPeerGone", err)
	}

	_ = ss.dial(t) // never reads
	if err := ss.wait(t); err == nil || !strings.Contains(err.Error(), "ping") {
		t.Errorf("silent client: Stream returned %v; want a ping failure", err)
	}
}

func TestCloseStatus(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   websocket.StatusCode
		reason string
	}{
		{ErrLagging, websocket.StatusTryAgainLater, "lagging"},
		{ErrResync, websocket.StatusTryAgainLater, "resync"},
		{ErrClosed, websocket.StatusGoingAway, "shutdown"},
		{ErrRevoked, websocket.StatusPolicyViolation, "revoked"},
		{ErrUnsubscribed, websocket.StatusNormalClosure, "closed"},
	} {
		if code, reason := CloseStatus(tc.err); code != tc.code || reason != tc.reason {
			t.Errorf("%v: %d %q; want %d %q", tc.err, code, reason, tc.code, tc.reason)
		}
	}
}
