package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"studio/internal/sqlstore"
)

// TestDrain stops each role with SIGTERM while it works, as a rolling
// deploy does. A worker in the middle of a render finishes it before it
// ends (or, past its grace period, hands the job back to the queue): the
// job is done once and charged once. An API instance with a
// request in flight answers it before it ends, refusing new connections
// meanwhile, and its open socket gets the close that tells a client to
// reconnect and replay (1001 "shutdown"). The develop that request
// submitted is developed by the worker started after.
func TestDrain(t *testing.T) {
	c := newCluster(t, 1500*time.Millisecond, "STUDIO_WORKERS=1")
	api := c.start("api", "serve", "--worker=false")
	w := c.start("worker", "worker")
	h := c.newHouse(api, "Drain", 100, 0)
	sock := h.open(api)
	img := product(128, 160)

	first, err := h.submit(api, "remove-background", img)
	if err != nil {
		t.Fatal(err)
	}
	c.within(time.Minute, "the render reaches the provider", func() bool { return len(c.fal.Submits()) == 1 })
	if err := w.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("the worker's exit after SIGTERM: %v", err)
	}
	// Within the grace period (20 s) the render finishes; a render slower
	// than that (a loaded machine under -race) is handed back to the queue.
	js := h.jobs(api, 0)
	if len(js) != 1 || js[0].ID != first || (js[0].Status != "done" && js[0].Status != "queued") {
		t.Fatalf("after the worker drained: %+v; want %s done, or queued again (handed back)", js, first)
	}
	if js[0].Status == "done" {
		c.within(10*time.Second, "the socket hears the done", func() bool { return sock.dones() == 1 })
	}

	second := c.drainAPI(api, h.halfSubmit(api, img), sock)

	// The next deploy's processes develop what the drained instance took.
	api = c.start("api2", "serve", "--worker=false")
	c.start("worker2", "worker")
	c.within(2*time.Minute, "the in-flight submit's job (and a handed-back one) done", func() bool {
		done := 0
		for _, j := range h.jobs(api, 0) {
			if (j.ID == first || j.ID == second) && j.Status == "done" {
				done++
			}
		}
		return done == 2
	})
	c.settled()
}

// answer is an HTTP answer or the error instead.
type answer struct {
	status int
	body   string
	err    error
}

// halfSent is a submit whose body is half sent, in flight: the server has
// begun reading it (it asked for the rest with 100 Continue).
type halfSent struct {
	pw       *io.PipeWriter
	rest     []byte
	answered chan answer
}

// halfSubmit sends a develop's submit to api up to half its body.
func (h *house) halfSubmit(api *proc, img []byte) *halfSent {
	t := h.c.t
	t.Helper()
	ctype, body := submitForm("remove-background", img)
	pr, pw := io.Pipe()
	reading := make(chan struct{})
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(reading) }})
	req, _ := http.NewRequestWithContext(ctx, "POST", api.base()+"/api/toolkit/jobs/submit", pr)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+h.key)
	req.Header.Set("Expect", "100-continue")
	req.ContentLength = int64(len(body))
	hs := &halfSent{pw: pw, rest: body[len(body)/2:], answered: make(chan answer, 1)}
	go func() {
		client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
		res, err := client.Do(req)
		if err != nil {
			hs.answered <- answer{err: err}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		hs.answered <- answer{status: res.StatusCode, body: string(b)}
	}()
	select {
	case <-reading:
	case a := <-hs.answered:
		t.Fatalf("the submit was answered before its body: %+v", a)
	case <-time.After(time.Minute):
		t.Fatal("no 100 Continue within a minute")
	}
	if _, err := pw.Write(body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	return hs
}

// drainAPI sends api SIGTERM with hs in flight and checks the drain: new
// connections are refused, hs (sent whole after) is answered 202, every
// socket of socks gets 1001 "shutdown", and the process exits 0. It
// returns the job hs submitted.
func (c *cluster) drainAPI(api *proc, hs *halfSent, socks ...*socket) string {
	t := c.t
	t.Helper()
	api.stopped.Store(true)
	if err := api.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.within(30*time.Second, "the draining instance refuses new connections", func() bool {
		conn, err := net.DialTimeout("tcp", api.addr, time.Second)
		if err == nil {
			conn.Close()
		}
		return err != nil
	})
	if _, err := hs.pw.Write(hs.rest); err != nil {
		t.Fatalf("the rest of the body: %v", err)
	}
	hs.pw.Close()
	var id string
	select {
	case a := <-hs.answered:
		var out struct{ JobID string }
		if a.err != nil || a.status != http.StatusAccepted || json.Unmarshal([]byte(a.body), &out) != nil || out.JobID == "" {
			t.Fatalf("the submit in flight: %+v; want 202 with its job", a)
		}
		id = out.JobID
	case <-time.After(30 * time.Second):
		t.Fatal("the submit in flight was not answered within 30 s")
	}
	for _, s := range socks {
		select {
		case <-s.ended:
			var ce websocket.CloseError
			if !errors.As(s.err, &ce) || ce.Code != websocket.StatusGoingAway || ce.Reason != "shutdown" {
				t.Errorf("a socket on %s ended with %v; want 1001 %q (reconnect, then replay)", api.name, s.err, "shutdown")
			}
		case <-time.After(30 * time.Second):
			t.Errorf("a socket on %s was not closed by the drain", api.name)
		}
	}
	select {
	case <-api.done:
		if api.err != nil {
			t.Errorf("%s's exit after SIGTERM: %v", api.name, api.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not end within 30 s of its last request", api.name)
	}
	return id
}

// settled checks the database once every job has ended: each hold ended
// once, posted for a done job and voided for a failed or cancelled one,
// none pending, and every house's ledger audit balances.
func (c *cluster) settled() {
	t := c.t
	t.Helper()
	url := c.databaseURL()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var wrong, pending int
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM jobs j LEFT JOIN ledger_holds h ON h.job_id = j.id
		WHERE h.id IS NULL OR NOT ((j.status = 'done' AND h.state = 'posted') OR (j.status IN ('failed', 'cancelled') AND h.state = 'voided'))`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE state = 'pending'`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || pending != 0 {
		t.Errorf("holds: %d jobs whose hold does not match their end, %d pending; want 0 and 0", wrong, pending)
	}
	rows, _ := conn.Query(ctx, `SELECT DISTINCT organization_id FROM jobs`)
	houses, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, house := range houses {
		if err := db.CheckLedger(ctx, house); err != nil {
			t.Errorf("ledger audit of %s: %v", house, err)
		}
	}
}

// databaseURL is the cluster's database.
func (c *cluster) databaseURL() string {
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			return v
		}
	}
	return ""
}
