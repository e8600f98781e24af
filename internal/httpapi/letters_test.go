package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/ops"
	"studio/internal/webhook/sign"
)

// lettersWalk is the letters' part of the route walk. The walk's app has
// neither a drip secret nor a webhook secret: both routes answer 503.
var lettersWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/email/drip": static("/api/toolkit/email/drip",
			map[string]string{"template": "drip-day3", "email": "ada@example.com", "dedupeKey": "walk"}),
		"POST /api/toolkit/email/webhook/resend": static("/api/toolkit/email/webhook/resend",
			map[string]any{"type": "email.delivered", "data": map[string]string{"email_id": "x"}}),
	},
	unconfigured: map[string]string{
		"POST /api/toolkit/email/drip":           "DRIP_NOT_CONFIGURED",
		"POST /api/toolkit/email/webhook/resend": "EMAIL_WEBHOOK_NOT_CONFIGURED",
	},
}

// resendStandIn speaks Resend's POST /emails as documented: a bearer API
// key, {from, to[], subject, html?, text?}, 200 {id}; 401 and 422 error
// objects {statusCode, name, message} otherwise.
type resendStandIn struct {
	*httptest.Server
	mu   sync.Mutex
	sent []map[string]any
}

func newResend(t *testing.T, key string) *resendStandIn {
	r := &resendStandIn{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fail := func(status int, name, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"statusCode": status, "name": name, "message": msg})
		}
		if req.Method != "POST" || req.URL.Path != "/emails" {
			fail(404, "not_found", "The requested endpoint does not exist.")
			return
		}
		if req.Header.Get("Authorization") != "Bearer "+key {
			fail(401, "missing_api_key", "Missing API key in the authorization header.")
			return
		}
		var body map[string]any
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			fail(422, "validation_error", "The body is not JSON.")
			return
		}
		to, _ := body["to"].([]any)
		if body["from"] == nil || len(to) == 0 || body["subject"] == nil || (body["html"] == nil && body["text"] == nil) {
			fail(422, "missing_required_field", "from, to, subject and html or text are required.")
			return
		}
		r.mu.Lock()
		r.sent = append(r.sent, body)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": uuid.NewString()})
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *resendStandIn) letters() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.sent...)
}

