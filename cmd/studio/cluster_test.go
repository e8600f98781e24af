package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"studio/internal/app"
	"studio/internal/dbtest"
	"studio/internal/engine/fal/faltest"
	"studio/internal/urlguard"
)

// A cluster runs studio as separate processes (the test binary run as the
// program, built once) on one PostgreSQL database and one S3 bucket, as
// README's "Running several instances" deploys it: API instances
// (`serve --worker=false`) and workers (`worker`) started, stopped and
// killed one by one. Renders go to a fal stand-in in the test process that
// takes a fixed time and no CPU, and webhook deliveries to a receiver here
// that counts them.
type cluster struct {
	t     *testing.T
	env   []string
	logs  *lockedWriter
	fal   *faltest.Server
	hooks *receiver
	died  chan string // a process that ended before the test stopped it
	procs []*proc     // every process started, for cpu
	// program is the binary the processes run: this test binary, or a
	// copy of it built without the race detector (plainProgram).
	program string
}

// clusterEnv names the settings the child processes read beside studio's
// own: the receiver's loopback address and the PEM file of its certificate.
const (
	envHookAddr = "STUDIO_TEST_WEBHOOK_ADDR"
	envHookCA   = "STUDIO_TEST_WEBHOOK_CA"
)

// childOptions are the core options of a child process: a webhook guard
// that reaches the test's receiver (and no other private address) when
// the test named one.
func childOptions() app.Options {
	addr, ca := os.Getenv(envHookAddr), os.Getenv(envHookCA)
	if addr == "" {
		return app.Options{}
	}
	pemBytes, err := os.ReadFile(ca)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	g := urlguard.New(urlguard.AllowLoopbackForTest(childTB{}, netip.MustParseAddrPort(addr)), urlguard.WithRootCAs(pool))
	return app.Options{WebhookGuard: g}
}

// childTB is the testing.TB a child process has none of: it only answers
// AllowLoopbackForTest's Helper and Fatalf.
type childTB struct{ testing.TB }

func (childTB) Helper()                        {}
func (childTB) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }

// newCluster makes the database and bucket and starts the stand-ins; it
// starts no process. render is the stand-in's fixed render time; env adds
// or overrides settings of every process.
func newCluster(t *testing.T, render time.Duration, env ...string) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	pg, s3url := os.Getenv("TEST_DATABASE_URL"), os.Getenv("TEST_S3_URL")
	if pg == "" || s3url == "" {
		t.Skip("TEST_DATABASE_URL and TEST_S3_URL are needed (scripts/test.sh starts PostgreSQL and versitygw and sets them)")
	}
	c := &cluster{t: t, logs: &lockedWriter{w: new(bytes.Buffer)}, died: make(chan string, 16), program: os.Args[0]}
	c.fal = faltest.New(t, "fal-scale")
	c.fal.Answer(func(string, map[string]any) faltest.Answer { return faltest.Answer{Takes: render} })
	c.hooks = newReceiver(t)
	ca := filepath.Join(t.TempDir(), "hooks.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.hooks.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	c.env = append([]string{"DATABASE_URL=" + dbtest.FreshSchema(t, pg), "BLOB_URL=" + freshBucket(t, s3url),
		"FAL_KEY=fal-scale", "FAL_URL=" + c.fal.URL, "METRICS_TOKEN=scrape", "STUDIO_JOB_LEASE=2s", "STUDIO_WORKERS=2",
		envHookAddr + "=" + c.hooks.srv.Listener.Addr().String(), envHookCA + "=" + ca}, env...)
	return c
}

// proc is one child process of the cluster.
type proc struct {
	name    string
	addr    string // where an API instance listens, or a worker's /metrics
	cmd     *exec.Cmd
	done    chan struct{}
	err     error // the exit, once done is closed
	stopped atomic.Bool
}

// base is the API instance's URL.
func (p *proc) base() string { return "http://" + p.addr }

// stop sends sig and waits for the process to end, returning its exit.
func (p *proc) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	p.stopped.Store(true)
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return p.err
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not end within 60 s of %v", p.name, sig)
		return nil
	}
}

