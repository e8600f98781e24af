package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"studio/internal/account"
	"studio/internal/apispec"
	"studio/internal/app"
	"studio/internal/asynclog"
	"studio/internal/httpapi"
	"studio/internal/httpguard"
)

// BillingSecret is the webhook secret the test apps' payment provider
// signs its deliveries with.
const BillingSecret = "whsec_dGVzdC1iaWxsaW5nLXNlY3JldC1vZi10aGUtc3R1ZGlvIQ=="

// App is the real service on an httptest server.
type App struct {
	*app.App
	URL      string
	Engine   Engine
	Receiver *Receiver // a local https webhook receiver the app's webhook guard admits
	Outbox   *Outbox   // the letters delivered, links whole
	client   *http.Client
	valid    *apispec.ResponseValidator
}

// Cheap password hashing keeps sign-ups fast under -race; production uses OWASP.
var testHash = account.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// New starts the service on engine e. Adjust, when given, edits the
// configuration before the service is built.
func New(t testing.TB, e Engine, adjust ...func(*app.Config)) *App {
	t.Helper()
	return NewWith(t, e, nil, adjust...)
}

// NewWith is New with the app's options edited too (a test's URL guard).
func NewWith(t testing.TB, e Engine, options func(*app.Options), adjust ...func(*app.Config)) *App {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().(*net.TCPAddr).String()
	cfg, err := app.Load(func(k string) string {
		switch k {
		case "STUDIO_PUBLIC_URL":
			return base
		case "STUDIO_DATA_DIR":
			return e.DataDir
		case "DATABASE_URL":
			return e.DatabaseURL
		case "STUDIO_ADMIN_EMAILS":
			return "admin@studio.test"
		case "BILLING_PROVIDER": // the built-in test provider; a test sets "" to see money refused
			return "local"
		case "BILLING_WEBHOOK_SECRET":
			return BillingSecret
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range adjust {
		f(&cfg)
	}
	log := slog.New(asynclog.NewHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(asynclog.NewHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	recv := NewReceiver(t)
	box := &Outbox{}
	opts := app.Options{Hash: testHash, WebhookGuard: recv.Guard(t), MailTap: box.add, LocalEngine: memoised}
	if options != nil {
		options(&opts)
	}
	a, err := app.New(context.Background(), cfg, log, opts)
	if err != nil {
		t.Fatalf("app on %s: %v", e.Name, err)
	}
	srv.Config.Handler = a.Handler
	// The server's deadlines as production has them (httpguard), without
	// the per-client cap: every test client is one loopback address.
	gopts := cfg.Guard
	gopts.Log, gopts.MaxPerClient = log, -1
	_, srv.Listener = httpguard.Apply(srv.Config, srv.Listener, gopts)
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	doc, err := a.Server.OpenAPI()
	if err != nil {
		t.Fatalf("openapi: %v", err)
	}
	v, err := validatorFor(doc)
	if err != nil {
		t.Fatalf("openapi validator: %v", err)
	}
	return &App{App: a, URL: base, Engine: e, Receiver: recv, Outbox: box, client: srv.Client(), valid: v}
}

// validators keeps one response validator per OpenAPI document: every app
// of a test binary serves the same one, and loading it costs a third of a
// second under the race detector. A validator is only read once built.
var validators sync.Map // document -> *apispec.ResponseValidator

func validatorFor(doc []byte) (*apispec.ResponseValidator, error) {
	if v, ok := validators.Load(string(doc)); ok {
		return v.(*apispec.ResponseValidator), nil
	}
	v, err := apispec.NewResponseValidator(doc)
	if err != nil {
		return nil, err
	}
	got, _ := validators.LoadOrStore(string(doc), v)
	return got.(*apispec.ResponseValidator), nil
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// Cred is how a request authenticates: a session cookie, an API key, or
// nothing. Session requests carry the service's Origin unless NoOrigin.
type Cred struct {
	Cookie   string
	Key      string
	Origin   string // overrides the Origin sent with a session
	NoOrigin bool
}

// Signed is a body sent as is with its own headers: a provider's signed
// delivery.
type Signed struct {
	Body   []byte
	Header http.Header
}

// Anonymous sends no credential.
var Anonymous = Cred{}

// Resp is a recorded answer.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
	Code   string // the error code of an error body
}

// JSON decodes the body into v.
func (r Resp) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r Resp) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request. body is nil, a string or []byte sent as is, or a
// value encoded as JSON. Every answer is checked against the OpenAPI
// document and recorded for the documented-codes check.
func (a *App) Do(t testing.TB, method, path string, c Cred, body any) Resp {
	t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/json"
	case Form:
		rd, ctype = bytes.NewReader(b.Body), b.ContentType
	case Signed:
		rd, ctype = bytes.NewReader(b.Body), "application/json"
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd, ctype = bytes.NewReader(enc), "application/json"
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if sb, ok := body.(Signed); ok {
		for k, v := range sb.Header {
			req.Header[k] = v
		}
	}
	a.authorize(req, c)
	return a.Send(t, req)
}

func (a *App) authorize(req *http.Request, c Cred) {
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if c.Cookie != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: c.Cookie})
		if !c.NoOrigin {
			o := c.Origin
			if o == "" {
				o = a.URL
			}
			req.Header.Set("Origin", o)
		}
	}
}

// Send sends a prepared request, validates and records the answer.
func (a *App) Send(t testing.TB, req *http.Request) Resp {
	t.Helper()
	res, err := a.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := Resp{Status: res.StatusCode, Header: res.Header, Body: b}
	if res.StatusCode >= 400 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == "" || e.Message == "" {
			t.Errorf("%s %s: error body without error and message: %s", req.Method, req.URL.Path, b)
		}
		r.Code = e.Error
	}
	if pattern := a.Server.Match(req); pattern != "" {
		record(pattern, r.Status, r.Code)
		_, path, _ := strings.Cut(pattern, " ")
		if err := a.valid.Validate(req.Method, path, r.Status, r.Header, b); err != nil {
			t.Errorf("%s %s: answer %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL.Path, r.Status, err, b)
		}
	}
	return r
}

// seen records which (route, status, code) answers the tests observed, so
// a test can check every documented code was exercised.
var seen = struct {
	sync.Mutex
	m map[string]map[string]bool
}{m: map[string]map[string]bool{}}

func record(pattern string, status int, code string) {
	seen.Lock()
	defer seen.Unlock()
	if seen.m[pattern] == nil {
		seen.m[pattern] = map[string]bool{}
	}
	if code == "" {
		code = http.StatusText(status)
	}
	seen.m[pattern][code] = true
}

// Seen reports whether a test observed the code on the route.
func Seen(pattern, code string) bool {
	seen.Lock()
	defer seen.Unlock()
	return seen.m[pattern][code]
}

// SeenLines lists every (route, code) the tests of this process observed,
// one "pattern<TAB>code" line each, so that a package's tests run in
// shards (scripts/test.sh) can pool what each shard saw.
func SeenLines() []string {
	seen.Lock()
	defer seen.Unlock()
	var out []string
	for pattern, codes := range seen.m {
		for code := range codes {
			out = append(out, pattern+"\t"+code)
		}
	}
	slices.Sort(out)
	return out
}

// MarkSeen records lines written by SeenLines in another process.
func MarkSeen(lines []string) {
	seen.Lock()
	defer seen.Unlock()
	for _, l := range lines {
		pattern, code, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		if seen.m[pattern] == nil {
			seen.m[pattern] = map[string]bool{}
		}
		seen.m[pattern][code] = true
	}
}

// Stalled sends a request whose body starts with prefix and then stops
// arriving (a slow or stalled client): the client keeps the body open until
// the answer comes. ctype is the body's type; header adds headers (a
// shared secret). The answer is validated and recorded as Send's are.
func (a *App) Stalled(t testing.TB, method, path string, c Cred, ctype string, header http.Header, prefix []byte) Resp {
	t.Helper()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write(prefix) }()
	req, err := http.NewRequest(method, a.URL+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(prefix)) + 4096
	req.Header.Set("Content-Type", ctype)
	for k, v := range header {
		req.Header[k] = v
	}
	a.authorize(req, c)
	return a.Send(t, req)
}
