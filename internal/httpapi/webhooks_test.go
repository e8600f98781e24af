package httpapi_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/webhook"
)

// webhooksWalk is the webhooks area's part of the route walk (walk_test.go).
var webhooksWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/webhooks": static("/api/toolkit/webhooks", nil),
		"POST /api/toolkit/webhooks": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			makeRoom(t, a, u)
			return request{"/api/toolkit/webhooks", map[string]any{"url": a.Receiver.URL, "events": []string{"develop.done"}}}
		},
		"DELETE /api/toolkit/webhooks/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/webhooks/" + walkHook(t, a, u, true), nil}
		},
		"GET /api/toolkit/webhooks/{id}/deliveries": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/webhooks/" + walkHook(t, a, u, false) + "/deliveries", nil}
		},
		"POST /api/toolkit/webhooks/{id}/test": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/webhooks/" + walkHook(t, a, u, false) + "/test", nil}
		},
	},
	minRole: map[string]auth.Role{
		"GET /api/toolkit/webhooks":                 auth.Admin,
		"POST /api/toolkit/webhooks":                auth.Admin,
		"DELETE /api/toolkit/webhooks/{id}":         auth.Admin,
		"GET /api/toolkit/webhooks/{id}/deliveries": auth.Admin,
		"POST /api/toolkit/webhooks/{id}/test":      auth.Admin,
	},
}

// walkHook is an endpoint of u's house for the walk's samples, which run
// many times over and a house holds at most 20 endpoints: one already
// registered when there is one, else (or when fresh) a new one, after
// making room in a full house (the test's own fixture, written straight).
func walkHook(t *testing.T, a *apptest.App, u *apptest.User, fresh bool) string {
	t.Helper()
	var id string
	if !fresh {
		_ = a.DB.QueryTest(context.Background(), `SELECT COALESCE(MIN(id), '') FROM webhook_endpoints WHERE organization_id = '`+u.HouseID+`'`, &id)
		if id != "" {
			return id
		}
	}
	makeRoom(t, a, u)
	return registerHook(t, a, u, "develop.done").ID
}

// makeRoom empties u's house of endpoints when it is nearly full.
func makeRoom(t *testing.T, a *apptest.App, u *apptest.User) {
	t.Helper()
	var n int
	_ = a.DB.QueryTest(context.Background(), `SELECT COUNT(*) FROM webhook_endpoints WHERE organization_id = '`+u.HouseID+`'`, &n)
	if n >= webhook.MaxEndpoints-2 {
		if _, err := a.DB.RawExec(context.Background(), `DELETE FROM webhook_endpoints WHERE organization_id = ?`, u.HouseID); err != nil {
			t.Fatal(err)
		}
	}
}

// hook is a registration answer as tests read it.
type hook struct {
	ID, URL, Secret string
	Events          []string
	Active          bool
}

// registerHook registers the app's receiver for the events, as u.
func registerHook(t *testing.T, a *apptest.App, u *apptest.User, events ...string) hook {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/webhooks", u.Session(), map[string]any{"url": a.Receiver.URL, "events": events})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	var h hook
	res.JSON(t, &h)
	return h
}

type delivery struct {
	MessageID, Event, Status string
	Attempts                 int
	LastStatus               *int
	LastError                *string
	NextAttemptAt            *string
	DeliveredAt              *string
}

func deliveries(t *testing.T, a *apptest.App, u *apptest.User, id string) []delivery {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/webhooks/"+id+"/deliveries", u.Session(), nil)
	if res.Status != 200 {
		t.Fatalf("deliveries: %d %s", res.Status, res.Body)
	}
	var body struct{ Deliveries []delivery }
	res.JSON(t, &body)
	return body.Deliveries
}

// send runs the app's webhook sender until nothing is due and reports
// how many deliveries it attempted.
func send(t *testing.T, a *apptest.App) int {
	t.Helper()
	n := 0
	for {
		did, err := a.Hooks.One(context.Background())
		if err != nil {
			t.Fatalf("webhook sender: %v", err)
		}
		if !did {
			return n
		}
		n++
	}
}

