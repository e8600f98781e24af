package webhook_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/sqlstore"
	"studio/internal/ts"
	"studio/internal/urlguard"
	"studio/internal/webhook"
)

// receiver is a local https endpoint that verifies every request with the
// official Standard Webhooks library and answers what answer says for
// the n-th request (200 past the end). It closes each connection after
// answering, so no idle connection of the sender outlives an attempt (a
// synctest bubble's clock moves only when nothing waits on the network).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	url    string
	mu     sync.Mutex
	answer []int
	secret string
	got    []got
}

type got struct {
	id, event string
	signedAt  int64 // webhook-timestamp
	verified  bool
}

func newReceiver(t *testing.T, answer ...int) *receiver {
	r := &receiver{t: t, answer: answer}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		var msg struct{ Type string }
		_ = json.Unmarshal(body, &msg)
		g := got{id: req.Header.Get("webhook-id"), event: msg.Type}
		g.signedAt, _ = strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
		if wh, err := standardwebhooks.NewWebhook(r.secret); err == nil {
			// The library checks the timestamp against the real clock; the
			// signature is what it proves here, so verify as of signing.
			g.verified = wh.VerifyIgnoringTimestamp(body, req.Header) == nil
		}
		n := len(r.got)
		r.got = append(r.got, g)
		w.Header().Set("Connection", "close")
		if n < len(r.answer) {
			w.WriteHeader(r.answer[n])
		}
	}))
	r.url = r.srv.URL + "/hook"
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []got {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]got(nil), r.got...)
}

func (r *receiver) guard(t *testing.T) *urlguard.Guard {
	pool := x509.NewCertPool()
	pool.AddCert(r.srv.Certificate())
	return urlguard.New(urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(r.srv.Listener.Addr().String())),
		urlguard.WithRootCAs(pool))
}

// fixture is a house on a fresh SQLite store with one endpoint registered
// at the receiver.
type fixture struct {
	db       *sqlstore.DB
	owner    auth.Principal
	endpoint webhook.Created
}

func newFixture(t *testing.T, dir string, r *receiver, svc func(*sqlstore.DB) *webhook.Service) (*fixture, *webhook.Service) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := ts.Of(time.Now())
	u := account.User{ID: uuid.Must(uuid.NewV7()).String(), Name: "Wren", Email: "wren@example.com", CreatedAt: now}
	h := account.House{ID: uuid.Must(uuid.NewV7()).String(), Name: "Wren's house", Personal: true, FounderUserID: u.ID, CreatedAt: now}
	if err := db.CreateUser(ctx, u, "x", h, false); err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, owner: auth.Principal{UserID: u.ID, HouseID: h.ID, Role: auth.Owner, Cred: auth.CredSession}}
	s := svc(db)
	f.endpoint, err = s.Create(ctx, f.owner, webhook.CreateRequest{URL: r.url, Events: []string{webhook.DevelopDone}})
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.secret = f.endpoint.Secret
	r.mu.Unlock()
	return f, s
}

