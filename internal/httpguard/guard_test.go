package httpguard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// serve runs h behind the guard on a loopback port and returns its address.
func serve(t *testing.T, h http.Handler, opts Options) (string, *Guard) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv := &http.Server{Handler: h, ErrorLog: nil}
	g, gl := Apply(srv, ln, opts)
	go srv.Serve(gl)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), g
}

// dialFrom opens a connection to addr from the loopback address from.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reports whether the server ends c (EOF, reset, or an
// answer followed by close) within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// echo reads the whole body and answers its length.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestTimeout)
		return
	}
	fmt.Fprint(w, len(b))
})

func get(t *testing.T, from, addr, path string) (int, string) {
	t.Helper()
	c := dialFrom(t, from, addr)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestStalledClientsAreCut(t *testing.T) {
	// Generous margins: the checks must hold on a loaded machine under -race.
	addr, _ := serve(t, echo, Options{HeaderTimeout: 200 * time.Millisecond, BodyTimeout: 500 * time.Millisecond,
		UploadTimeout: 1500 * time.Millisecond})
	t.Run("headers that never end", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\n")
		if !closedWithin(c, 2*time.Second) {
			t.Fatal("a client that never finished its headers is still held after 2 s")
		}
	})
	t.Run("headers and no body", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		start := time.Now()
		if !closedWithin(c, 3*time.Second) {
			t.Fatal("a client that sent headers and no body is still held after 3 s")
		}
		if el := time.Since(start); el < 450*time.Millisecond {
			t.Errorf("cut after %v, before the body timeout", el)
		}
	})
	t.Run("a multipart body gets the upload timeout", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100\r\n\r\n")
		if closedWithin(c, 600*time.Millisecond) {
			t.Fatal("an upload was cut at the body timeout")
		}
		if !closedWithin(c, 4*time.Second) {
			t.Fatal("an upload that stalled is still held past the upload timeout")
		}
	})
	t.Run("a slow body that arrives in time is read", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 4\r\n\r\nab")
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(c, "cd")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(res.Body); res.StatusCode != 200 || string(b) != "4" {
			t.Fatalf("%d %s", res.StatusCode, b)
		}
	})
}

// TestLongAnswerOutlivesBodyTimeout: once the body is read, the deadline is
// lifted, so the server's watch for a hang-up does not cancel a handler
// that works (or streams) longer than the body timeout.
func TestLongAnswerOutlivesBodyTimeout(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select {
		case <-time.After(600 * time.Millisecond):
			fmt.Fprint(w, "done")
		case <-r.Context().Done():
			http.Error(w, "cancelled", 500)
		}
	})
	addr, _ := serve(t, h, Options{BodyTimeout: 200 * time.Millisecond})
	res, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if b, _ := io.ReadAll(res.Body); string(b) != "done" {
		t.Fatalf("got %d %q; want the answer after the body timeout", res.StatusCode, b)
	}
}

func TestWriteToAClientThatDoesNotRead(t *testing.T) {
	errc := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 256 {
			if _, err := w.Write(chunk); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	})
	addr, _ := serve(t, h, Options{WriteTimeout: 300 * time.Millisecond})
	c := dialFrom(t, "127.0.0.1", addr)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("256 MB written to a client that reads nothing")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler is still blocked writing to a client that reads nothing")
	}
}

func TestHijackedKeepsNoDeadline(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		line, _ := rw.ReadString('\n') // arrives after the timeouts
		rw.WriteString("echo " + line)
		rw.Flush()
	})
	addr, _ := serve(t, h, Options{BodyTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond,
		IdleTimeout: 100 * time.Millisecond})
	c := dialFrom(t, "127.0.0.1", addr)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(400 * time.Millisecond)
	fmt.Fprint(c, "hello\n")
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != "echo hello\n" {
		t.Fatalf("hijacked connection: %q %v", got, err)
	}
}

// TestHijackedExposesDescriptor: a hijacked connection offers its
// descriptor (events.Socket writes WebSocket frames to it without waiting).
func TestHijackedExposesDescriptor(t *testing.T) {
	got := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			got <- err
			return
		}
		defer c.Close()
		sc, ok := c.(syscall.Conn)
		if !ok {
			got <- fmt.Errorf("%T is not a syscall.Conn", c)
			return
		}
		raw, err := sc.SyscallConn()
		var werr error
		if err == nil {
			err = raw.Write(func(fd uintptr) bool {
				_, werr = syscall.Write(int(fd), []byte("raw\n"))
				return true
			})
		}
		got <- errors.Join(err, werr)
	})
	addr, _ := serve(t, h, Options{})
	c := dialFrom(t, "127.0.0.1", addr)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "raw\n" {
		t.Fatalf("read %q %v", line, err)
	}
}

