package httpapi_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/events"
)

// socketWalk is the socket area's part of the route walk (walk_test.go).
var socketWalk = walkArea{
	samples: map[string]sampleFunc{
		// A plain GET answers 426 UPGRADE_REQUIRED: the matrix counts that as admitted.
		"GET /api/toolkit/jobs/ws": static("/api/toolkit/jobs/ws", nil),
	},
}

const wait = 5 * time.Second

func jobMsg(id string, seq int64) []byte {
	return fmt.Appendf(nil, `{"type":"job","job":{"id":%q,"status":"done","eventSeq":%d}}`, id, seq)
}

// TestJobSocketHandshake: who may open the socket, and how it refuses.
func TestJobSocketHandshake(t *testing.T) {
	e := apptest.SQLite(t)
	const webOrigin = "https://app.studio.test"
	a := apptest.New(t, e, func(c *app.Config) { c.WebOrigin = webOrigin })
	owner := a.SignUp(t, "owner")
	key := a.Key(t, owner, "viewer")
	revoked := a.Key(t, owner, "member")
	revokeByKey(t, a, owner, revoked.Key)

	refused := []struct {
		name   string
		cred   apptest.Cred
		status int
		code   string
	}{
		{"anonymous", apptest.Anonymous, 401, "UNAUTHORIZED"},
		{"garbage key", apptest.Cred{Key: "fis_sk_nope"}, 401, "UNAUTHORIZED"},
		{"revoked key", revoked, 401, "UNAUTHORIZED"},
		{"cookie from another site", apptest.Cred{Cookie: owner.Cookie, Origin: "https://evil.example"}, 403, "BAD_ORIGIN"},
		{"cookie without Origin", apptest.Cred{Cookie: owner.Cookie, NoOrigin: true}, 403, "BAD_ORIGIN"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			s, res, err := a.TryDialJobs(t, tc.cred)
			if err == nil {
				s.Close()
				t.Fatal("the handshake succeeded")
			}
			if res.Status != tc.status || res.Code != tc.code {
				t.Errorf("got %d %s; want %d %s", res.Status, res.Body, tc.status, tc.code)
			}
		})
	}

	admitted := []struct {
		name string
		cred apptest.Cred
	}{
		{"key", key},
		{"cookie from the service's origin", owner.Session()},
		{"cookie from WEB_ORIGIN", apptest.Cred{Cookie: owner.Cookie, Origin: webOrigin}},
	}
	for _, tc := range admitted {
		t.Run(tc.name, func(t *testing.T) {
			s, res, err := a.TryDialJobs(t, tc.cred)
			if err != nil {
				t.Fatalf("refused: %v: %d %s", err, res.Status, res.Body)
			}
			if res.Status != http.StatusSwitchingProtocols {
				t.Errorf("status %d; want 101", res.Status)
			}
			s.Close()
		})
	}

	t.Run("key from any site", func(t *testing.T) {
		// A key is not ambient authority: the Origin does not matter.
		dialWithOrigin(t, a, key.Key, "https://evil.example").Close()
	})
	t.Run("plain GET", func(t *testing.T) {
		for _, c := range []apptest.Cred{key, owner.Session()} {
			res := a.Do(t, "GET", apptest.JobsSocketPath, c, nil)
			if res.Status != http.StatusUpgradeRequired || res.Code != "UPGRADE_REQUIRED" ||
				!strings.EqualFold(res.Header.Get("Upgrade"), "websocket") {
				t.Errorf("got %d %v %s; want 426 UPGRADE_REQUIRED with Upgrade: websocket", res.Status, res.Header, res.Body)
			}
		}
	})
	t.Run("unsupported version", func(t *testing.T) {
		req, _ := http.NewRequest("GET", a.URL+apptest.JobsSocketPath, nil)
		req.Header.Set("Authorization", "Bearer "+key.Key)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Sec-WebSocket-Version", "8")
		res := a.Send(t, req)
		if res.Status != http.StatusUpgradeRequired || res.Header.Get("Sec-WebSocket-Version") != "13" {
			t.Errorf("got %d %v; want 426 naming version 13", res.Status, res.Header)
		}
	})
}

// dialWithOrigin opens the socket with a key and an Origin header.
func dialWithOrigin(t *testing.T, a *apptest.App, key, origin string) *apptest.Socket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h := http.Header{"Authorization": {"Bearer " + key}, "Origin": {origin}}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.URL, "http")+apptest.JobsSocketPath, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("key with Origin %s: %v", origin, err)
	}
	return apptest.NewSocket(conn)
}

