package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"studio/internal/dbtest"
	"studio/internal/sqlstore"
)

// TestLaneHoldsSurviveKills: an AI lane holds its price while its call
// runs. Calls to an endpoint that never answers are cut twice by SIGKILL,
// on each engine; after the restarts no hold is left pending, and the
// house's tokens add up: spendable + held + spent is what it was granted.
func TestLaneHoldsSurviveKills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	engines := map[string]func(t *testing.T) string{"sqlite": func(*testing.T) string { return "" }}
	if pg := os.Getenv("TEST_DATABASE_URL"); pg != "" {
		engines["postgres"] = func(t *testing.T) string { return dbtest.FreshSchema(t, pg) }
	}
	for name, dbURL := range engines {
		t.Run(name, func(t *testing.T) { laneKills(t, dbURL(t)) })
	}
}

func laneKills(t *testing.T, dbURL string) {
	// The AI endpoint: every call waits until its caller goes away.
	var asked atomic.Int64
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read whole, so a caller that goes away cancels r's context
		asked.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); hang.Close() })
	dir, addr := t.TempDir(), freeAddr(t)
	if dbURL == "" {
		dir = migratedData(t)
	}
	logs := &lockedWriter{w: new(bytes.Buffer)}
	env := []string{"DATABASE_URL=" + dbURL, "AI_BASE_URL=" + hang.URL, "AI_API_KEY=k", "AI_MODEL=m"}
	start := func() *exec.Cmd { return startChild(t, dir, addr, logs, env...) }
	base := "http://" + addr
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	// The lane calls wait for the kill, not for a client's timeout: a
	// caller that gave up would void its own hold, and on a starved
	// machine the balance is read more than 30 s after the calls began.
	hung := &http.Client{Timeout: 5 * time.Minute}
	send := func(c *http.Client, method, path string, body []byte, key string) (int, map[string]any) {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := c.Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	do := func(method, path string, body []byte, key string) (int, map[string]any) {
		return send(c, method, path, body, key)
	}
	child := start()
	do("POST", "/api/auth/sign-up/email", []byte(`{"name":"Lanes","email":"lanes@example.com","password":"a long password"}`), "")
	_, m := do("POST", "/api/keys", []byte(`{"name":"k"}`), "")
	key, _ := m["key"].(string)
	if key == "" {
		t.Fatalf("no key: %v\n%s", m, logs.String())
	}
	const calls = 15
	for round := range 2 {
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() {
				send(hung, "POST", "/api/toolkit/ai/prompt-enhancer", fmt.Appendf(nil, `{"prompt":"a linen coat, round %d call %d"}`, round, i), key)
			})
		}
		want := int64((round + 1) * calls)
		for deadline := time.Now().Add(60 * time.Second); asked.Load() < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the endpoint was asked %d times; want %d\n%s", round, asked.Load(), want, logs.String())
			}
		}
		if _, b := do("GET", "/api/toolkit/ai/billing/balance", nil, key); b == nil || b["held"].(float64) < calls {
			t.Fatalf("round %d: balance %v; want at least %d held by the calls in flight", round, b, calls)
		}
		if err := child.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = child.Wait()
		wg.Wait()
		child = start()
	}
	// The restarted process voids what the dead ones held, within a lease or two.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, b := do("GET", "/api/toolkit/ai/billing/balance", nil, key)
		if b != nil && b["held"] == float64(0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("holds still held after the restart: %v\n%s", b, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = child.Process.Signal(syscall.SIGTERM)
	_ = child.Wait()

	db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir, DatabaseURL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var house string
	var pending, voided, granted, spent int64
	_ = db.QueryTest(ctx, `SELECT id FROM organizations LIMIT 1`, &house)
	_ = db.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE state = 'pending'`, &pending)
	_ = db.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE state = 'voided'`, &voided)
	_ = db.QueryTest(ctx, `SELECT COALESCE(SUM(amount), 0) FROM ledger_credits WHERE organization_id = '`+house+`'`, &granted)
	_ = db.QueryTest(ctx, `SELECT COALESCE(SUM(tokens), 0) FROM ledger_holds WHERE state = 'posted' AND organization_id = '`+house+`'`, &spent)
	b, err := db.Balance(ctx, house)
	if err != nil {
		t.Fatal(err)
	}
	if pending != 0 || voided != 2*calls {
		t.Errorf("holds: %d pending, %d voided; want 0 and %d", pending, voided, 2*calls)
	}
	if b.Balance+b.Held+spent != granted {
		t.Errorf("spendable %d + held %d + spent %d = %d; granted %d", b.Balance, b.Held, spent, b.Balance+b.Held+spent, granted)
	}
	if err := db.CheckLedger(ctx, house); err != nil {
		t.Errorf("ledger audit after the kills: %v", err)
	}
}
