package events

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fanoutMessage is a done job's event as the socket carries it.
func fanoutMessage(seq int) []byte {
	return fmt.Appendf(nil, `{"type":"job","job":{"id":"0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a55","tool":"upscale","status":"done",`+
		`"resultUrl":"http://localhost:8080/api/toolkit/assets/0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a56/file","resultAssetId":"0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a56",`+
		`"error":null,"brandId":"","createdAt":"2026-11-22T07:20:49.123Z","eventSeq":%d}}`, seq)
}

// fanoutSide is one server under measurement: its clients run in a child
// process; publish sends one message to all of them.
type fanoutSide struct {
	name    string
	publish func(seq int, msg []byte)
	close   func()
	child   *exec.Cmd
	lines   *bufio.Scanner // the child's "k arrivalUnixNano" lines
	lat     []time.Duration
	cpu     time.Duration
}

// BenchmarkFanout1000Sockets measures a message reaching 1,000 WebSocket
// clients over loopback: the time from Publish until the last of the 1,000
// has read the whole frame (p50, p99 and max over messages), and the CPU
// time the server process spends per message. The clients run in a child
// process (this test binary again, TestFanoutClients), so their reads are
// not counted as the server's.
//
// Side by side, in the same run, message for message alternately: the
// studio path (Broker, Accept, Stream) and a bare program that writes one
// pre-built frame to 1,000 raw connections in a loop. Reported: studio's
// p50/p99/max and CPU, bare's, and bare/studio ratios (1 = as fast as bare).
//
//	go test -run '^$' -bench Fanout -benchtime 200x ./internal/events
func BenchmarkFanout1000Sockets(b *testing.B) {
	const sockets = 1000
	sides := []*fanoutSide{studioFanout(b, sockets), bareFanout(b, sockets)}
	for _, s := range sides {
		defer s.close()
	}
	seq := 0
	b.ResetTimer()
	for b.Loop() {
		for _, s := range sides {
			seq++
			msg := fanoutMessage(seq)
			cpu0 := cpuTime()
			start := time.Now()
			s.publish(seq, msg)
			if !s.lines.Scan() {
				b.Fatalf("%s: the clients stopped: %v", s.name, s.lines.Err())
			}
			s.cpu += cpuTime() - cpu0
			_, at, _ := strings.Cut(s.lines.Text(), " ")
			ns, err := strconv.ParseInt(at, 10, 64)
			if err != nil {
				b.Fatalf("%s: clients said %q", s.name, s.lines.Text())
			}
			s.lat = append(s.lat, time.Unix(0, ns).Sub(start))
		}
	}
	b.StopTimer()
	pct := func(lat []time.Duration, p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	var p50, p99, cpu [2]float64
	for i, s := range sides {
		slices.Sort(s.lat)
		p50[i], p99[i] = pct(s.lat, 0.50), pct(s.lat, 0.99)
		cpu[i] = float64(s.cpu.Microseconds()) / 1000 / float64(len(s.lat))
		b.ReportMetric(p50[i], s.name+"-p50-ms")
		b.ReportMetric(p99[i], s.name+"-p99-ms")
		b.ReportMetric(pct(s.lat, 1), s.name+"-max-ms")
		b.ReportMetric(cpu[i], s.name+"-cpu-ms/op")
	}
	b.ReportMetric(p50[1]/p50[0], "p50-ratio")
	b.ReportMetric(p99[1]/p99[0], "p99-ratio")
	b.ReportMetric(cpu[1]/cpu[0], "cpu-ratio")
	b.ReportMetric(0, "ns/op")
}

// studioFanout serves the job socket's path: a Broker subscription per
// socket, the handshake and Stream.
func studioFanout(b *testing.B, sockets int) *fanoutSide {
	br := NewBroker(Options{})
	var handlers sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		sub := br.Subscribe("A")
		defer sub.Close()
		conn, err := Accept(w, r, nil)
		if err != nil {
			return
		}
		_ = Stream(r.Context(), conn, sub, StreamOptions{})
	}))
	s := &fanoutSide{name: "studio"}
	s.publish = func(seq int, msg []byte) { br.Publish("A", int64(seq), msg) }
	startClients(b, s, srv.Listener.Addr().String(), sockets)
	for br.Subscribers() != sockets {
		time.Sleep(time.Millisecond)
	}
	s.close = func() {
		br.Close()
		handlers.Wait()
		srv.Close()
		_ = s.child.Wait()
	}
	return s
}