// TestJobSocketDelivers: a message published for house A reaches every
// socket of A, by key and by cookie, byte for byte, and never B's.
func TestJobSocketDelivers(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		byKey := a.DialJobs(t, a.Key(t, houseA, "viewer"))
		byCookie := a.DialJobs(t, houseA.Session())
		other := a.DialJobs(t, a.Key(t, houseB, "member"))

		msgA, msgB := jobMsg("job-a", 1), jobMsg("job-b", 1)
		a.Events.Publish(houseA.HouseID, 1, msgA)
		a.Events.Publish(houseB.HouseID, 1, msgB)
		for i := int64(2); i <= 20; i++ {
			a.Events.Publish(houseA.HouseID, i, jobMsg("job-a", i))
		}
		for name, s := range map[string]*apptest.Socket{"key": byKey, "cookie": byCookie} {
			got := s.Collect(t, 20, wait)
			if string(got[0]) != string(msgA) {
				t.Errorf("%s socket: got %s; want %s", name, got[0], msgA)
			}
			for i, m := range got {
				var body struct {
					Type string
					Job  struct {
						ID       string
						EventSeq int64
					}
				}
				if err := json.Unmarshal(m, &body); err != nil || body.Type != "job" || body.Job.ID != "job-a" || body.Job.EventSeq != int64(i+1) {
					t.Errorf("%s socket: message %d is %s", name, i, m)
				}
			}
		}
		if got := other.Next(t, wait); string(got) != string(msgB) {
			t.Errorf("house B got %s; want its own %s", got, msgB)
		}
		other.Quiet(t, 100*time.Millisecond)
	})
}

// TestJobSocketLaggingDropped: a client that stops reading is dropped
// once its queue fills; Publish never waits for it and a client that
// reads receives every message.
func TestJobSocketLaggingDropped(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	// A Publish that waited for the stalled client would wait for its
	// blocked write to time out (writeTimeout); one that does not takes
	// microseconds. The bound sits at half the timeout, room for -race on
	// a loaded machine.
	const writeTimeout = 2 * time.Second
	a.Server.SetSocketTimings(0, 0, writeTimeout)
	owner := a.SignUp(t, "owner")
	key := a.Key(t, owner, "viewer")
	reader := a.DialJobs(t, key)
	dialStalled(t, a, key.Key)
	if n := a.Events.Subscribers(); n != 2 {
		t.Fatalf("%d subscribers; want 2", n)
	}

	big := []byte(`{"type":"job","job":{"error":"` + strings.Repeat("x", 64<<10) + `"}}`)
	var slowest time.Duration
	sent := 0
	for ; a.Events.Subscribers() == 2; sent++ {
		if sent == 2000 {
			t.Fatal("the stalled client was never dropped")
		}
		start := time.Now()
		a.Events.Publish(owner.HouseID, int64(sent), big)
		slowest = max(slowest, time.Since(start))
		if got := reader.Next(t, wait); len(got) != len(big) {
			t.Fatalf("message %d: %d bytes", sent, len(got))
		}
	}
	t.Logf("stalled client dropped after %d messages of 64 KiB; slowest Publish %v", sent, slowest)
	if slowest > writeTimeout/2 {
		t.Errorf("a Publish took %v: it waited for a subscriber", slowest)
	}
	a.Events.Publish(owner.HouseID, int64(sent), jobMsg("after", int64(sent)))
	if got := reader.Next(t, wait); !strings.Contains(string(got), `"after"`) {
		t.Errorf("the reading client got %.80s after the drop", got)
	}
	// The server gives up on the stalled connection: its stream ends when
	// the blocked write times out, leaving the reader's.
	deadline := time.Now().Add(30 * time.Second)
	for streams() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still run; want 1", streams())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streams counts the goroutines serving a job socket in this process.
func streams() int {
	buf := make([]byte, 8<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "studio/internal/events.Stream(")
}

// dialStalled performs a WebSocket handshake on a raw connection with a
// tiny receive buffer and never reads the stream afterwards.
func dialStalled(t *testing.T, a *apptest.App, key string) net.Conn {
	t.Helper()
	host := strings.TrimPrefix(a.URL, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n",
		apptest.JobsSocketPath, host, key)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		t.Fatalf("handshake: %q %v", status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			return c
		}
	}
}

