package events

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFanout1000Sockets measures the time from Publish until the
// message has been read by every one of 1,000 WebSocket clients connected
// over loopback (server and clients in this one process), one publish at
// a time. It reports the p50, p99 and max of that time; allocs/op counts
// what the process allocates per message, which is the server's: the
// clients read without allocating.
//
//	go test -run '^$' -bench Fanout -benchtime 200x -benchmem ./internal/events
func BenchmarkFanout1000Sockets(b *testing.B) {
	const sockets = 1000
	br := NewBroker(Options{})
	var handlers sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		sub := br.Subscribe("A")
		defer sub.Close()
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		_ = Stream(r.Context(), conn, sub, StreamOptions{})
	}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0}}

	var remaining atomic.Int64
	all := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var readers sync.WaitGroup
	dial := make(chan struct{}, 50) // dials in flight
	var dialErr atomic.Value
	var dialing sync.WaitGroup
	for range sockets {
		dialing.Add(1)
		dial <- struct{}{}
		go func() {
			defer dialing.Done()
			defer func() { <-dial }()
			c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: client})
			if err != nil {
				dialErr.Store(err)
				return
			}
			readers.Go(func() {
				defer c.CloseNow()
				for {
					// A context without Done: the reader allocates nothing per
					// message, so allocs/op is the server's. The readers end
					// when the server closes the sockets.
					_, r, err := c.Reader(context.Background())
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, r); err != nil {
						return
					}
					if remaining.Add(-1) == 0 {
						all <- struct{}{}
					}
				}
			})
		}()
	}
	dialing.Wait()
	if err := dialErr.Load(); err != nil {
		b.Fatalf("dial: %v", err)
	}
	for br.Subscribers() != sockets {
		time.Sleep(time.Millisecond)
	}
	msg := []byte(`{"type":"job","job":{"id":"0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a55","tool":"upscale","status":"done",` +
		`"resultUrl":"http://localhost:8080/api/toolkit/assets/0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a56/file","resultAssetId":"0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a56",` +
		`"error":null,"brandId":"","createdAt":"2026-11-22T07:20:49.123Z","eventSeq":42}}`)

	var lat []time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		remaining.Store(sockets)
		start := time.Now()
		br.Publish("A", int64(i), msg)
		select {
		case <-all:
		case <-time.After(30 * time.Second):
			b.Fatalf("publish %d: %d sockets did not receive it", i, remaining.Load())
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	// The process's CPU time per message: the server's writes and the
	// clients' reads together, which the load of the machine barely moves.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
	b.ReportMetric(0, "ns/op")

	br.Close()
	handlers.Wait()
	cancel()
	readers.Wait()
}
