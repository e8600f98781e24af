package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
)

// TestWatch follows a house's events through studio watch: it replays
// what happened before it started, prints each change of a job once,
// reconnects when the connection drops and replays what it missed, and
// with --until exits once the named jobs finished (1 when one was not done).
func TestWatch(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "watcher")
	key := a.Key(t, owner, "member")
	proxy := newDropProxy(t, strings.TrimPrefix(a.URL, "http://"))
	submit := func() string {
		t.Helper()
		res := a.Do(t, "POST", "/api/toolkit/jobs/submit", key, apptest.Multipart(t,
			apptest.Part{Name: "tool", Value: "upscale"}, apptest.Part{Name: "image", Filename: "a.png", Data: tinyPNG(t)}))
		if res.Status != 202 {
			t.Fatalf("submit: %d %s", res.Status, res.Body)
		}
		return res.Map(t)["jobId"].(string)
	}
	develop := func() {
		t.Helper()
		for {
			worked, err := a.Pool.One(context.Background(), "test-worker")
			if err != nil {
				t.Fatal(err)
			}
			if !worked {
				return
			}
		}
	}

	first := submit() // before the watch starts: replayed
	out := &lockedWriter{w: &bytes.Buffer{}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"watch", "--url", "http://" + proxy.addr}, func(k string) string {
			if k == "STUDIO_KEY" {
				return key.Key
			}
			return ""
		}, out, io.Discard)
	}()
	waitFor(t, out, `"id":"`+first+`","tool":"upscale","status":"queued"`)
	proxy.drop() // the socket goes; watch reconnects after a second and replays
	second := submit()
	develop()
	waitFor(t, out, `"id":"`+first+`","tool":"upscale","status":"done"`)
	waitFor(t, out, `"id":"`+second+`","tool":"upscale","status":"done"`)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch ended with %v; want nil when stopped", err)
	}

	// Replay after the drop: the first job's later states arrive once each,
	// in order; the second one's too.
	seen := map[string][]string{}
	printed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			Type string
			Job  struct {
				ID, Status string
				EventSeq   int64
			}
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Type != "job" {
			t.Fatalf("a line that is no job event: %q (%v)", line, err)
		}
		k := fmt.Sprint(m.Job.ID, "@", m.Job.EventSeq)
		if printed[k] {
			t.Errorf("printed twice: %s", line)
		}
		printed[k] = true
		seen[m.Job.ID] = append(seen[m.Job.ID], m.Job.Status)
	}
	if got := seen[first]; len(got) < 2 || got[0] != "queued" || got[len(got)-1] != "done" {
		t.Errorf("the first job: %v; want queued first and done last", got)
	}
	if got := seen[second]; len(got) == 0 || got[len(got)-1] != "done" {
		t.Errorf("the second job: %v; want it done", got)
	}
	if proxy.conns() < 2 {
		t.Errorf("watch opened %d connections; want a reconnect", proxy.conns())
	}

	t.Run("until", func(t *testing.T) {
		env := func(k string) string {
			if k == "STUDIO_KEY" {
				return key.Key
			}
			return ""
		}
		var out bytes.Buffer
		if err := run(context.Background(), []string{"watch", "--url", a.URL, "--until", first + "," + second}, env, &out, io.Discard); err != nil {
			t.Errorf("until two done jobs: %v", err)
		}
		cancelled := submit()
		a.Do(t, "POST", "/api/toolkit/jobs/"+cancelled+"/cancel", key, nil)
		if err := run(context.Background(), []string{"watch", "--url", a.URL, "--until", cancelled}, env, &out, io.Discard); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("until a cancelled job: %v; want an error naming it", err)
		}
		if err := run(context.Background(), []string{"watch", "--url", a.URL, "--key", "fis_sk_nope", "--until", first}, env, &out, io.Discard); err == nil {
			t.Error("a refused key: no error")
		}
		if err := run(context.Background(), []string{"watch", "--url", a.URL, "--key", ""}, func(string) string { return "" }, &out, io.Discard); err == nil {
			t.Error("no key: no error")
		}
	})
}

func waitFor(t *testing.T, out *lockedWriter, want string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute) // a bound on a hang, however loaded the machine
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 3 minutes:\n%s", want, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// dropProxy forwards TCP connections to a server and can cut every one
// open, as a flaky network would.
type dropProxy struct {
	addr   string
	mu     sync.Mutex
	open   []net.Conn
	opened int
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{addr: ln.Addr().String()}
	t.Cleanup(func() { ln.Close(); p.drop() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.open = append(p.open, c, s)
			p.opened++
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *dropProxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
}

func (p *dropProxy) conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opened
}