func TestLetters(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		provider := newResend(t, "re_test")
		secret := sign.NewSecret()
		a := apptest.New(t, e, func(c *app.Config) {
			c.ResendAPIKey, c.ResendURL, c.ResendFrom = "re_test", provider.URL, "Studio <studio@example.com>"
			c.DripSecret, c.EmailHook = "drip-secret", secret
		})
		ctx := context.Background()

		// Sign-up's verification letter goes through Resend, text and HTML, archived with its id.
		u := a.SignUp(t, "ada")
		logged, err := a.DB.Emails(ctx, u.Email)
		if err != nil || len(logged) != 1 || logged[0].ProviderID == "" || logged[0].Status != "sent" || !strings.Contains(logged[0].HTML, "<a href=") {
			t.Fatalf("verification letter: %+v %v", logged, err)
		}
		if got := provider.letters(); len(got) != 1 || got[0]["text"] == nil || got[0]["html"] == nil || got[0]["from"] != "Studio <studio@example.com>" {
			t.Fatalf("Resend heard %v", got)
		}

		drip := func(auth string, body any) apptest.Resp {
			var raw []byte
			if s, ok := body.(string); ok {
				raw = []byte(s)
			} else {
				raw = jsonBytes(t, body)
			}
			req, _ := http.NewRequest("POST", a.URL+"/api/toolkit/email/drip", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			return a.Send(t, req)
		}
		letter := map[string]string{"template": "look-waiting", "email": "grace@example.com", "dedupeKey": "look-1", "name": "Grace"}
		for name, tc := range map[string]struct {
			auth   string
			body   any
			status int
			code   string
		}{
			"no bearer":      {"", letter, 401, "UNAUTHORIZED"},
			"a wrong bearer": {"Bearer drip-secreT", letter, 401, "UNAUTHORIZED"},
			"not a bearer":   {"drip-secret", letter, 401, "UNAUTHORIZED"},
			"a bad template": {"Bearer drip-secret", map[string]string{"template": "x", "email": "g@example.com", "dedupeKey": "k"}, 400, "BAD_REQUEST"},
			"broken json":    {"Bearer drip-secret", "{", 400, "BAD_JSON"},
			"not an object":  {"Bearer drip-secret", "[]", 400, "BAD_BODY"},
			"too large":      {"Bearer drip-secret", `{"x":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "BODY_TOO_LARGE"},
		} {
			if res := drip(tc.auth, tc.body); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("drip %s: %d %s; want %d %s", name, res.Status, res.Body, tc.status, tc.code)
			}
		}
		first := drip("Bearer drip-secret", letter)
		if first.Status != 200 || first.Map(t)["sent"] != true || first.Map(t)["status"] != "sent" {
			t.Fatalf("drip: %d %s", first.Status, first.Body)
		}
		again := drip("Bearer drip-secret", letter)
		if again.Status != 200 || again.Map(t)["sent"] != false || again.Map(t)["reason"] != "ALREADY_SENT" {
			t.Fatalf("drip again: %d %s", again.Status, again.Body)
		}
		if n := len(provider.letters()); n != 2 {
			t.Fatalf("Resend heard %d letters; want 2 (verification, one drip)", n)
		}
		drips, _ := a.DB.Emails(ctx, "grace@example.com")
		if len(drips) != 1 || drips[0].Template != "look-waiting" || !strings.Contains(drips[0].Text, "Hello Grace") || !strings.Contains(drips[0].HTML, "Hello Grace") {
			t.Fatalf("drip log = %+v", drips)
		}
		providerID := drips[0].ProviderID

		// The delivery webhook.
		hook := func(id string, body string, headers func(http.Header)) apptest.Resp {
			key, _ := sign.ParseSecret(secret)
			req, _ := http.NewRequest("POST", a.URL+"/api/toolkit/email/webhook/resend", strings.NewReader(body))
			for k, v := range key.Headers(id, time.Now(), []byte(body)) {
				req.Header[k] = v
			}
			req.Header.Set("Content-Type", "application/json")
			if headers != nil {
				headers(req.Header)
			}
			return a.Send(t, req)
		}
		ev := func(typ, emailID string) string {
			return string(jsonBytes(t, map[string]any{"type": typ, "created_at": time.Now().UTC().Format(time.RFC3339),
				"data": map[string]any{"email_id": emailID, "to": []string{"grace@example.com"}, "subject": "A look is waiting for you"}}))
		}
		delivered := ev("email.delivered", providerID)
		if res := hook("msg_1", delivered, nil); res.Status != 200 || res.Map(t)["status"] != "delivered" {
			t.Fatalf("delivered: %d %s", res.Status, res.Body)
		}
		if drips, _ = a.DB.Emails(ctx, "grace@example.com"); drips[0].Status != "delivered" {
			t.Errorf("status after delivery = %s", drips[0].Status)
		}
		if res := hook("msg_1", delivered, nil); res.Status != 200 || res.Map(t)["ignored"] != true {
			t.Errorf("a repeated delivery: %d %s", res.Status, res.Body)
		}
		if res := hook("msg_2", ev("email.delivered", "unknown-id"), nil); res.Status != 200 || res.Map(t)["matched"] != false {
			t.Errorf("an unknown letter: %d %s", res.Status, res.Body)
		}
		if res := hook("msg_3", ev("email.opened", providerID), nil); res.Status != 200 || res.Map(t)["ignored"] != true {
			t.Errorf("an opening: %d %s", res.Status, res.Body)
		}
		svix := func(h http.Header) {
			for _, k := range []string{"id", "timestamp", "signature"} {
				h.Set("svix-"+k, h.Get("webhook-"+k))
				h.Del("webhook-" + k)
			}
		}
		if res := hook("msg_4", ev("email.bounced", providerID), svix); res.Status != 200 || res.Map(t)["status"] != "bounced" {
			t.Errorf("a bounce with svix headers: %d %s", res.Status, res.Body)
		}
		if res := hook("msg_5", ev("email.complained", providerID), nil); res.Status != 200 || res.Map(t)["status"] != "complained" {
			t.Errorf("a complaint: %d %s", res.Status, res.Body)
		}
		if res := hook("msg_5", ev("email.complained", providerID), nil); res.Status != 200 || res.Map(t)["ignored"] != true {
			t.Errorf("a repeated complaint: %d %s", res.Status, res.Body)
		}
		for _, kind := range []string{"email.bounced", "email.complained"} {
			var alerts int
			if err := a.DB.Pool().QueryRowContext(ctx, `SELECT COUNT(*) FROM operator_alerts WHERE kind = '`+kind+`'`).Scan(&alerts); err != nil || alerts != 1 {
				t.Errorf("%s operator alerts = %d %v; want 1", kind, alerts, err)
			}
		}
		// The operators read them in the failures view, newest first; the
		// refused letter is there too.
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		var f ops.Failures
		if res := a.Do(t, "GET", "/api/toolkit/admin/failures", op.Session(), nil); res.Status != 200 {
			t.Fatalf("failures: %d %s", res.Status, res.Body)
		} else {
			res.JSON(t, &f)
		}
		if len(f.Alerts) != 2 || f.Alerts[0].Kind != "email.complained" || f.Alerts[1].Kind != "email.bounced" ||
			f.Alerts[0].Subject != "A letter to grace@example.com complained (look-waiting)" ||
			f.Alerts[0].Detail["providerId"] != providerID || f.Alerts[0].Detail["event"] != "email.complained" || f.Alerts[0].Detail["to"] != "grace@example.com" {
			t.Errorf("alerts in the failures view = %+v", f.Alerts)
		}
		if len(f.RefusedEmails) != 1 || f.RefusedEmails[0].Status != "complained" {
			t.Errorf("refused letters = %+v", f.RefusedEmails)
		}
		if res := a.Do(t, "GET", "/api/toolkit/admin/failures", a.SignUp(t, "customer").Session(), nil); res.Status != 403 && res.Status != 404 {
			t.Errorf("a customer reads the alerts: %d %s", res.Status, res.Body)
		}
		for name, tc := range map[string]struct {
			body    string
			headers func(http.Header)
			status  int
			code    string
		}{
			"a wrong signature": {delivered, func(h http.Header) { h.Set("webhook-signature", "v1,AAAA") }, 401, "BAD_SIGNATURE"},
			"no signature":      {delivered, func(h http.Header) { h.Del("webhook-signature") }, 401, "BAD_SIGNATURE"},
			"an old delivery":   {delivered, func(h http.Header) { h.Set("webhook-timestamp", "1000") }, 401, "BAD_SIGNATURE"},
			"not json":          {"{", nil, 400, "UNPARSEABLE"},
			"no type":           {`{"data":{}}`, nil, 400, "UNPARSEABLE"},
			"no email id":       {`{"type":"email.delivered","data":{}}`, nil, 400, "UNPARSEABLE"},
			"too large":         {`{"x":"` + strings.Repeat("a", 1<<20) + `"}`, nil, 413, "BODY_TOO_LARGE"},
		} {
			if res := hook("msg_x"+name, tc.body, tc.headers); res.Status != tc.status || res.Code != tc.code {
				t.Errorf("webhook %s: %d %s; want %d %s", name, res.Status, res.Body, tc.status, tc.code)
			}
		}
	})
}