// dueNow makes every pending retry due (the test's stand-in for waiting
// out the schedule, which TestRetrySchedule in internal/webhook measures).
func dueNow(t *testing.T, a *apptest.App) {
	t.Helper()
	if _, err := a.DB.RawExec(context.Background(), `UPDATE webhook_deliveries SET next_at = ? WHERE status = 'pending'`,
		time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
}

// message is a delivery as the receiver got it, checked with the official
// Standard Webhooks library.
type message struct {
	ID   string
	Type string
	Data map[string]any
}

func verified(t *testing.T, secret string, r apptest.Received) message {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(r.Body, r.Header); err != nil {
		t.Fatalf("the official library refuses the delivery: %v\n%s %s", err, r.Header, r.Body)
	}
	var m struct {
		Type      string
		Timestamp string
		Data      map[string]any
	}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, m.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", m.Timestamp, err)
	}
	if r.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(r.Header.Get("webhook-signature"), "v1,") {
		t.Errorf("headers %v", r.Header)
	}
	return message{ID: r.Header.Get("webhook-id"), Type: m.Type, Data: m.Data}
}

// TestWebhookStory is the story, as a house's developer lives it:
// register the local https receiver, develop a frame and receive
// develop.done verified by the official library; take the receiver down,
// develop again, bring it back and see the delivery land on a later
// attempt with the same webhook-id; delete an endpoint with a retry
// pending and see nothing arrive after; test messages, a redirect and a
// 410 that disables the endpoint.
func TestWebhookStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "hooks")
		member := a.Key(t, owner, "member")
		recv := a.Receiver

		res := a.Do(t, "POST", "/api/toolkit/webhooks", member, map[string]any{"url": recv.URL, "events": []string{"develop.done"}})
		want(t, res, 403, "FORBIDDEN")
		res = a.Do(t, "POST", "/api/toolkit/webhooks", owner.Session(), map[string]any{"url": recv.URL, "events": []string{"run.started"}})
		want(t, res, 400, "BAD_BODY")
		for url, reason := range map[string]string{
			"http://example.com/hook":           "not-https",
			"https://localhost/hook":            "internal-hostname",
			"https://printer.local/hook":        "internal-hostname",
			"https://api.cluster.svc/hook":      "internal-hostname",
			"https://intranet/hook":             "single-label",
			"https://10.1.2.3/hook":             "private-address",
			"https://[::ffff:10.0.0.1]/hook":    "private-address",
			"https://user:pw@example.com/hook":  "userinfo",
			"https://example.com/hook#fragment": "malformed",
		} {
			res := a.Do(t, "POST", "/api/toolkit/webhooks", owner.Session(), map[string]any{"url": url, "events": []string{"develop.done"}})
			want(t, res, 400, "BAD_URL")
			if got := res.Map(t)["reason"]; got != reason {
				t.Errorf("%s: reason %v; want %s", url, got, reason)
			}
		}

		h := registerHook(t, a, owner, "develop.done", "verdict.written")
		if !strings.HasPrefix(h.Secret, "whsec_") || !h.Active || len(h.Events) != 2 {
			t.Fatalf("registered %+v", h)
		}
		list := a.Do(t, "GET", "/api/toolkit/webhooks", owner.Session(), nil)
		if list.Status != 200 || strings.Contains(string(list.Body), "secret") || strings.Contains(string(list.Body), h.Secret) {
			t.Fatalf("list: %d %s; want the endpoint without its secret", list.Status, list.Body)
		}

		// A frame lands: develop.done arrives, signed.
		jobID := submitJob(t, a, owner.Session(), "upscale")
		develop(t, a)
		if n := send(t, a); n != 1 {
			t.Fatalf("%d deliveries sent; want 1", n)
		}
		got := recv.Received()
		if len(got) != 1 {
			t.Fatalf("the receiver got %d messages; want 1", len(got))
		}
		m := verified(t, h.Secret, got[0])
		if m.Type != "develop.done" || m.Data["id"] != jobID || m.Data["status"] != "done" || m.Data["resultAssetId"] == "" {
			t.Fatalf("message %+v; want develop.done of job %s, done, with its result", m, jobID)
		}
		ds := deliveries(t, a, owner, h.ID)
		if len(ds) != 1 || ds[0].MessageID != m.ID || ds[0].Status != "delivered" || ds[0].Attempts != 1 ||
			ds[0].LastStatus == nil || *ds[0].LastStatus != 200 || ds[0].DeliveredAt == nil {
			t.Fatalf("deliveries %+v", ds)
		}
		// The judge reads the frame: verdict.written arrives, signed, with the Verdict shape.
		judgeAll(t, a)
		if n := send(t, a); n != 1 {
			t.Fatalf("%d deliveries sent after the verdict; want 1", n)
		}
		got = recv.Received()
		if v := verified(t, h.Secret, got[1]); v.Type != "verdict.written" || v.Data["jobId"] != jobID || v.Data["rubricVersion"] != float64(1) ||
			v.Data["findings"] == nil || v.Data["note"] != nil {
			t.Fatalf("message %+v; want verdict.written of job %s in the Verdict shape", v, jobID)
		}

		// The receiver is down: the attempt fails and a retry is scheduled.
		recv.Down()
		submitJob(t, a, owner.Session(), "upscale")
		develop(t, a)
		sending := time.Now()
		send(t, a)
		sent := time.Now()
		ds = deliveries(t, a, owner, h.ID)
		if ds[0].Status != "pending" || ds[0].Attempts != 1 || ds[0].NextAttemptAt == nil || ds[0].LastError == nil {
			t.Fatalf("after a refused connection: %+v; want pending with a next attempt and the error", ds[0])
		}
		// About 5 s after the attempt, made between sending and sent (not
		// after now: a loaded machine may take seconds to get here).
		next, _ := time.Parse(time.RFC3339, *ds[0].NextAttemptAt)
		if next.Before(sending.Add(3*time.Second)) || next.After(sent.Add(6*time.Second)) {
			t.Errorf("the retry is due %s after the attempt began; want about 5 s", next.Sub(sending))
		}
		recv.Up(t)
		if n := send(t, a); n != 0 {
			t.Fatalf("a retry went out before it was due")
		}
		dueNow(t, a)
		send(t, a)
		got = recv.Received()
		if len(got) != 3 {
			t.Fatalf("the receiver got %d messages; want 3", len(got))
		}
		if m := verified(t, h.Secret, got[2]); m.ID != ds[0].MessageID || m.Type != "develop.done" {
			t.Fatalf("the retry carried %s %s; want webhook-id %s", m.ID, m.Type, ds[0].MessageID)
		}
		if d := deliveries(t, a, owner, h.ID)[0]; d.Status != "delivered" || d.Attempts != 2 || d.NextAttemptAt != nil {
			t.Fatalf("after the retry: %+v", d)
		}

		// Delete with a retry pending: nothing arrives after the answer.
		recv.Down()
		submitJob(t, a, owner.Session(), "upscale")
		develop(t, a)
		send(t, a)
		recv.Up(t)
		res = a.Do(t, "DELETE", "/api/toolkit/webhooks/"+h.ID, owner.Session(), nil)
		if res.Status != 200 || res.Map(t)["deleted"] != true || res.Map(t)["id"] != h.ID {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		dueNow(t, a)
		if n := send(t, a); n != 0 || len(recv.Received()) != 3 {
			t.Fatalf("after the delete %d deliveries went out, the receiver has %d; want none more", n, len(recv.Received()))
		}
		want(t, a.Do(t, "GET", "/api/toolkit/webhooks/"+h.ID+"/deliveries", owner.Session(), nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "DELETE", "/api/toolkit/webhooks/"+h.ID, owner.Session(), nil), 404, "NOT_FOUND")

		// Test messages: delivered, a redirect (never followed), then 410.
		h2 := registerHook(t, a, owner, "develop.done")
		test := func(wantStatus int, delivered bool) {
			t.Helper()
			res := a.Do(t, "POST", "/api/toolkit/webhooks/"+h2.ID+"/test", owner.Session(), nil)
			var out struct {
				MessageID string
				Delivered bool
				Status    *int
				Error     *string
			}
			res.JSON(t, &out)
			if res.Status != 200 || out.Delivered != delivered || out.Status == nil || *out.Status != wantStatus || (out.Error == nil) == !delivered {
				t.Fatalf("test: %d %s; want delivered %v with %d", res.Status, res.Body, delivered, wantStatus)
			}
			last := recv.Received()[len(recv.Received())-1]
			if m := verified(t, h2.Secret, last); m.Type != "webhook.test" || m.ID != out.MessageID {
				t.Fatalf("test message %+v; want webhook.test %s", m, out.MessageID)
			}
		}
		test(200, true)
		recv.Answer(http.StatusFound)
		test(302, false)
		recv.Answer(http.StatusGone)
		test(410, false)
		recv.Answer(http.StatusOK)
		var eps struct{ Endpoints []hook }
		a.Do(t, "GET", "/api/toolkit/webhooks", owner.Session(), nil).JSON(t, &eps)
		if len(eps.Endpoints) != 1 || eps.Endpoints[0].Active {
			t.Fatalf("endpoints %+v; want the one answered 410 inactive", eps.Endpoints)
		}
		before := len(recv.Received())
		submitJob(t, a, owner.Session(), "upscale")
		develop(t, a)
		if n := send(t, a); n != 0 || len(recv.Received()) != before {
			t.Fatalf("a disabled endpoint was sent %d deliveries", n)
		}
		if ds := deliveries(t, a, owner, h2.ID); len(ds) != 3 || ds[0].Event != "webhook.test" {
			t.Fatalf("deliveries of the tested endpoint %+v; want its three test messages", ds)
		}
	})
}

