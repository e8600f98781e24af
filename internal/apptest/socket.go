package apptest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// JobsSocketPath is the job socket's route (SPEC §6).
const JobsSocketPath = "/api/toolkit/jobs/ws"

// Socket is a real WebSocket client of the job socket. A goroutine reads
// every message into a queue, so the server never sees a slow reader.
type Socket struct {
	Conn *websocket.Conn

	msgs chan []byte
	done chan struct{} // closed when the connection has ended
	err  error         // why it ended; written before done is closed
}

// SocketQueue is how many received messages a Socket holds for the test
// before its reader stops reading.
const SocketQueue = 4096

// DialJobs opens the job socket as c: a key goes on the Authorization
// header; a session cookie goes with the service's Origin (or c.Origin,
// or none with c.NoOrigin), as a browser sends it. The test fails unless
// the handshake succeeds. The socket is closed when the test ends.
func (a *App) DialJobs(t testing.TB, c Cred) *Socket {
	t.Helper()
	s, res, err := a.TryDialJobs(t, c)
	if err != nil {
		t.Fatalf("dial %s: %v (answer %d %s)", JobsSocketPath, err, res.Status, res.Body)
	}
	return s
}

// TryDialJobs is DialJobs for handshakes that may be refused: it returns
// the socket, or the recorded answer and the error. Every answer, 101
// included, is checked against the OpenAPI document and recorded for the
// documented-codes check, as Do does.
func (a *App) TryDialJobs(t testing.TB, c Cred) (*Socket, Resp, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(a.URL, "http") + JobsSocketPath
	req, err := http.NewRequest(http.MethodGet, a.URL+JobsSocketPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.authorize(req, c)
	conn, res, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: a.client, HTTPHeader: req.Header})
	var r Resp
	if res != nil {
		r = Resp{Status: res.StatusCode, Header: res.Header}
		if err != nil && res.Body != nil {
			r.Body, _ = io.ReadAll(res.Body)
			var e struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(r.Body, &e) == nil {
				r.Code = e.Error
			}
		}
		if pattern := a.Server.Match(req); pattern != "" {
			record(pattern, r.Status, r.Code)
			if verr := a.valid.Validate(http.MethodGet, JobsSocketPath, r.Status, r.Header, r.Body); verr != nil {
				t.Errorf("GET %s: answer %d does not match the OpenAPI document: %v\n%s", JobsSocketPath, r.Status, verr, r.Body)
			}
		}
	}
	if err != nil {
		return nil, r, err
	}
	s := newSocket(conn)
	t.Cleanup(func() { s.Close() })
	return s, r, nil
}

// NewSocket wraps a connection another test dialled itself.
func NewSocket(conn *websocket.Conn) *Socket { return newSocket(conn) }

func newSocket(conn *websocket.Conn) *Socket {
	conn.SetReadLimit(1 << 20)
	s := &Socket{Conn: conn, msgs: make(chan []byte, SocketQueue), done: make(chan struct{})}
	go s.read()
	return s
}

func (s *Socket) read() {
	defer close(s.done)
	for {
		_, b, err := s.Conn.Read(context.Background())
		if err != nil {
			s.err = err
			return
		}
		s.msgs <- b
	}
}

// Next returns the next message, failing the test when none arrives
// within timeout or the socket ends first.
func (s *Socket) Next(t testing.TB, timeout time.Duration) []byte {
	t.Helper()
	select {
	case b := <-s.msgs:
		return b
	case <-time.After(timeout):
		t.Fatalf("job socket: no message within %v", timeout)
	case <-s.done:
		select {
		case b := <-s.msgs:
			return b
		default:
		}
		t.Fatalf("job socket ended before a message came: %v", s.err)
	}
	return nil
}

// NextJSON decodes the next message into v.
func (s *Socket) NextJSON(t testing.TB, timeout time.Duration, v any) {
	t.Helper()
	b := s.Next(t, timeout)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("job socket: message %s: %v", b, err)
	}
}

// Collect returns the next n messages, failing the test when they do not
// all arrive within timeout.
func (s *Socket) Collect(t testing.TB, n int, timeout time.Duration) [][]byte {
	t.Helper()
	deadline := time.Now().Add(timeout)
	out := make([][]byte, 0, n)
	for len(out) < n {
		out = append(out, s.Next(t, max(time.Until(deadline), time.Millisecond)))
	}
	return out
}

// Quiet fails the test when a message arrives within d.
func (s *Socket) Quiet(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case b := <-s.msgs:
		t.Fatalf("job socket: unexpected message %s", b)
	case <-time.After(d):
	}
}

// Drain returns the messages received so far without waiting.
func (s *Socket) Drain() [][]byte {
	var out [][]byte
	for {
		select {
		case b := <-s.msgs:
			out = append(out, b)
		default:
			return out
		}
	}
}

// Closed waits until the server ends the socket and returns the close
// frame's status and reason (-1 and "" when the connection broke without
// one). Messages still queued are dropped. It fails the test when the
// socket is still open after timeout.
func (s *Socket) Closed(t testing.TB, timeout time.Duration) (websocket.StatusCode, string) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(timeout):
		t.Fatalf("job socket still open after %v", timeout)
	}
	var ce websocket.CloseError
	if errors.As(s.err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, ""
}

// Close closes the socket from the client side.
func (s *Socket) Close() { _ = s.Conn.Close(websocket.StatusNormalClosure, "") }