// enqueue writes an outbox row due now, as a settle's transaction does.
func (f *fixture) enqueue(t *testing.T) string {
	t.Helper()
	msg, err := webhook.NewMessage(webhook.DevelopDone, time.Now(), map[string]string{"id": "job"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	if _, err := f.db.RawExec(context.Background(), `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, message_id,
		event, body, status, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
		uuid.Must(uuid.NewV7()).String(), f.owner.HouseID, f.endpoint.ID, msg.ID, msg.Event, string(msg.Body), now, now); err != nil {
		t.Fatal(err)
	}
	return msg.ID
}

func (f *fixture) deliveries(t *testing.T, s *webhook.Service) []webhook.Delivery {
	t.Helper()
	ds, err := s.Deliveries(context.Background(), f.owner, f.endpoint.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestRetrySchedule: a delivery the endpoint keeps refusing is tried at
// once and then after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, each wait
// within a tenth of the schedule, every attempt with the same webhook-id
// and a signature the official library accepts; after the seventh it has
// failed and nothing more is sent. One that succeeds on the fourth try
// stops there. The clock is synctest's: 18 hours take no real time.
func TestRetrySchedule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   []int
		attempts int
		status   string
	}{
		{"always 503", []int{503, 503, 503, 503, 503, 503, 503, 503}, 7, webhook.Failed},
		{"fourth try lands", []int{500, 404, 301}, 4, webhook.Delivered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReceiver(t, tc.answer...) // outside the bubble: its listener waits on the network
			dir := migratedDir(t)
			synctest.Test(t, func(t *testing.T) {
				f, s := newFixture(t, dir, r, func(db *sqlstore.DB) *webhook.Service {
					return webhook.NewService(db, webhook.Options{Guard: r.guard(t), Poll: time.Hour, Concurrency: 2})
				})
				id := f.enqueue(t)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { _ = s.Run(ctx); close(done) }()
				time.Sleep(48 * time.Hour)
				cancel()
				<-done

				got := r.received()
				if len(got) != tc.attempts {
					t.Fatalf("%d attempts; want %d", len(got), tc.attempts)
				}
				for i, g := range got {
					if g.id != id || !g.verified || g.event != webhook.DevelopDone {
						t.Errorf("attempt %d: id %s (want %s), verified %v, event %q", i+1, g.id, id, g.verified, g.event)
					}
					if i == 0 {
						continue
					}
					gap := time.Duration(g.signedAt-got[i-1].signedAt) * time.Second
					want := webhook.Schedule[i-1]
					if lo, hi := time.Duration(float64(want)*0.9)-time.Second, time.Duration(float64(want)*1.1)+time.Second; gap < lo || gap > hi {
						t.Errorf("attempt %d came %s after the previous; want %s within a tenth", i+1, gap, want)
					}
				}
				ds := f.deliveries(t, s)
				if len(ds) != 1 || ds[0].Status != tc.status || ds[0].Attempts != tc.attempts || ds[0].NextAttemptAt != nil {
					t.Fatalf("deliveries %+v; want one %s after %d attempts, nothing next", ds, tc.status, tc.attempts)
				}
				if tc.status == webhook.Failed && (ds[0].LastStatus == nil || *ds[0].LastStatus != 503 || ds[0].LastError == nil) {
					t.Errorf("last status %v, error %v; want 503 and a sentence", ds[0].LastStatus, ds[0].LastError)
				}
				if tc.status == webhook.Delivered && (ds[0].DeliveredAt == nil || ds[0].LastError != nil) {
					t.Errorf("delivered at %v, error %v; want a time and no error", ds[0].DeliveredAt, ds[0].LastError)
				}
			})
		})
	}
}

// TestRetryAt: the schedule's waits, stretched by at most a tenth either
// way, and no retry after the seventh attempt.
func TestRetryAt(t *testing.T) {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for attempt := 1; attempt <= 6; attempt++ {
		want := webhook.Schedule[attempt-1]
		for _, u := range []float64{0, 0.5, 0.999} {
			at, ok := webhook.RetryAt(attempt, now, u)
			d := at.Sub(now)
			if !ok || d < want*9/10 || d > want*11/10 {
				t.Errorf("attempt %d, u %v: retry after %s (%v); want %s within a tenth", attempt, u, d, ok, want)
			}
		}
	}
	if _, ok := webhook.RetryAt(7, now, 0.5); ok {
		t.Error("a retry after the seventh attempt")
	}
	if webhook.MaxAttempts != 7 {
		t.Errorf("MaxAttempts %d; want 7", webhook.MaxAttempts)
	}
}

// TestSurvivesRestart: a delivery whose sender died mid-attempt (claimed,
// never recorded) is sent again by another process once the lease lapses,
// with the same webhook-id; and a queued delivery is still there after the
// store is closed and opened again.
func TestSurvivesRestart(t *testing.T) {
	r := newReceiver(t)
	dir := migratedDir(t)
	f, s := newFixture(t, dir, r, func(db *sqlstore.DB) *webhook.Service {
		return webhook.NewService(db, webhook.Options{Guard: r.guard(t)})
	})
	id := f.enqueue(t)
	// A sender claims the delivery and dies before it sends.
	now := time.Now()
	if _, ok, err := f.db.ClaimDelivery(context.Background(), "crashed", now, now.Add(time.Minute), webhook.PerHost); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if did, err := s.One(context.Background()); did || err != nil {
		t.Fatalf("a leased delivery was claimed again: %v %v", did, err)
	}
	f.db.Close()

	db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	later := webhook.NewService(db, webhook.Options{Guard: r.guard(t), Now: func() time.Time { return time.Now().Add(2 * time.Minute) }})
	if did, err := later.One(context.Background()); !did || err != nil {
		t.Fatalf("after the restart and the lease: %v %v", did, err)
	}
	if got := r.received(); len(got) != 1 || got[0].id != id || !got[0].verified {
		t.Fatalf("received %+v; want the message %s once, verified", got, id)
	}
	f.db = db
	if ds := f.deliveries(t, later); len(ds) != 1 || ds[0].Status != webhook.Delivered || ds[0].Attempts != 2 {
		t.Fatalf("deliveries %+v; want delivered on the second attempt", ds)
	}
}

// TestSendersNeverDouble: two processes' senders (four each) drain one
// outbox; every message arrives exactly once, and each delivery was
// claimed once. The count is taken once the store says every delivery is
// delivered, the senders have stopped and the receiver has finished every
// request it got, so a double cannot arrive after it.
func TestSendersNeverDouble(t *testing.T) {
	r := newReceiver(t)
	f, s1 := newFixture(t, migratedDir(t), r, func(db *sqlstore.DB) *webhook.Service {
		return webhook.NewService(db, webhook.Options{Guard: r.guard(t)})
	})
	s2 := webhook.NewService(f.db, webhook.Options{Guard: r.guard(t)})
	const n = 24
	want := map[string]bool{}
	for range n {
		want[f.enqueue(t)] = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s1.Run(ctx) })
	wg.Go(func() { _ = s2.Run(ctx) })
	delivered := func() (k int) {
		if err := f.db.QueryTest(context.Background(), `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'`, &k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	for deadline := time.Now().Add(30 * time.Second); delivered() < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()     // no sender is sending
	r.srv.Close() // and every request that reached the receiver has been answered
	seen := map[string]int{}
	for _, g := range r.received() {
		seen[g.id]++
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("message %s arrived %d times; want once", id, seen[id])
		}
	}
	if len(seen) != n {
		t.Errorf("%d messages arrived; want %d", len(seen), n)
	}
	var claimedTwice int
	if err := f.db.QueryTest(context.Background(), `SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'delivered' OR attempts <> 1`,
		&claimedTwice); err != nil || claimedTwice != 0 {
		t.Errorf("%d deliveries not delivered on their one attempt (%v)", claimedTwice, err)
	}
}

// TestCreateRequest: events are a non-empty subset of the two registrable
// ones (kept in a fixed order); an over-long URL or one with a fragment is
// BAD_URL malformed.
func TestCreateRequest(t *testing.T) {
	long := "https://example.com/" + string(make([]byte, webhook.MaxURL))
	for _, tc := range []struct {
		name   string
		in     webhook.CreateRequest
		code   string
		events []string
	}{
		{"both", webhook.CreateRequest{URL: "https://example.com/h", Events: []string{"verdict.written", "develop.done", "develop.done"}}, "",
			[]string{"develop.done", "verdict.written"}},
		{"one", webhook.CreateRequest{URL: "https://example.com/h", Events: []string{"verdict.written"}}, "", []string{"verdict.written"}},
		{"none", webhook.CreateRequest{URL: "https://example.com/h", Events: []string{}}, "BAD_BODY", nil},
		{"unknown", webhook.CreateRequest{URL: "https://example.com/h", Events: []string{"develop.done", "run.started"}}, "BAD_BODY", nil},
		{"test event", webhook.CreateRequest{URL: "https://example.com/h", Events: []string{"webhook.test"}}, "BAD_BODY", nil},
		{"long", webhook.CreateRequest{URL: long, Events: []string{"develop.done"}}, "BAD_URL", nil},
		{"fragment", webhook.CreateRequest{URL: "https://example.com/h#x", Events: []string{"develop.done"}}, "BAD_URL", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			err := in.Validate()
			e, _ := errs.As(err)
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.code != "" && (e == nil || e.Code != tc.code):
				t.Fatalf("got %v; want %s", err, tc.code)
			case tc.code == "BAD_URL" && urlguard.Reason(err) != urlguard.ReasonMalformed:
				t.Fatalf("reason %q; want malformed", urlguard.Reason(err))
			case tc.code == "" && !equal(in.Events, tc.events):
				t.Fatalf("events %v; want %v", in.Events, tc.events)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDeleteWaitsForTheSendInFlight: an endpoint deleted while a delivery
// to it is being sent answers only after that send ended, and the
// delivery is gone with it; nothing else of it is sent.
func TestDeleteWaitsForTheSendInFlight(t *testing.T) {
	r := newReceiver(t)
	entered, release := make(chan struct{}), make(chan struct{})
	inner := r.srv.Config.Handler
	r.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		entered <- struct{}{}
		<-release
		inner.ServeHTTP(w, req)
	})
	f, s := newFixture(t, migratedDir(t), r, func(db *sqlstore.DB) *webhook.Service {
		return webhook.NewService(db, webhook.Options{Guard: r.guard(t)})
	})
	f.enqueue(t)
	f.enqueue(t)
	sent := make(chan error, 1)
	go func() { _, err := s.One(context.Background()); sent <- err }()
	<-entered // the first delivery is on the wire

	deleted := make(chan error, 1)
	go func() { _, err := s.Delete(context.Background(), f.owner, f.endpoint.ID); deleted <- err }()
	for {
		if _, err := f.db.Endpoint(context.Background(), f.owner.HouseID, f.endpoint.ID); errors.Is(err, errs.NotFound) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-deleted:
		t.Fatalf("the delete answered (%v) while a send to the endpoint was in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if did, err := s.One(context.Background()); did || err != nil {
		t.Fatalf("after the delete a delivery was claimed: %v %v", did, err)
	}
	if got := r.received(); len(got) != 1 {
		t.Fatalf("the receiver got %d messages; want only the one in flight", len(got))
	}
	var left int
	if err := f.db.QueryTest(context.Background(), `SELECT COUNT(*) FROM webhook_deliveries`, &left); err != nil || left != 0 {
		t.Fatalf("%d deliveries left (%v); want none", left, err)
	}
}

// FuzzCreateRequest: whatever Validate accepts has one or both events, in
// order, and a URL of at most 2048 characters without a fragment.
func FuzzCreateRequest(f *testing.F) {
	f.Add("https://example.com/h", "develop.done", "verdict.written")
	f.Add("https://example.com/h#x", "develop.done", "")
	f.Add("", "", "webhook.test")
	f.Fuzz(func(t *testing.T, url, e1, e2 string) {
		in := webhook.CreateRequest{URL: url, Events: []string{e1, e2}}
		if e2 == "" {
			in.Events = in.Events[:1]
		}
		if in.Validate() != nil {
			return
		}
		if len(in.URL) > webhook.MaxURL || strings.Contains(in.URL, "#") && !strings.HasSuffix(in.URL, "#") {
			t.Fatalf("accepted URL %q", in.URL)
		}
		if len(in.Events) == 0 || len(in.Events) > 2 || (len(in.Events) == 2 && in.Events[0] != webhook.DevelopDone) {
			t.Fatalf("accepted events %v", in.Events)
		}
		for _, e := range in.Events {
			if e != webhook.DevelopDone && e != webhook.VerdictWritten {
				t.Fatalf("accepted event %q", e)
			}
		}
	})
}

// TestPerHostConcurrency: twelve endpoints of a house name one host; one
// event queues a delivery to each. Two processes' senders (eight each)
// drain the outbox, and the host never has more than PerHost requests
// open at once; every delivery arrives.
func TestPerHostConcurrency(t *testing.T) {
	var open, most, served atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := open.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(50 * time.Millisecond) // a slow receiver, so sends overlap when they can
		open.Add(-1)
		served.Add(1)
		w.Header().Set("Connection", "close")
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	guard := func() *urlguard.Guard {
		return urlguard.New(urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(srv.Listener.Addr().String())), urlguard.WithRootCAs(pool))
	}
	r := &receiver{t: t, url: srv.URL + "/0"}
	f, s1 := newFixture(t, migratedDir(t), r, func(db *sqlstore.DB) *webhook.Service {
		return webhook.NewService(db, webhook.Options{Guard: guard(), Concurrency: 8})
	})
	for i := 1; i < 12; i++ {
		if _, err := s1.Create(context.Background(), f.owner, webhook.CreateRequest{URL: srv.URL + "/" + strconv.Itoa(i), Events: []string{webhook.DevelopDone}}); err != nil {
			t.Fatal(err)
		}
	}
	s2 := webhook.NewService(f.db, webhook.Options{Guard: guard(), Concurrency: 8})
	eps, err := s1.List(context.Background(), f.owner)
	if err != nil || len(eps) != 12 {
		t.Fatalf("endpoints %d %v", len(eps), err)
	}
	msg, _ := webhook.NewMessage(webhook.DevelopDone, time.Now(), map[string]string{"id": "job"})
	for _, ep := range eps { // as a settle's transaction writes them: one message, a delivery per endpoint
		now := time.Now().UnixMilli()
		if _, err := f.db.RawExec(context.Background(), `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, message_id,
			event, body, status, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
			uuid.Must(uuid.NewV7()).String(), f.owner.HouseID, ep.ID, msg.ID, msg.Event, string(msg.Body), now, now); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s1.Run(ctx) })
	wg.Go(func() { _ = s2.Run(ctx) })
	for deadline := time.Now().Add(60 * time.Second); served.Load() < 12 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if served.Load() != 12 || most.Load() > webhook.PerHost || most.Load() < 1 {
		t.Errorf("served %d, at most %d at once; want 12, and at most %d at once", served.Load(), most.Load(), webhook.PerHost)
	}
}