// bareFanout is the bare program: it answers the handshake with a fixed
// 101 and writes each message, framed once, to every connection in turn
// from one goroutine.
func bareFanout(b *testing.B, sockets int) *fanoutSide {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						c.Close()
						return
					}
					if line == "\r\n" {
						break
					}
				}
				// The client does not check the accept key.
				_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
					"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}()
		}
	}()
	s := &fanoutSide{name: "bare"}
	var frame []byte
	s.publish = func(seq int, msg []byte) {
		frame = append(frame[:0], 0x81)
		switch n := len(msg); {
		case n < 126:
			frame = append(frame, byte(n))
		case n < 1<<16:
			frame = append(frame, 126, byte(n>>8), byte(n))
		default:
			panic("message too long for the bare fan-out")
		}
		frame = append(frame, msg...)
		for _, c := range conns {
			if _, err := c.Write(frame); err != nil {
				b.Errorf("bare write: %v", err)
			}
		}
	}
	startClients(b, s, ln.Addr().String(), sockets)
	for {
		mu.Lock()
		n := len(conns)
		mu.Unlock()
		if n == sockets {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.close = func() {
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
		_ = s.child.Wait()
	}
	return s
}

// startClients runs TestFanoutClients in a child process against addr and
// waits until its sockets are open.
func startClients(b *testing.B, s *fanoutSide, addr string, sockets int) {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFanoutClients$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FANOUT_ADDR="+addr, "FANOUT_SOCKETS="+strconv.Itoa(sockets))
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pw.Close()
	b.Cleanup(func() { _ = cmd.Process.Kill() })
	s.child = cmd
	s.lines = bufio.NewScanner(pr)
	if !s.lines.Scan() || s.lines.Text() != "ready" {
		b.Fatalf("%s: the clients did not start: %q %v", s.name, s.lines.Text(), s.lines.Err())
	}
}

// TestFanoutClients is the client side of BenchmarkFanout1000Sockets, run
// by it in a child process (FANOUT_ADDR set): it opens FANOUT_SOCKETS
// WebSocket connections, says "ready" on fd 3, then for the k-th message,
// once every socket has read it whole, writes "k t" there, t being the
// wall-clock time (Unix ns) at which the last socket finished reading it.
// It returns when the server closes the sockets.
func TestFanoutClients(t *testing.T) {
	addr := os.Getenv("FANOUT_ADDR")
	if addr == "" {
		t.Skip("run by BenchmarkFanout1000Sockets")
	}
	sockets, _ := strconv.Atoi(os.Getenv("FANOUT_SOCKETS"))
	out := os.NewFile(3, "results")
	type slot struct {
		count atomic.Int64
		last  atomic.Int64
	}
	slots := make([]slot, 1<<16)
	var outMu sync.Mutex
	conns := make([]*bufio.ReadWriter, 0, sockets)
	raws := make([]net.Conn, 0, sockets)
	for range sockets {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		rw := bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
		fmt.Fprintf(rw, "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		status, err := rw.ReadString('\n')
		if err != nil || !strings.Contains(status, " 101 ") {
			t.Fatalf("handshake: %q %v", status, err)
		}
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if line == "\r\n" {
				break
			}
		}
		conns, raws = append(conns, rw), append(raws, c)
	}
	fmt.Fprintln(out, "ready")
	var wg sync.WaitGroup
	for i, rw := range conns {
		wg.Go(func() {
			defer raws[i].Close()
			k := 0
			var hdr [8]byte
			for {
				if _, err := io.ReadFull(rw, hdr[:2]); err != nil {
					return
				}
				n := int64(hdr[1] & 0x7f)
				switch n {
				case 126:
					if _, err := io.ReadFull(rw, hdr[:2]); err != nil {
						return
					}
					n = int64(hdr[0])<<8 | int64(hdr[1])
				case 127:
					if _, err := io.ReadFull(rw, hdr[:8]); err != nil {
						return
					}
					n = 0
					for _, c := range hdr[:8] {
						n = n<<8 | int64(c)
					}
				}
				op := hdr[0] & 0x0f
				var payload []byte
				if op == 0x9 { // ping: answer with a masked pong (zero mask key)
					payload = make([]byte, n)
					if _, err := io.ReadFull(rw, payload); err != nil {
						return
					}
				} else if _, err := rw.Discard(int(n)); err != nil {
					return
				}
				switch op {
				case 0x1:
					now := time.Now().UnixNano()
					s := &slots[k%len(slots)]
					k++
					for {
						last := s.last.Load()
						if now <= last || s.last.CompareAndSwap(last, now) {
							break
						}
					}
					if s.count.Add(1) == int64(sockets) {
						at := s.last.Load()
						s.count.Store(0)
						s.last.Store(0)
						outMu.Lock()
						fmt.Fprintf(out, "%d %d\n", k, at)
						outMu.Unlock()
					}
				case 0x8:
					return
				case 0x9:
					rw.Write([]byte{0x8a, 0x80 | byte(len(payload)), 0, 0, 0, 0})
					rw.Write(payload)
					if err := rw.Flush(); err != nil && !errors.Is(err, net.ErrClosed) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