// start runs `studio args...` as name; an API instance (serve) is
// returned once its /ready answers 200.
func (c *cluster) start(name string, args ...string) *proc {
	t := c.t
	t.Helper()
	p := &proc{name: name, addr: freeAddr(t), done: make(chan struct{})}
	p.cmd = exec.Command(c.program, args...)
	p.cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_DATA_DIR="+t.TempDir(),
		"STUDIO_ADDR="+p.addr, "STUDIO_PUBLIC_URL=http://"+p.addr)
	p.cmd.Env = append(p.cmd.Env, c.env...)
	if args[0] == "worker" {
		p.cmd.Env = append(p.cmd.Env, "METRICS_ADDR="+p.addr) // its /metrics
	}
	p.cmd.Stdout, p.cmd.Stderr = c.logs, c.logs
	dieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.procs = append(c.procs, p)
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
		if !p.stopped.Load() {
			c.died <- fmt.Sprintf("%s ended by itself: %v", name, p.err)
		}
	}()
	t.Cleanup(func() {
		if !p.stopped.Swap(true) {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	if args[0] == "serve" {
		c.ready(p)
	}
	return p
}

// plain is this test binary built without the race detector: built once
// per test binary, by the first test that asks (plainProgram), into a
// folder TestMain removes when the tests end.
var plain struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// plainProgram returns this test binary built without the race detector
// (itself when it runs without), for processes whose work is mostly
// pixels: under the detector a worker spends some 2 CPU seconds on each
// 1k frame (the finish and the verdict), which would make TestScale's 60
// develops cost minutes of CPU measuring nothing it checks; and the
// README tour's service, which develops a 2k packshot and a look.
// TestDrain, TestSeveralInstances and TestRolesAsProcesses still run their
// processes under the detector. The build (this package's compile and a
// link, some 10 CPU s with a warm cache) is made once and shared by
// TestScale and TestReadmeTour.
func plainProgram(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return os.Args[0]
	}
	plain.once.Do(func() {
		if plain.dir, plain.err = os.MkdirTemp("", "studio-plain-"); plain.err != nil {
			return
		}
		bin := filepath.Join(plain.dir, "studio-plain.test")
		build := exec.Command("go", "test", "-c", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			plain.err = fmt.Errorf("go test -c: %v\n%s", err, out)
			return
		}
		plain.bin = bin
		t.Logf("built %s without the race detector: %.1f CPU s", filepath.Base(bin),
			(build.ProcessState.UserTime() + build.ProcessState.SystemTime()).Seconds())
	})
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	return plain.bin
}

// cpu reports the CPU time each process used so far (user and system;
// /proc for a running one, its exit status for an ended one) and this test
// process's, e.g. "api-a 4.1s, worker-1 9.0s, test 6.2s (19.3s)". It
// reports "" where /proc is not there.
func (c *cluster) cpu() string {
	var parts []string
	var total time.Duration
	for _, p := range c.procs {
		var d time.Duration
		select {
		case <-p.done:
			d = p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		default:
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
			if err != nil {
				return ""
			}
			// Fields 14 and 15 (utime, stime, in clock ticks of 1/100 s on
			// Linux) follow the command name in parentheses.
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
			ut, _ := strconv.Atoi(f[11])
			st, _ := strconv.Atoi(f[12])
			d = time.Duration(ut+st) * 10 * time.Millisecond
		}
		total += d
		parts = append(parts, fmt.Sprintf("%s %.1fs", p.name, d.Seconds()))
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		self := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		total += self
		parts = append(parts, fmt.Sprintf("test %.1fs", self.Seconds()))
	}
	return fmt.Sprintf("%s (%.1fs)", strings.Join(parts, ", "), total.Seconds())
}

// ready waits for the instance's /ready, failing the test when a process
// died or it does not come within two minutes (migrations under -race on
// a loaded machine).
func (c *cluster) ready(p *proc) {
	c.t.Helper()
	for deadline := time.Now().Add(serveWithin); ; time.Sleep(50 * time.Millisecond) {
		c.alive()
		if res, err := http.Get(p.base() + "/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s not ready within %v:\n%s", p.name, serveWithin, c.logs.String())
		}
	}
}

