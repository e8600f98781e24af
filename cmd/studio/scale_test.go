package main

import (
	"bytes"
	"flag"
	"image/color"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"studio/internal/account"
	"studio/internal/engine/fal/faltest"
)

// The size of TestScale: make test runs the default, make scale-test
// (scripts/scale-test.sh) 20 houses of 25 develops.
var (
	scaleHouses   = flag.Int("scale.houses", 3, "houses TestScale drives")
	scaleDevelops = flag.Int("scale.develops", 20, "develops per house TestScale submits")
	scaleRender   = flag.Duration("scale.render", time.Second, "the provider stand-in's fixed render time")
	scaleGraph    = flag.String("scale.graph", "", "a PNG file TestScale draws api-b's queue depth, holds pending and running jobs into, over the run")
)

// TestScale is issue 30's proof under faults: two API instances and two
// workers, each its own process, on one PostgreSQL database and one S3
// bucket; renders of a fixed time at a provider stand-in (so the figures
// measure coordination, not this machine's CPU); every house with a
// socket open on each API instance and two webhook endpoints. It drives
// the develops in three thirds: with one worker, with two, and under
// faults (some cancelled while queued; kill -9 of a worker mid-render,
// SIGTERM of the other and a third started, SIGTERM of an API instance
// with a request in flight and another started: a rolling restart).
//
// Then every develop ended done, failed or cancelled exactly once; each
// hold ended once (posted for done: never a second charge) and every
// house's ledger audit balances; every socket that stayed connected saw
// every done of its house, and every socket its house's messages in
// strictly increasing eventSeq across jobs and processes (each change's
// NOTIFY leaves with the transaction that took its seq), and the closed
// ones caught up with since= on the new instance; each endpoint heard each done once
// (one webhook-id, however often it was retried); a sign-in limit of N
// across the two instances admitted N. It logs develops per minute with
// one worker and with two, submit-to-socket latency per API instance and
// what /metrics showed during the faults.
func TestScale(t *testing.T) {
	c := newCluster(t, *scaleRender)
	c.program = plainProgram(t)
	c.fal.Answer(func(string, map[string]any) faltest.Answer {
		return faltest.Answer{Takes: *scaleRender, Width: 128, Height: 160}
	})
	a := c.start("api-a", "serve", "--worker=false")
	b := c.start("api-b", "serve", "--worker=false")
	w1 := c.start("worker-1", "worker")
	img := product(128, 160)

	type tenant struct {
		*house
		name   string
		onA    *socket  // closed by the rolling restart
		onB    *socket  // open from start to end
		ids    []string // the jobs it submitted
		cutoff int64    // the last eventSeq onA saw before it closed
		closed *socket  // onA before the rolling restart
	}
	var houses []*tenant
	for i := range *scaleHouses {
		name := "House" + strconv.Itoa(i)
		h := c.newHouse([]*proc{a, b}[i%2], name, 3**scaleDevelops+20, 2)
		houses = append(houses, &tenant{house: h, name: name, onA: h.open(a), onB: h.open(b)})
	}

	// A limit counted in the database holds across instances: failed
	// sign-ins from one address, alternating between A and B, are refused
	// after SignInLimit in all. The limit counts in fixed windows of a
	// minute, so the tries start with at least half a window ahead of
	// them: tries that straddled a window's end would rightly be admitted
	// again. The check runs beside the develops, so the wait costs no time.
	var signIns sync.WaitGroup
	signIns.Go(func() {
		if left := account.SignInWindow - time.Duration(time.Now().UnixMilli()%account.SignInWindow.Milliseconds())*time.Millisecond; left < account.SignInWindow/2 {
			time.Sleep(left + 100*time.Millisecond)
		}
		window := time.Now().UnixMilli() / account.SignInWindow.Milliseconds()
		admitted := 0
		for i := range 2 * account.SignInLimit {
			code, _ := houses[0].do([]*proc{a, b}[i%2], "POST", "/api/auth/sign-in/email", "application/json",
				strings.NewReader(`{"email":"nobody@example.com","password":"not the password"}`), nil)
			if code != http.StatusTooManyRequests {
				admitted++
			}
		}
		if time.Now().UnixMilli()/account.SignInWindow.Milliseconds() != window {
			t.Errorf("the failed sign-ins took more than half a minute; the limit's window ended under them")
		} else if admitted != account.SignInLimit {
			t.Errorf("failed sign-ins admitted across two instances: %d; want %d (the limit)", admitted, account.SignInLimit)
		}
	})
	defer signIns.Wait()

	var (
		mu       sync.Mutex
		sent     = map[string]time.Time{} // job -> when its submit was answered
		via      = map[string]string{}    // job -> the instance it was submitted to
		tools    = []string{"remove-background", "upscale"}
		total    = *scaleHouses * *scaleDevelops
		thirds   = []int{total / 3, total / 3, total - 2*(total/3)}
		n        int
		canceled int
	)
	// submit sends count develops, round robin over the houses and the
	// instances of apis, a few at a time; with cancel, it cancels each at
	// once.
	submit := func(count int, cancel bool, apis ...*proc) []string {
		var ids []string
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for range count {
			mu.Lock()
			h, api, tool := houses[n%len(houses)], apis[n%len(apis)], tools[n%len(tools)]
			n++
			mu.Unlock()
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				id, err := h.submit(api, tool, img)
				if err != nil {
					t.Errorf("submit: %v", err)
					return
				}
				mu.Lock()
				sent[id], via[id] = time.Now(), api.name
				h.ids = append(h.ids, id)
				ids = append(ids, id)
				mu.Unlock()
				if cancel {
					var res struct{ Cancelled bool }
					if _, err := h.do(api, "POST", "/api/toolkit/jobs/"+id+"/cancel", "", nil, &res); err == nil && res.Cancelled {
						mu.Lock()
						canceled++
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		return ids
	}
	// ended reports whether B's sockets (open throughout) saw every job
	// of ids end.
	ended := func(ids []string) bool {
		heard := 0
		for _, h := range houses {
			h.onB.mu.Lock()
			for _, id := range ids {
				if h.onB.ends[id] > 0 {
					heard++
				}
			}
			h.onB.mu.Unlock()
		}
		return heard == len(ids)
	}
	rate := func(ids []string) float64 {
		first, last := time.Now(), time.Time{}
		for _, id := range ids {
			if sent[id].Before(first) {
				first = sent[id]
			}
			for _, h := range houses {
				if at, ok := h.onB.doneAt(id); ok && at.After(last) {
					last = at
				}
			}
		}
		return float64(len(ids)) / last.Sub(first).Minutes()
	}
	limit := time.Duration(total)*time.Second + 2*time.Minute

	// /metrics of B (up throughout) is scraped every half second over the
	// run: the samples for the graph, the peaks during the faults.
	start := time.Now()
	scrapes := make(chan string, 1)
	stopScraping := make(chan struct{})
	var (
		peak    struct{ depth, age, held, running, outbox float64 }
		faults  atomic.Bool
		samples []sample // depth, held, running
		marks   []mark   // the workers' and API instances' starts and stops
	)
	at := func(rgb color.RGBA) { marks = append(marks, mark{time.Since(start), rgb}) }
	go func() {
		var last string
		defer func() { scrapes <- last }()
		for {
			if text, err := scrape(b); err == nil {
				last = text
				var running float64
				for l := range strings.Lines(text) {
					if strings.HasPrefix(l, `studio_jobs{`) && strings.Contains(l, `state="running"`) {
						running += series(l, "studio_jobs")
					}
				}
				depth, held := series(text, "studio_queue_depth"), series(text, "studio_holds_pending")
				samples = append(samples, sample{time.Since(start), []float64{depth, held, running}})
				if faults.Load() {
					peak.depth, peak.held, peak.running = max(peak.depth, depth), max(peak.held, held), max(peak.running, running)
					peak.age = max(peak.age, series(text, "studio_queue_oldest_age_seconds"))
					peak.outbox = max(peak.outbox, series(text, "studio_webhook_outbox_depth"))
				}
			}
			select {
			case <-stopScraping:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	gray, red, black := color.RGBA{0x99, 0x99, 0x99, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0, 0, 0, 0xff}

	one := submit(thirds[0], false, a, b)
	c.within(limit, "the first third ends on one worker", func() bool { return ended(one) })
	rate1 := rate(one)
	w2 := c.start("worker-2", "worker")
	at(gray)
	two := submit(thirds[1], false, a, b)
	c.within(limit, "the second third ends on two workers", func() bool { return ended(two) })
	rate2 := rate(two)

	// The faults, while the last third is queued and rendering.
	faults.Store(true)
	renders := len(c.fal.Submits())
	queuedOnly := max(1, thirds[2]/5) // cancelled while no worker runs
	three := submit(thirds[2]-queuedOnly, false, a, b)
	c.within(time.Minute, "renders of the last third start", func() bool { return len(c.fal.Submits()) >= renders+min(2, len(three)) })
	at(red)
	if err := w1.stop(t, syscall.SIGKILL); err == nil {
		t.Error("worker-1 survived kill -9")
	}
	at(red)
	if err := w2.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("worker-2's exit after SIGTERM: %v", err)
	}
	three = append(three, submit(queuedOnly, true, a, b)...)
	w3 := c.start("worker-3", "worker")
	at(gray)
	var onA []*socket
	for _, h := range houses {
		onA = append(onA, h.onA)
	}
	signIns.Wait() // they ask api-a too, which now restarts
	at(black)
	inflight := c.drainAPI(a, houses[0].halfSubmit(a, img), onA...)
	mu.Lock()
	sent[inflight], via[inflight] = time.Now(), a.name
	houses[0].ids = append(houses[0].ids, inflight)
	three = append(three, inflight)
	mu.Unlock()
	a2 := c.start("api-a2", "serve", "--worker=false")
	lat := map[string][]time.Duration{} // per instance: submit to its socket's done
	latencies := func(s *socket) {
		for id, at := range s.doneSet() {
			lat[s.api.name] = append(lat[s.api.name], at.Sub(sent[id]))
		}
	}
	var caughtUp []map[string]bool // per house: the jobs A's socket, the replay and A2's socket saw done
	for _, h := range houses {
		h.cutoff = h.onA.last()
		again := h.open(a2)
		seen := maps.Collect(func(yield func(string, bool) bool) {
			for id := range h.onA.doneSet() {
				yield(id, true)
			}
		})
		for _, j := range h.jobs(a2, h.cutoff) {
			if j.Status == "done" {
				seen[j.ID] = true
			}
		}
		caughtUp = append(caughtUp, seen)
		latencies(h.onA)
		h.closed, h.onA = h.onA, again
	}
	c.within(limit, "the last third ends after the faults", func() bool { return ended(three) })
	close(stopScraping)
	final := <-scrapes
	elapsed := time.Since(start)
	if *scaleGraph != "" {
		ystep, err := writeGraph(*scaleGraph, samples, marks)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("graph of api-b's /metrics over the run (%d scrapes): %s; seconds along x, grid lines every %g on y; "+
			"blue studio_queue_depth, orange studio_holds_pending, green studio_jobs{state=running}; dashed: gray a worker "+
			"started, red kill -9 of worker-1 then SIGTERM of worker-2, black SIGTERM of api-a (the rolling restart)",
			len(samples), *scaleGraph, ystep)
	}

	// Every develop ended exactly once, and its hold with it.
	var done, failed, cancelled, messages int
	for i, h := range houses {
		final := h.jobs(b, 0)
		if len(final) != len(h.ids) {
			t.Errorf("%s lists %d jobs; it submitted %d", h.name, len(final), len(h.ids))
		}
		dones := map[string]bool{}
		for _, j := range final {
			switch j.Status {
			case "done":
				done++
				dones[j.ID] = true
			case "failed":
				failed++
			case "cancelled":
				cancelled++
			}
		}
		// B's socket was open throughout: it saw every end once, and each
		// job's changes in order.
		h.onB.mu.Lock()
		for _, j := range final {
			if got := h.onB.ends[j.ID]; got != 1 {
				t.Errorf("%s's socket on B saw %s end %d times; want once", h.name, j.ID, got)
			}
			if seqs := h.onB.ofJob[j.ID]; !slices.IsSorted(seqs) {
				t.Errorf("%s's socket on B saw %s's changes out of order: eventSeqs %v", h.name, j.ID, seqs)
			}
		}
		messages += len(h.onB.seqs)
		h.onB.mu.Unlock()
		// Every socket saw the house's messages in strictly increasing
		// eventSeq, across jobs, workers and API instances: a client's
		// highest eventSeq is a safe since= cursor.
		for _, s := range []*socket{h.onB, h.closed, h.onA} {
			s.mu.Lock()
			for k := 1; k < len(s.seqs); k++ {
				if s.seqs[k] <= s.seqs[k-1] {
					t.Errorf("%s's socket on %s saw eventSeq %d after %d", h.name, s.api.name, s.seqs[k], s.seqs[k-1])
				}
			}
			s.mu.Unlock()
		}
		// A's socket, the replay since its last eventSeq and A2's socket
		// together saw every done.
		for id := range h.onA.doneSet() {
			caughtUp[i][id] = true
		}
		for id := range dones {
			if !caughtUp[i][id] {
				t.Errorf("%s: %s done was missed across A's close (socket, since=%d, the new socket)", h.name, id, h.cutoff)
			}
		}
		// Each endpoint heard each done once.
		for e := range 2 {
			path := "/" + h.name + "/" + strconv.Itoa(e)
			c.within(time.Minute, path+" hears every done", func() bool { return len(c.hooks.jobsHeard(path)) >= len(dones) })
			for id, msgs := range c.hooks.jobsHeard(path) {
				if !dones[id] || msgs != 1 {
					t.Errorf("%s heard %s in %d messages (done: %v); want each done in one", path, id, msgs, dones[id])
				}
			}
		}
	}
	if done+failed+cancelled != total+1 || cancelled == 0 {
		t.Errorf("%d done, %d failed, %d cancelled; want %d in all, some cancelled while queued", done, failed, cancelled, total+1)
	}
	if cancelled != canceled || canceled != queuedOnly {
		t.Errorf("%d cancelled, %d cancels answered cancelled: true; want the %d submitted while no worker ran", cancelled, canceled, queuedOnly)
	}
	c.settled()
	c.promtool(final)
	// The series only a worker's process moves, scraped from the worker
	// that ran the last third (METRICS_ADDR).
	worker, err := scrape(w3)
	if err != nil {
		t.Fatalf("worker-3's /metrics: %v", err)
	}
	c.promtool(worker)
	for _, name := range []string{"studio_jobs_ended_total", "studio_render_duration_seconds_count", "studio_webhook_deliveries_total"} {
		if series(worker, name) == 0 {
			t.Errorf("worker-3's /metrics: %s did not move", name)
		}
	}

	// The figures.
	for _, h := range houses {
		for _, s := range []*socket{h.onB, h.onA} {
			latencies(s)
		}
	}
	t.Logf("%d develops over %d houses in %v: %d done, %d failed, %d cancelled while queued; renders take %v at the stand-in",
		total+1, len(houses), elapsed.Round(time.Second), done, failed, cancelled, *scaleRender)
	t.Logf("develops per minute: %.0f with one worker, %.0f with two (%.2fx); STUDIO_WORKERS=2 each", rate1, rate2, rate2/rate1)
	for _, name := range slices.Sorted(maps.Keys(lat)) {
		d := lat[name]
		slices.Sort(d)
		t.Logf("submit to the socket's done on %s: p50 %v, p99 %v (%d dones, faults included)", name,
			d[len(d)/2].Round(time.Millisecond), d[len(d)*99/100].Round(time.Millisecond), len(d))
	}
	t.Logf("/metrics during the faults (peaks on api-b): studio_queue_depth %.0f, studio_queue_oldest_age_seconds %.1f, studio_holds_pending %.0f, studio_jobs{state=running} %.0f, studio_webhook_outbox_depth %.0f",
		peak.depth, peak.age, peak.held, peak.running, peak.outbox)
	var wait50, wait99, run50, run99 float64
	conn, err := pgx.Connect(t.Context(), c.databaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if err := conn.QueryRow(t.Context(), `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY started_at - created_at),
		percentile_cont(0.99) WITHIN GROUP (ORDER BY started_at - created_at), percentile_cont(0.5) WITHIN GROUP (ORDER BY finished_at - started_at),
		percentile_cont(0.99) WITHIN GROUP (ORDER BY finished_at - started_at) FROM jobs WHERE status = 'done'`).Scan(&wait50, &wait99, &run50, &run99); err != nil {
		t.Fatal(err)
	}
	t.Logf("from the database, done jobs: queued p50 %.0f ms, p99 %.0f ms; claim to done p50 %.0f ms, p99 %.0f ms", wait50, wait99, run50, run99)
	t.Logf("job messages on B's sockets, each after every lower eventSeq of its house: %d", messages)
	t.Logf("CPU used: %s", c.cpu())
	t.Logf("/metrics at the end: api-b studio_http_requests_total %.0f, studio_sockets %.0f; worker-3 studio_jobs_ended_total %.0f, studio_render_duration_seconds_count %.0f (sum %.1f s), studio_webhook_deliveries_total %.0f",
		series(final, "studio_http_requests_total"), series(final, "studio_sockets"), series(worker, "studio_jobs_ended_total"),
		series(worker, "studio_render_duration_seconds_count"), series(worker, "studio_render_duration_seconds_sum"), series(worker, "studio_webhook_deliveries_total"))
}

// doneSet is a copy of the jobs the socket saw done and when.
func (s *socket) doneSet() map[string]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.done)
}

// doneAt is when the socket saw job done.
func (s *socket) doneAt(job string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.done[job]
	return at, ok
}

// promtool runs `promtool check metrics` on a scrape when promtool is
// installed (scripts/test.sh puts Debian's in .cache/bin); the metrics
// package's own test lints the registry with client_golang's linter either
// way.
func (c *cluster) promtool(scraped string) {
	t := c.t
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		root, _ := filepath.Abs("../..")
		if bin = filepath.Join(root, ".cache", "bin", "promtool"); !exists(bin) {
			t.Log("promtool is not installed: the scrape is checked by internal/metrics' lint only")
			return
		}
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(scraped)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != "" {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