// countingListener accepts TCP connections on loopback and counts them.
func countingListener(t *testing.T, network, addr string) (port int, accepts *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepts = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepts
}

// TestWebhookNeverIntoPrivateSpace: registrations naming a loopback
// listener in every spelling, or private space, are refused; and an
// endpoint whose address turned private after registration (as DNS
// rebinding would) is refused inside the dialer at delivery. The
// listeners count zero accepts throughout.
func TestWebhookNeverIntoPrivateSpace(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "private")
	port, accepts := countingListener(t, "tcp4", "127.0.0.1:0")
	p := strconv.Itoa(port)
	vectors := map[string]string{
		"https://127.0.0.1:" + p + "/h":                  "private-address",
		"https://127.0.0.2:" + p + "/h":                  "private-address",
		"https://2130706433:" + p + "/h":                 "private-address",
		"https://0x7f000001:" + p + "/h":                 "private-address",
		"https://0x7f.1:" + p + "/h":                     "private-address",
		"https://0177.0.0.1:" + p + "/h":                 "private-address",
		"https://127.1:" + p + "/h":                      "private-address",
		"https://[::1]:" + p + "/h":                      "private-address",
		"https://[::ffff:127.0.0.1]:" + p + "/h":         "private-address",
		"https://[::ffff:7f00:1]:" + p + "/h":            "private-address",
		"https://[0:0:0:0:0:ffff:127.0.0.1]:" + p + "/h": "private-address",
		"https://[::127.0.0.1]:" + p + "/h":              "private-address",
		"https://[64:ff9b::7f00:1]:" + p + "/h":          "private-address",
		"https://[2002:7f00:1::]:" + p + "/h":            "private-address",
		"https://0.0.0.0:" + p + "/h":                    "private-address",
		"https://[::]:" + p + "/h":                       "private-address",
		"https://10.0.0.1:" + p + "/h":                   "private-address",
		"https://172.16.0.1:" + p + "/h":                 "private-address",
		"https://192.168.1.1:" + p + "/h":                "private-address",
		"https://169.254.169.254:" + p + "/h":            "private-address",
		"https://[fe80::1]:" + p + "/h":                  "private-address",
		"https://[fc00::1]:" + p + "/h":                  "private-address",
		"https://[fd12:3456::1]:" + p + "/h":             "private-address",
		"https://localhost:" + p + "/h":                  "internal-hostname",
		"https://api.localhost:" + p + "/h":              "internal-hostname",
		"https://metadata.internal:" + p + "/h":          "internal-hostname",
		"https://db.default.svc:" + p + "/h":             "internal-hostname",
		"https://nas.local:" + p + "/h":                  "internal-hostname",
		"https://intranet:" + p + "/h":                   "single-label",
		"http://127.0.0.1:" + p + "/h":                   "not-https",
	}
	for url, reason := range vectors {
		res := a.Do(t, "POST", "/api/toolkit/webhooks", owner.Session(), map[string]any{"url": url, "events": []string{"develop.done"}})
		if res.Status != 400 || res.Code != "BAD_URL" || res.Map(t)["reason"] != reason {
			t.Errorf("%s: %d %s; want BAD_URL %s", url, res.Status, res.Body, reason)
		}
	}
	t.Logf("%d registration vectors refused", len(vectors))

	// An endpoint registered while its name resolved publicly now points
	// at the listener: written straight into the registry.
	for i, url := range []string{"https://127.0.0.1:" + p + "/h", "https://[::ffff:127.0.0.1]:" + p + "/h"} {
		if _, err := a.DB.RawExec(context.Background(), `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret, created_at)
			VALUES (?, ?, ?, '["develop.done"]', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ?)`,
			"0190f3c0-0000-7000-8000-00000000000"+strconv.Itoa(i), owner.HouseID, url, time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	submitJob(t, a, owner.Session(), "upscale")
	develop(t, a)
	if n := send(t, a); n != 2 {
		t.Fatalf("%d attempts; want 2", n)
	}
	for i := range 2 {
		ds := deliveries(t, a, owner, "0190f3c0-0000-7000-8000-00000000000"+strconv.Itoa(i))
		if len(ds) != 1 || ds[0].Status != "pending" || ds[0].LastError == nil || !strings.Contains(*ds[0].LastError, "private-address") {
			t.Errorf("endpoint %d deliveries %+v; want a refused attempt", i, ds)
		}
	}
	if n := accepts.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections; want 0", n)
	}
}

// TestWebhookEndpointCap: a house registers at most 20 endpoints; the 21st
// is 400 TOO_MANY_ENDPOINTS with max and registers nothing; after a
// deletion there is room for one more.
func TestWebhookEndpointCap(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "capped")
		var first hook
		for i := range 20 {
			h := registerHook(t, a, owner, "develop.done")
			if i == 0 {
				first = h
			}
		}
		res := a.Do(t, "POST", "/api/toolkit/webhooks", owner.Session(), map[string]any{"url": a.Receiver.URL, "events": []string{"develop.done"}})
		want(t, res, 400, "TOO_MANY_ENDPOINTS")
		if res.Map(t)["max"] != float64(20) {
			t.Errorf("body %s; want max 20", res.Body)
		}
		var list struct{ Endpoints []hook }
		a.Do(t, "GET", "/api/toolkit/webhooks", owner.Session(), nil).JSON(t, &list)
		if len(list.Endpoints) != 20 {
			t.Errorf("%d endpoints registered; want 20", len(list.Endpoints))
		}
		want(t, a.Do(t, "DELETE", "/api/toolkit/webhooks/"+first.ID, owner.Session(), nil), 200, "")
		registerHook(t, a, owner, "verdict.written")
	})
}