func TestPerClientCap(t *testing.T) {
	addr, g := serve(t, echo, Options{MaxPerClient: 5, MaxConns: 100})
	for range 5 {
		dialFrom(t, "127.0.0.2", addr)
	}
	extra := dialFrom(t, "127.0.0.2", addr)
	if !closedWithin(extra, 2*time.Second) {
		t.Fatal("the 6th connection from one address was kept")
	}
	if code, body := get(t, "127.0.0.3", addr, "/"); code != 200 || body != "0" {
		t.Fatalf("another address: %d %s", code, body)
	}
	if open, refused, _ := g.Stats(); refused != 1 || open > 6 {
		t.Errorf("open %d, refused %d; want at most 6 open, 1 refused", open, refused)
	}
}

// TestFullServerEvictsTheLongestWaiting: connections that send nothing fill
// the server; a new client still gets in (the oldest silent one makes
// room), while a connection the server works for is never chosen.
func TestFullServerEvictsTheLongestWaiting(t *testing.T) {
	var working atomic.Int32
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/work" {
			working.Add(1)
			<-release
		}
		fmt.Fprint(w, "ok")
	})
	addr, g := serve(t, h, Options{MaxConns: 10, MaxPerClient: -1})
	// One request in progress, then nine silent connections, oldest first.
	workDone := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + addr + "/work")
		if err != nil {
			workDone <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		workDone <- string(b)
	}()
	for working.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	silent := make([]net.Conn, 9)
	for i := range silent {
		silent[i] = dialFrom(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
		time.Sleep(2 * time.Millisecond)
	}
	deadline := time.Now().Add(2 * time.Second)
	for open, _, _ := g.Stats(); open < 10 && time.Now().Before(deadline); open, _, _ = g.Stats() {
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 5 {
		if code, _ := get(t, "127.0.0.9", addr, "/health"); code != 200 {
			t.Fatalf("request %d on a full server: %d", i, code)
		}
	}
	if !closedWithin(silent[0], time.Second) {
		t.Error("the oldest silent connection was not the one evicted")
	}
	if closedWithin(silent[8], 100*time.Millisecond) {
		t.Error("the youngest silent connection was evicted")
	}
	close(release)
	if got := <-workDone; got != "ok" {
		t.Fatalf("the request in progress was cut: %s", got)
	}
}

// TestFullOfWorkRefusesNewcomers: when every connection is being worked
// for, a newcomer is closed rather than one of them.
func TestFullOfWorkRefusesNewcomers(t *testing.T) {
	release := make(chan struct{})
	var working atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		working.Add(1)
		<-release
		fmt.Fprint(w, "ok")
	})
	addr, g := serve(t, h, Options{MaxConns: 2, MaxPerClient: -1})
	results := make(chan string, 2)
	for range 2 {
		go func() {
			res, err := http.Get("http://" + addr + "/")
			if err != nil {
				results <- err.Error()
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			results <- string(b)
		}()
	}
	for working.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	third := dialFrom(t, "127.0.0.1", addr)
	if !closedWithin(third, 2*time.Second) {
		t.Fatal("a newcomer was kept past the cap")
	}
	close(release)
	for range 2 {
		if got := <-results; got != "ok" {
			t.Fatalf("a request in progress was cut: %s", got)
		}
	}
	if _, refused, evicted := g.Stats(); refused != 1 || evicted != 0 {
		t.Errorf("refused %d, evicted %d; want 1, 0", refused, evicted)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5000":                   "127.0.0.1",
		"[::ffff:10.1.2.3]:80":             "10.1.2.3",
		"[2001:db8:1:2:3:4:5:6]:443":       "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:ffff:1:1]:443": "2001:db8:1:2::/64",
	} {
		addr, err := net.ResolveTCPAddr("tcp", in)
		if err != nil {
			t.Fatal(err)
		}
		if got := ClientKey(addr); got != want {
			t.Errorf("ClientKey(%s) = %s; want %s", in, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	var o Options
	o.defaults()
	if o.MaxConns < 64 || o.HeaderTimeout != DefaultHeaderTimeout || o.MaxPerClient != DefaultMaxPerClient {
		t.Fatalf("%+v", o)
	}
}

// TestBodyTimedOutIsTold: a handler whose body read fails because the
// deadline passed learns it from BodyTimedOut and can still answer; one
// whose client hung up is not told so, and a later request on a fresh
// connection starts untold.
func TestBodyTimedOutIsTold(t *testing.T) {
	told := make(chan bool, 4)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		told <- BodyTimedOut(r.Context())
		if err != nil && BodyTimedOut(r.Context()) {
			w.Header().Set("Connection", "close")
			http.Error(w, "late", http.StatusRequestTimeout)
			return
		}
		fmt.Fprint(w, "ok")
	})
	addr, _ := serve(t, h, Options{BodyTimeout: 200 * time.Millisecond})
	t.Run("stalled", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusRequestTimeout || !<-told {
			t.Fatalf("status %d; want 408 with the handler told", res.StatusCode)
		}
	})
	t.Run("hung up", func(t *testing.T) {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
		time.Sleep(20 * time.Millisecond)
		c.Close()
		if <-told {
			t.Fatal("a client that hung up was taken for a timed-out one")
		}
	})
	t.Run("in time", func(t *testing.T) {
		if code, body := get(t, "127.0.0.1", addr, "/"); code != 200 || body != "ok" || <-told {
			t.Fatalf("%d %s", code, body)
		}
	})
}
