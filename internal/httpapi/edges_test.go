package httpapi_test

import (
	"context"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/httpapi"
)

// TestStalledBodiesTimeOut walks every route that reads a body (and MCP),
// on every engine: a client that sends the headers and part of the body,
// then nothing, is answered 408 REQUEST_TIMEOUT once the body deadline
// passes, and nothing the routes make was made (DECISIONS §11).
func TestStalledBodiesTimeOut(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) {
			c.Guard.BodyTimeout, c.Guard.UploadTimeout = 300*time.Millisecond, 300*time.Millisecond
			c.BridgeSecret, c.DripSecret = "bridge-secret", "drip-secret"
			c.AnalystToken, c.AnalystActionToken = "analyst-token", "analyst-action-token"
		})
		owner := a.SignUp(t, "owner")
		admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		ownerSession, adminSession := signIn(t, a, owner), signIn(t, a, admin)
		type stalled struct {
			pattern, method, path string
			cred                  apptest.Cred
			ctype                 string
			header                http.Header
			prefix                string
		}
		var reqs []stalled
		for _, rt := range a.Server.Routes() {
			if rt.In == nil && rt.Pattern() != "POST /api/mcp" {
				continue
			}
			s := stalled{pattern: rt.Pattern(), method: rt.Method, ctype: "application/json", prefix: `{"name":`, header: http.Header{}}
			if _, ok := rt.In.(httpapi.Multipart); ok {
				s.ctype, s.prefix = "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"tool\"\r\n\r\nups"
			}
			s.path = samples[rt.Pattern()](t, a, owner).path
			switch rt.Class {
			case httpapi.KeyOrSession, httpapi.SessionOnly:
				s.cred = ownerSession
			case httpapi.PlatformAdmin:
				s.cred = adminSession
			case httpapi.Analyst:
				s.header.Set("Authorization", "Bearer analyst-token")
			case httpapi.AnalystAction:
				s.header.Set("Authorization", "Bearer analyst-action-token")
			case httpapi.SharedSecret:
				s.header.Set("Authorization", "Bearer drip-secret")
				s.header.Set("x-support-bridge-secret", "bridge-secret")
			}
			reqs = append(reqs, s)
		}
		before := countMade(t, a)
		var wg sync.WaitGroup
		for _, s := range reqs {
			wg.Go(func() {
				res := a.Stalled(t, s.method, s.path, s.cred, s.ctype, s.header, []byte(s.prefix))
				if res.Status != http.StatusRequestTimeout || res.Code != "REQUEST_TIMEOUT" {
					t.Errorf("%s: %d %s; want 408 REQUEST_TIMEOUT", s.pattern, res.Status, res.Body)
				}
			})
		}
		wg.Wait()
		if after := countMade(t, a); !maps.Equal(after, before) {
			t.Errorf("rows before the stalled requests %v, after %v; want nothing made", before, after)
		}
		if len(reqs) < 80 {
			t.Errorf("only %d routes read a body", len(reqs))
		}
	})
}

// countMade counts the rows the body-reading routes make.
func countMade(t *testing.T, a *apptest.App) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"assets", "jobs", "ledger_holds", "posts", "shares", "webhook_endpoints", "folders",
		"support_tickets", "api_keys", "looks", "chat_sessions", "invitations"} {
		var n int
		if err := a.DB.QueryTest(context.Background(), `SELECT COUNT(*) FROM `+table, &n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// TestMCPRefusesNotUTF8: an MCP message with bytes that are not UTF-8 is
// 400 BAD_BODY before it is read as JSON-RPC, as every JSON route's body is;
// nothing it names is made.
func TestMCPRefusesNotUTF8(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		key := a.Key(t, a.SignUp(t, "owner"), "member")
		body := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_look\",\"arguments\":{\"name\":\"a\xffb\"}}}"
		res := a.Do(t, "POST", "/api/mcp", key, body)
		if res.Status != http.StatusBadRequest || res.Code != "BAD_BODY" {
			t.Fatalf("got %d %s; want 400 BAD_BODY", res.Status, res.Body)
		}
		var looks int
		_ = a.DB.QueryTest(context.Background(), `SELECT COUNT(*) FROM looks`, &looks)
		if looks != 0 {
			t.Errorf("%d looks made", looks)
		}
	})
}