// alive fails the test when a process ended that the test did not stop.
func (c *cluster) alive() {
	c.t.Helper()
	select {
	case e := <-c.died:
		c.t.Fatalf("%s\n%s", e, c.logs.String())
	default:
	}
}

// within polls cond until it holds, failing the test after limit.
func (c *cluster) within(limit time.Duration, what string, cond func() bool) {
	c.t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		c.alive()
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not within %v\n%s", what, limit, c.logs.String())
		}
	}
}

// house is one signed-up account's house and its API key.
type house struct {
	c     *cluster
	email string
	key   string
	http  *http.Client
}

// newHouse signs a person up on api, makes an API key, grants the house
// tokens tokens (`studio tokens grant`, in this process) and registers
// endpoints webhook endpoints for develop.done on the receiver (as the
// owner, in the session: a key may not manage them).
func (c *cluster) newHouse(api *proc, name string, tokens, endpoints int) *house {
	t := c.t
	t.Helper()
	jar, _ := cookiejar.New(nil)
	h := &house{c: c, email: strings.ToLower(name) + "@example.com", http: &http.Client{Jar: jar, Timeout: 60 * time.Second}}
	h.json(api, "POST", "/api/auth/sign-up/email", map[string]any{"name": name, "email": h.email, "password": "a long password"}, nil)
	for i := range endpoints {
		h.json(api, "POST", "/api/toolkit/webhooks", map[string]any{"url": c.hooks.srv.URL + "/" + name + "/" + strconv.Itoa(i),
			"events": []string{"develop.done"}}, nil)
	}
	var k struct{ Key string }
	h.json(api, "POST", "/api/keys", map[string]any{"name": "scale"}, &k)
	h.key = k.Key
	env := map[string]string{"STUDIO_DATA_DIR": t.TempDir()}
	for _, kv := range c.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"tokens", "grant", "--email", h.email, "--tokens", strconv.Itoa(tokens)},
		func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatalf("tokens grant: %v %s", err, out.String())
	}
	return h
}

// do sends one request to api as the house (its key once it has one, its
// session before) and decodes a 2xx answer's JSON into out.
func (h *house) do(api *proc, method, path, ctype string, body io.Reader, out any) (int, error) {
	req, _ := http.NewRequest(method, api.base()+path, body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Origin", api.base())
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	res, err := h.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		return res.StatusCode, json.Unmarshal(b, out)
	}
	return res.StatusCode, nil
}

// json is do with a JSON body, failing the test on an error.
func (h *house) json(api *proc, method, path string, in, out any) {
	h.c.t.Helper()
	b, _ := json.Marshal(in)
	if _, err := h.do(api, method, path, "application/json", bytes.NewReader(b), out); err != nil {
		h.c.t.Fatal(err)
	}
}

// submitForm is a develop's multipart form: tool on image.
func submitForm(tool string, image []byte) (string, []byte) {
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	_ = w.WriteField("tool", tool)
	fw, _ := w.CreateFormFile("image", "p.jpg")
	_, _ = fw.Write(image)
	_ = w.Close()
	return w.FormDataContentType(), form.Bytes()
}

// submit submits a develop of tool on api and returns its job id.
func (h *house) submit(api *proc, tool string, image []byte) (string, error) {
	ctype, body := submitForm(tool, image)
	var out struct{ JobID string }
	_, err := h.do(api, "POST", "/api/toolkit/jobs/submit", ctype, bytes.NewReader(body), &out)
	return out.JobID, err
}

// jobState is a job as the list and the socket carry it.
type jobState struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	EventSeq int64  `json:"eventSeq"`
}

// jobs lists the house's jobs changed after since, through api.
func (h *house) jobs(api *proc, since int64) []jobState {
	h.c.t.Helper()
	var out struct{ Jobs []jobState }
	if _, err := h.do(api, "GET", "/api/toolkit/jobs?since="+strconv.FormatInt(since, 10), "", nil, &out); err != nil {
		h.c.t.Fatal(err)
	}
	return out.Jobs
}

