package apptest

import (
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"studio/internal/urlguard"
)

// Receiver is a local https webhook receiver (httptest's TLS server on
// loopback). Every app's webhook guard admits exactly its address, so an
// endpoint registered as Receiver.URL is delivered to; every other private
// address stays refused. It records what it receives and answers the
// status Answer set (200 by default).
type Receiver struct {
	URL  string // https://127.0.0.1:PORT/hook
	addr string

	mu     sync.Mutex
	srv    *httptest.Server
	got    []Received
	status int
}

// Received is one request the receiver took.
type Received struct {
	Header http.Header
	Body   []byte
}

// NewReceiver starts a receiver; it stops when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{status: http.StatusOK}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	r.addr = r.srv.Listener.Addr().String()
	r.URL = r.srv.URL + "/hook"
	t.Cleanup(func() {
		r.mu.Lock()
		srv := r.srv
		r.mu.Unlock()
		if srv != nil {
			srv.Close()
		}
	})
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, Received{Header: req.Header.Clone(), Body: body})
	status := r.status
	r.mu.Unlock()
	w.WriteHeader(status)
}

// Guard returns a webhook guard that admits this receiver (its address
// and its certificate) and refuses every other private address.
func (r *Receiver) Guard(t testing.TB, opts ...urlguard.Option) *urlguard.Guard {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(r.srv.Certificate())
	return urlguard.New(append([]urlguard.Option{urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(r.addr)),
		urlguard.WithRootCAs(pool)}, opts...)...)
}

// Answer sets the status later requests are answered with.
func (r *Receiver) Answer(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = status
}

// Received returns what the receiver took so far, in order.
func (r *Receiver) Received() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.got...)
}

// Down stops the receiver: connections to its address are refused.
func (r *Receiver) Down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	srv.Close()
}

// Up starts the receiver again on the same address (with the same
// certificate: httptest's).
func (r *Receiver) Up(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatalf("receiver up again on %s: %v", r.addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	srv.Listener.Close()
	srv.Listener = ln
	srv.StartTLS()
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
}