// TestJobSocketShutdown: closing the broker (what App.Close and
// App.Serve's shutdown do) ends every socket with 1001 "shutdown", and the
// sockets' goroutines are gone afterwards.
func TestJobSocketShutdown(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	owner := a.SignUp(t, "owner")
	key := a.Key(t, owner, "viewer")
	a.Do(t, "GET", "/health", apptest.Anonymous, nil)
	baseline := runtime.NumGoroutine()

	var socks []*apptest.Socket
	for range 5 {
		socks = append(socks, a.DialJobs(t, key), a.DialJobs(t, owner.Session()))
	}
	a.Events.Close()
	for i, s := range socks {
		if code, reason := s.Closed(t, wait); code != websocket.StatusGoingAway || reason != events.ReasonShutdown {
			t.Errorf("socket %d closed %d %q; want 1001 shutdown", i, code, reason)
		}
	}
	// A handshake during shutdown is accepted and closed at once.
	late := a.DialJobs(t, key)
	if code, reason := late.Closed(t, wait); code != websocket.StatusGoingAway || reason != events.ReasonShutdown {
		t.Errorf("late socket closed %d %q; want 1001 shutdown", code, reason)
	}
	waitGoroutines(t, baseline)
}

// waitGoroutines fails the test unless the goroutine count falls back to
// at most baseline.
func waitGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines; want at most %d\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestJobSocketRevocation: the credential is checked again while the
// socket is open: a revoked key or an ended session closes it with 1008
// "revoked"; a session that switched house closes it with 1013 "reauth".
func TestJobSocketRevocation(t *testing.T) {
	e := apptest.SQLite(t)
	a := apptest.New(t, e)
	a.Server.SetSocketTimings(0, 20*time.Millisecond, 0)
	owner := a.SignUp(t, "owner")
	guest := a.SignUp(t, "guest")
	if err := a.DB.AddSeat(context.Background(), owner.HouseID, guest.ID, auth.Viewer); err != nil {
		t.Fatal(err)
	}

	t.Run("key revoked", func(t *testing.T) {
		key := a.Key(t, owner, "viewer")
		s := a.DialJobs(t, key)
		s.Quiet(t, 100*time.Millisecond) // several checks pass
		revokeByKey(t, a, owner, key.Key)
		if code, reason := s.Closed(t, wait); code != websocket.StatusPolicyViolation || reason != events.ReasonRevoked {
			t.Errorf("closed %d %q; want 1008 revoked", code, reason)
		}
	})
	t.Run("signed out", func(t *testing.T) {
		c := signIn(t, a, owner)
		s := a.DialJobs(t, c)
		if res := a.Do(t, "POST", "/api/auth/sign-out", c, nil); res.Status != 200 {
			t.Fatalf("sign-out: %d %s", res.Status, res.Body)
		}
		if code, reason := s.Closed(t, wait); code != websocket.StatusPolicyViolation || reason != events.ReasonRevoked {
			t.Errorf("closed %d %q; want 1008 revoked", code, reason)
		}
	})
	t.Run("house switched", func(t *testing.T) {
		c := signIn(t, a, guest)
		s := a.DialJobs(t, c)
		if res := a.Do(t, "POST", "/api/auth/organization/set-active", c, map[string]string{"organizationId": owner.HouseID}); res.Status != 200 {
			t.Fatalf("set-active: %d %s", res.Status, res.Body)
		}
		if code, reason := s.Closed(t, wait); code != websocket.StatusTryAgainLater || reason != events.ReasonReauth {
			t.Errorf("closed %d %q; want 1013 reauth", code, reason)
		}
		// Reconnecting follows the session into the owner's house.
		again := a.DialJobs(t, c)
		a.Events.Publish(owner.HouseID, 1, jobMsg("in-owner-house", 1))
		if got := again.Next(t, wait); !strings.Contains(string(got), "in-owner-house") {
			t.Errorf("got %s", got)
		}
	})
}

// TestJobSocketTwoInstances: two servers on one PostgreSQL database. A
// message notified in a transaction committed on one reaches the sockets of
// both exactly once, the notifying instance's through its own LISTEN.
func TestJobSocketTwoInstances(t *testing.T) {
	engines := apptest.Engines(t)
	if len(engines) < 2 {
		t.Skip("TEST_DATABASE_URL is not set")
	}
	e := engines[1]
	one, two := apptest.New(t, e), apptest.New(t, e)
	owner := one.SignUp(t, "owner")
	key := one.Key(t, owner, "viewer")
	onOne, onTwo := one.DialJobs(t, key), two.DialJobs(t, key)

	db, err := sql.Open("pgx", e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for seq := int64(1); seq <= 3; seq++ {
		msg := jobMsg("job", seq)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := one.Relay.Notify(ctx, tx, owner.HouseID, seq, msg); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]*apptest.Socket{"publishing instance": onOne, "other instance": onTwo} {
		got := s.Collect(t, 3, wait)
		for i, m := range got {
			if want := jobMsg("job", int64(i+1)); string(m) != string(want) {
				t.Errorf("%s: message %d is %s; want %s", name, i, m, want)
			}
		}
		s.Quiet(t, 300*time.Millisecond) // exactly once
	}
}
