package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"studio/internal/httpguard"
)

// TestStalledClientFlood runs the program with an open-file limit of 1,024
// and opens 2,000 connections that send a sign-in's headers and never its
// body: 1,000 from one address and 1,000 spread over 32 others. /health
// must answer within slowest throughout. Without the guard, the program
// runs out of descriptors and /health goes unanswered until a stalled
// body's deadline frees one (httpguard.DefaultBodyTimeout, 30 s); with it,
// /health typically answers in tens of milliseconds. The bound sits well
// between the two, so that -race on a 2-core machine loaded by the rest of
// the suite (a probe once took 3.4 s there) does not fail it.
func TestStalledClientFlood(t *testing.T) {
	const slowest = httpguard.DefaultBodyTimeout / 3
	if testing.Short() {
		t.Skip("starts a child process and 2,000 connections")
	}
	dir, addr := migratedData(t), freeAddr(t)
	logs := &lockedWriter{w: new(bytes.Buffer)}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -n 1024 && exec "$0" serve`, os.Args[0])
	cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_DATA_DIR="+dir, "STUDIO_ADDR="+addr,
		"STUDIO_PUBLIC_URL=http://"+addr, "STUDIO_WORKERS=1", "DATABASE_URL=")
	cmd.Stdout, cmd.Stderr = logs, logs
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			out := logs.String()
			t.Logf("program output (last 4 KB):\n%s", out[max(0, len(out)-4096):])
		}
	})
	health := &http.Client{Timeout: 2 * slowest, Transport: &http.Transport{DisableKeepAlives: true}}
	probe := func() (time.Duration, error) {
		start := time.Now()
		res, err := health.Get("http://" + addr + "/health")
		if err != nil {
			return time.Since(start), err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return time.Since(start), fmt.Errorf("status %d", res.StatusCode)
		}
		return time.Since(start), nil
	}
	for deadline := time.Now().Add(serveWithin); ; time.Sleep(50 * time.Millisecond) {
		if _, err := probe(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program did not serve within %v", serveWithin)
		}
	}

	const stalled = 2000
	var opened, failed atomic.Int64
	var mu sync.Mutex
	var conns []net.Conn
	flood := make(chan struct{})
	t.Cleanup(func() {
		<-flood
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		defer close(flood)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 64)
		for i := range stalled {
			from := "127.0.0.2"
			if i%2 == 1 {
				from = fmt.Sprintf("127.0.3.%d", 1+i%64/2)
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					failed.Add(1)
					return
				}
				c.SetWriteDeadline(time.Now().Add(2 * time.Second))
				if _, err := fmt.Fprintf(c, "POST /api/auth/sign-in/email HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr); err != nil {
					failed.Add(1)
				}
				opened.Add(1)
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			})
		}
		wg.Wait()
	}()

	var worst time.Duration
	probes := 0
	for end := time.Now().Add(4 * time.Second); ; {
		select {
		case <-flood:
		default:
			end = time.Now().Add(4 * time.Second) // probe until 4 s after the flood is in
		}
		if time.Now().After(end) {
			break
		}
		el, err := probe()
		probes++
		worst = max(worst, el)
		if err != nil || el > slowest {
			t.Fatalf("/health after %d probes, %d stalled connections opened: %v in %v", probes, opened.Load(), err, el)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d stalled connections opened (%d failed to open or write); %d /health probes, slowest %v",
		opened.Load(), failed.Load(), probes, worst)
}