// socket is one job socket a test keeps open and records.
type socket struct {
	api    *proc
	opened time.Time
	mu     sync.Mutex
	seqs   []int64              // eventSeq of each job message, in arrival order
	done   map[string]time.Time // job id -> when its done arrived
	ends   map[string]int       // job id -> messages saying it ended (done, failed, cancelled)
	ofJob  map[string][]int64   // job id -> the eventSeq of each of its messages, in arrival order
	ended  chan struct{}
	err    error // why the stream ended, once ended is closed
}

// open dials the house's job socket on api and reads it until it ends.
func (h *house) open(api *proc) *socket {
	t := h.c.t
	t.Helper()
	conn, _, err := websocket.Dial(t.Context(), "ws://"+api.addr+"/api/toolkit/jobs/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + h.key}}})
	if err != nil {
		t.Fatalf("socket on %s: %v", api.name, err)
	}
	s := &socket{api: api, opened: time.Now(), done: map[string]time.Time{}, ends: map[string]int{}, ofJob: map[string][]int64{}, ended: make(chan struct{})}
	conn.SetReadLimit(1 << 20)
	go func() {
		defer close(s.ended)
		defer conn.CloseNow()
		for {
			_, msg, err := conn.Read(context.Background())
			if err != nil {
				s.err = err
				return
			}
			var m struct {
				Type string
				Job  jobState
			}
			if json.Unmarshal(msg, &m) != nil || m.Type != "job" {
				continue
			}
			s.mu.Lock()
			s.seqs = append(s.seqs, m.Job.EventSeq)
			s.ofJob[m.Job.ID] = append(s.ofJob[m.Job.ID], m.Job.EventSeq)
			switch m.Job.Status {
			case "done", "failed", "cancelled":
				s.ends[m.Job.ID]++
				if _, ok := s.done[m.Job.ID]; !ok && m.Job.Status == "done" {
					s.done[m.Job.ID] = time.Now()
				}
			}
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() { conn.CloseNow(); <-s.ended })
	return s
}

// last is the largest eventSeq the socket saw.
func (s *socket) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(0, slicesMax(s.seqs))
}

// dones is how many jobs the socket saw done.
func (s *socket) dones() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

func slicesMax(v []int64) int64 {
	m := int64(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// receiver is a house's webhook endpoint: it answers 204 and counts each
// delivery by endpoint and webhook-id, keeping the job each is about.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string]map[string]int // endpoint path -> webhook-id -> deliveries
	job map[string]string         // webhook-id -> the job it tells of
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: map[string]map[string]int{}, job: map[string]string{}}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var m struct {
			Type string
			Data struct{ ID string }
		}
		_ = json.Unmarshal(b, &m)
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		if r.got[req.URL.Path] == nil {
			r.got[req.URL.Path] = map[string]int{}
		}
		r.got[req.URL.Path][id]++
		r.job[id] = m.Data.ID
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	r.srv.Config.ErrorLog = nil
	r.srv.TLS.MinVersion = tls.VersionTLS12
	t.Cleanup(r.srv.Close)
	return r
}

// jobsHeard are, for one endpoint path, the jobs it heard of and how many
// distinct messages told each.
func (r *receiver) jobsHeard(path string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for id := range r.got[path] {
		out[r.job[id]]++
	}
	return out
}

// scrape reads p's /metrics and returns its text.
func scrape(p *proc) (string, error) {
	req, _ := http.NewRequest("GET", p.base()+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer scrape")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return "", fmt.Errorf("/metrics: %d %s", res.StatusCode, b)
	}
	return string(b), err
}

// series sums the samples of the metric name (any labels) in a scrape.
func series(text, name string) float64 {
	var sum float64
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		f := strings.Fields(rest[strings.LastIndex(rest, "}")+1:])
		if len(f) > 0 {
			v, _ := strconv.ParseFloat(f[0], 64)
			sum += v
		}
	}
	return sum
}
