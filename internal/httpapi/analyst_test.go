package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/analyst"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/httpapi"
	"studio/internal/urlguard"
)

// The walk's app sets no analyst tokens: every credential is 401 there
// (DECISIONS §9: unset tokens fail closed). TestAnalyst tries the tokens.
var analystWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/internal/analyst/actions/invitations/{id}/approve": static("/api/internal/analyst/actions/invitations/"+uuid.NewString()+"/approve",
			map[string]string{"reason": "a real house"}),
		"POST /api/internal/analyst/actions/invitations/{id}/research": static("/api/internal/analyst/actions/invitations/"+uuid.NewString()+"/research", nil),
		"POST /api/internal/analyst/actions/recordings/{id}/summarize": static("/api/internal/analyst/actions/recordings/"+uuid.NewString()+"/summarize", map[string]string{"focusArea": "checkout"}),
		"GET /api/internal/analyst/assets/{id}/preview":                static("/api/internal/analyst/assets/"+uuid.NewString()+"/preview", nil),
		"GET /api/internal/analyst/chat-quality":                       static("/api/internal/analyst/chat-quality", nil),
		"GET /api/internal/analyst/deliverability":                     static("/api/internal/analyst/deliverability", nil),
		"GET /api/internal/analyst/experiments":                        static("/api/internal/analyst/experiments", nil),
		"GET /api/internal/analyst/failures":                           static("/api/internal/analyst/failures", nil),
		"GET /api/internal/analyst/feature-flags":                      static("/api/internal/analyst/feature-flags", nil),
		"GET /api/internal/analyst/funnel":                             static("/api/internal/analyst/funnel", nil),
		"GET /api/internal/analyst/invitations":                        static("/api/internal/analyst/invitations", nil),
		"GET /api/internal/analyst/learnings":                          static("/api/internal/analyst/learnings", nil),
		"GET /api/internal/analyst/longstory":                          static("/api/internal/analyst/longstory", nil),
		"GET /api/internal/analyst/product-usage":                      static("/api/internal/analyst/product-usage", nil),
		"GET /api/internal/analyst/recordings":                         static("/api/internal/analyst/recordings", nil),
		"GET /api/internal/analyst/recordings/{id}/analysis":           static("/api/internal/analyst/recordings/"+uuid.NewString()+"/analysis", nil),
		"GET /api/internal/analyst/rejections":                         static("/api/internal/analyst/rejections", nil),
	},
}

const (
	readToken   = "analyst-read-token-0123456789"
	actionToken = "analyst-action-token-9876543210"
)

// homepage is an applicant's public website: a root page and a product feed.
func homepage(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Maison Lin</title>
<meta name="description" content="Linen tailoring from Lyon."><script>var secret = "never read";</script></head>
<body><h1>Maison Lin</h1><p>Linen   shirts and
trousers, cut in Lyon.</p></body></html>`)
	})
	mux.HandleFunc("GET /products.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"products":[{"title":"Linen shirt"},{"title":"Linen trousers"}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// analystApp is the service with both analyst tokens set, an AI endpoint
// named (summarize needs one; no model is ever called) and a research
// guard that admits the test's homepage server.
func analystApp(t *testing.T, e apptest.Engine, site *httptest.Server) *apptest.App {
	addr := netip.MustParseAddrPort(site.Listener.Addr().String())
	return apptest.NewWith(t, e, func(o *app.Options) {
		o.ResearchGuard = analyst.ResearchGuard(urlguard.AllowLoopbackForTest(t, addr))
	}, func(c *app.Config) {
		c.AnalystToken, c.AnalystActionToken = readToken, actionToken
		c.AIBaseURL = "http://127.0.0.1:9/v1"
	})
}

func applicant(t *testing.T, a *apptest.App, body map[string]any) string {
	t.Helper()
	if res := a.Do(t, "POST", "/api/toolkit/invite/request", apptest.Anonymous, body); res.Status != 200 {
		t.Fatalf("apply: %d %s", res.Status, res.Body)
	}
	var id string
	if err := a.DB.QueryTest(context.Background(), `SELECT id FROM invite_requests WHERE email = '`+body["email"].(string)+`'`, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

func rawExec(t *testing.T, a *apptest.App, q string, args ...any) {
	t.Helper()
	if _, err := a.DB.RawExec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestAnalyst(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		site := homepage(t)
		a := analystApp(t, e, site)
		read, action := apptest.Cred{Key: readToken}, apptest.Cred{Key: actionToken}
		ctx := context.Background()

		// What the houses did: two sign-ups, uploads, develops (one failed
		// with an address and an id in its error), a verdict, a chat turn, a
		// memory, letters.
		zelda := a.SignUpAs(t, &apptest.User{Name: "Zelda Quill", Email: "zelda.quill@studio.test", Password: "correct horse battery"})
		other := a.SignUpAs(t, &apptest.User{Name: "Orin Vale", Email: "orin.vale@studio.test", Password: "correct horse battery"})
		zeldaKey := a.Key(t, zelda, "member")
		frame := upload(t, a, zeldaKey, pngOf(t, 96, 64))
		done := submitJob(t, a, zeldaKey, "upscale")
		developAll(t, a)
		failed := submitJob(t, a, zeldaKey, "upscale")
		rawExec(t, a, `UPDATE jobs SET status = 'failed', error = ? WHERE id = ?`,
			"upstream refused job "+failed+" for zelda.quill@studio.test after 3 tries", failed)
		rawExec(t, a, `UPDATE ledger_holds SET state = 'voided', resolved_at = created_at WHERE job_id = ?`, failed)
		session := uuid.NewString()
		rawExec(t, a, `INSERT INTO chat_sessions (id, organization_id, user_id, title, created_at, last_turn_at) VALUES (?, ?, ?, 'Spring', 1, 1)`,
			session, zelda.HouseID, zelda.ID)
		rawExec(t, a, `INSERT INTO chat_turns (organization_id, id, session_id, user_id, message, reply, applied, created_at)
			VALUES (?, ?, ?, ?, 'make it linen', 'Done.', '[{"op":"rename"}]', ?)`, zelda.HouseID, uuid.NewString(), session, zelda.ID, nowMs())
		rawExec(t, a, `INSERT INTO memories (id, organization_id, user_id, created_by_user_id, scope, memory_class, kind, statement, confidence,
			status, evidence_count, created_at, updated_at) VALUES (?, ?, NULL, ?, 'house', 'preference', 'palette', 'Zelda likes linen', 0.9, 'active', 2, ?, ?)`,
			uuid.NewString(), zelda.HouseID, zelda.ID, nowMs(), nowMs())

		// A verdict the judge flagged: one sure defect, one it is not sure of.
		rawExec(t, a, `INSERT INTO verdicts (organization_id, job_id, score, unreadable, flagged, show_score, retry_futile, findings, rubric_version, judge, created_at)
			VALUES (?, ?, 45, 0, 1, 1, 1, ?, 1, 'local', ?)`, zelda.HouseID, uuid.NewString(),
			`[{"code":"crop-cut","where":"hem","confidence":"sure"},{"code":"soft-focus","where":"","confidence":"not-sure"}]`, nowMs())
		var verdicts int64
		if err := a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM verdicts`, &verdicts); err != nil {
			t.Fatal(err)
		}

		// The applicant list.
		withSite := applicant(t, a, map[string]any{"name": "Ines Applicant", "email": "ines@maison.test", "house": "Maison Lin",
			"website": site.URL, "intake": map[string]any{"audience": "women 30-50", "painText": "call me on 0612345678"}})
		declined := applicant(t, a, map[string]any{"name": "Dan Declined", "email": "dan@maison.test"})
		rawExec(t, a, `UPDATE invite_requests SET status = 'declined', decided_at = created_at WHERE id = ?`, declined)
		social := applicant(t, a, map[string]any{"name": "Sol Social", "email": "sol@maison.test", "website": "https://www.instagram.com/maisonsol"})
		private := applicant(t, a, map[string]any{"name": "Pia Private", "email": "pia@maison.test", "website": "http://127.0.0.1:1/"})
		bare := applicant(t, a, map[string]any{"name": "Bo Bare", "email": "bo@maison.test"})

		identities := []string{zelda.ID, zelda.Email, zelda.HouseID, "Zelda", other.ID, other.Email, other.HouseID, "Orin",
			"ines@maison.test", "Ines", "Maison Lin", "dan@maison.test", "Dan Declined", "0612345678", done, failed, frame.ID, session}
		noIdentity := func(t *testing.T, body []byte, except ...string) {
			t.Helper()
			for _, s := range identities {
				if strings.Contains(string(body), s) && !contains(except, s) {
					t.Errorf("body names %q: %s", s, body)
				}
			}
		}

		t.Run("reads are aggregates without identities", func(t *testing.T) {
			for _, path := range []string{"chat-quality", "deliverability", "experiments", "failures", "feature-flags", "funnel",
				"invitations", "learnings", "longstory", "product-usage", "recordings", "rejections"} {
				res := a.Do(t, "GET", "/api/internal/analyst/"+path+"?hours=24", read, nil)
				if res.Status != 200 {
					t.Errorf("%s: %d %s", path, res.Status, res.Body)
					continue
				}
				noIdentity(t, res.Body)
			}
		})

		t.Run("figures", func(t *testing.T) {
			var f analyst.Failures
			a.Do(t, "GET", "/api/internal/analyst/failures", read, nil).JSON(t, &f)
			if f.Develops != 2 || f.Failed != 1 || f.FailureRate != 0.5 || len(f.Groups) != 1 ||
				f.Groups[0].Error != "upstream refused job <id> for <email> after <n> tries" || f.Groups[0].Houses != 1 {
				t.Errorf("failures: %+v", f)
			}
			var fu analyst.Funnel
			a.Do(t, "GET", "/api/internal/analyst/funnel", read, nil).JSON(t, &fu)
			want := []int64{2, 1, 1, 0, 0}
			for i, s := range fu.Steps {
				if s.Count != want[i] {
					t.Errorf("funnel step %s: %d; want %d (%+v)", s.Step, s.Count, want[i], fu)
				}
			}
			var c analyst.Chat
			a.Do(t, "GET", "/api/internal/analyst/chat-quality", read, nil).JSON(t, &c)
			if c.Turns != 1 || c.Sessions != 1 || c.TurnsApplying != 1 || c.ApplyRate != 1 || c.SessionLengths[0].Count != 1 {
				t.Errorf("chat: %+v", c)
			}
			var u analyst.Usage
			a.Do(t, "GET", "/api/internal/analyst/product-usage", read, nil).JSON(t, &u)
			if u.Develops != 2 || u.ActiveHouses != 1 || len(u.ByTool) != 1 || u.ByTool[0].Tool != "upscale" || u.ByTool[0].Done != 1 || u.ByTool[0].Failed != 1 {
				t.Errorf("usage: %+v", u)
			}
			var r analyst.Rejections
			a.Do(t, "GET", "/api/internal/analyst/rejections", read, nil).JSON(t, &r)
			defects := map[string]int64{}
			for _, c := range r.ByDefect {
				defects[c.Key] = c.Count
			}
			if r.Verdicts != verdicts || r.Flagged < 1 || r.RetryFutile < 1 || defects["crop-cut"] < 1 || r.FlagRate <= 0 {
				t.Errorf("rejections: %+v; %d verdicts", r, verdicts)
			}
			var l analyst.Learnings
			a.Do(t, "GET", "/api/internal/analyst/learnings", read, nil).JSON(t, &l)
			if l.Memories != 1 || len(l.MemoryByKind) != 1 || l.MemoryByKind[0].Key != "palette" {
				t.Errorf("learnings: %+v", l)
			}
			var d analyst.Deliverability
			a.Do(t, "GET", "/api/internal/analyst/deliverability", read, nil).JSON(t, &d)
			var letters int64
			_ = a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM email_log`, &letters)
			if d.Total != letters || letters > 0 && len(d.ByTemplate) == 0 {
				t.Errorf("deliverability: %+v; %d letters", d, letters)
			}
			var s analyst.Story
			res := a.Do(t, "GET", "/api/internal/analyst/longstory?organizationId="+zelda.HouseID, read, nil)
			res.JSON(t, &s)
			noIdentity(t, res.Body, zelda.HouseID)
			if len(s.Days) != 1 || s.Days[0].Develops != 2 || s.Days[0].Failed != 1 || s.Days[0].Uploads == 0 || s.Days[0].Verdicts != verdicts {
				t.Errorf("longstory of one house: %+v", s)
			}
			a.Do(t, "GET", "/api/internal/analyst/longstory", read, nil).JSON(t, &s)
			if len(s.Days) != 1 || s.Days[0].Joined != 2 || s.OrganizationID != nil {
				t.Errorf("longstory: %+v", s)
			}
			var inv analyst.Invitations
			a.Do(t, "GET", "/api/internal/analyst/invitations?status=pending&limit=2", read, nil).JSON(t, &inv)
			if len(inv.Applicants) != 2 || inv.Applicants[0].ID != bare || inv.Status != "pending" {
				t.Errorf("invitations: %+v", inv)
			}
			byStatus := map[string]int64{}
			for _, c := range inv.ByStatus {
				byStatus[c.Key] = c.Count
			}
			if byStatus["pending"] != 4 || byStatus["declined"] != 1 || byStatus["invited"] != 0 {
				t.Errorf("invitations by status: %+v", inv.ByStatus)
			}
			a.Do(t, "GET", "/api/internal/analyst/invitations?status=all", read, nil).JSON(t, &inv)
			for _, ap := range inv.Applicants {
				if ap.ID == withSite && (ap.Intake.Audience != "women 30-50" || !ap.HasWebsite) {
					t.Errorf("applicant with a site: %+v", ap)
				}
			}
			var ex analyst.Experiments
			a.Do(t, "GET", "/api/internal/analyst/experiments?status=running&experimentId=x&limit=5", read, nil).JSON(t, &ex)
			var ff analyst.FeatureFlags
			a.Do(t, "GET", "/api/internal/analyst/feature-flags?active=true", read, nil).JSON(t, &ff)
			var rec analyst.Recordings
			a.Do(t, "GET", "/api/internal/analyst/recordings?limit=3", read, nil).JSON(t, &rec)
			if ex.Experiments == nil || len(ex.Experiments) != 0 || ff.Flags == nil || len(ff.Flags) != 0 || rec.Recordings == nil || len(rec.Recordings) != 0 {
				t.Errorf("honest empty lists: %+v %+v %+v", ex, ff, rec)
			}
			var an analyst.Analysis
			id := uuid.NewString()
			a.Do(t, "GET", "/api/internal/analyst/recordings/"+id+"/analysis", read, nil).JSON(t, &an)
			if an.State != "not_generated" || an.RecordingID != id || an.Analysis != nil {
				t.Errorf("analysis: %+v", an)
			}
		})

		t.Run("preview", func(t *testing.T) {
			res := a.Do(t, "GET", "/api/internal/analyst/assets/"+frame.ID+"/preview", read, nil)
			if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") || len(res.Body) == 0 {
				t.Fatalf("preview: %d %s", res.Status, res.Header)
			}
		})

		t.Run("research", func(t *testing.T) {
			var r analyst.Research
			res := a.Do(t, "POST", "/api/internal/analyst/actions/invitations/"+withSite+"/research", read, nil)
			res.JSON(t, &r)
			if res.Status != 200 || !r.Homepage.Fetched || r.Homepage.Title != "Maison Lin" || r.Homepage.Description != "Linen tailoring from Lyon." ||
				!strings.Contains(r.Homepage.Excerpt, "Linen shirts and trousers, cut in Lyon.") || strings.Contains(r.Homepage.Excerpt, "never read") ||
				r.Products.Count != 2 || len(r.Products.Titles) != 2 || r.Products.Titles[0] != "Linen shirt" {
				t.Errorf("research: %d %s", res.Status, res.Body)
			}
			for _, tc := range []struct{ id, refused string }{{social, "social_host"}, {private, "private_host"}, {bare, "no_website"}} {
				res := a.Do(t, "POST", "/api/internal/analyst/actions/invitations/"+tc.id+"/research", read, nil)
				res.JSON(t, &r)
				if res.Status != 200 || r.Homepage.Fetched || r.Homepage.Refused != tc.refused || r.Products.Fetched {
					t.Errorf("research of %s: %d %s", tc.refused, res.Status, res.Body)
				}
			}
		})

		t.Run("approve", func(t *testing.T) {
			path := "/api/internal/analyst/actions/invitations/" + withSite + "/approve"
			var ap analyst.Approved
			res := a.Do(t, "POST", path, action, map[string]string{"reason": "A real house with a shop."})
			res.JSON(t, &ap)
			noIdentity(t, res.Body, withSite)
			if res.Status != 200 || ap.Status != "invited" || ap.AlreadyInvited || ap.Emailed != "logged" {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			var letters, doors int
			var reason string
			_ = a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM email_log WHERE template = 'invitation' AND to_addr = 'ines@maison.test'`, &letters)
			_ = a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM invitations WHERE kind = 'admin' AND status = 'issued' AND email = 'ines@maison.test'`, &doors)
			_ = a.DB.QueryTest(ctx, `SELECT decision_reason FROM invite_requests WHERE email = 'ines@maison.test'`, &reason)
			if letters != 1 || doors != 1 || reason != "A real house with a shop." {
				t.Errorf("approve wrote letters %d, doors %d, reason %q", letters, doors, reason)
			}
			res = a.Do(t, "POST", path, action, map[string]string{"reason": "again"})
			res.JSON(t, &ap)
			if res.Status != 200 || !ap.AlreadyInvited || ap.Emailed != "none" {
				t.Errorf("approve again: %d %s", res.Status, res.Body)
			}
			_ = a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM email_log WHERE template = 'invitation' AND to_addr = 'ines@maison.test'`, &letters)
			if letters != 1 {
				t.Errorf("approve again sent another letter: %d", letters)
			}
		})

		t.Run("refusals", func(t *testing.T) {
			approve := func(id string) string { return "/api/internal/analyst/actions/invitations/" + id + "/approve" }
			reason := map[string]string{"reason": "fits"}
			huge := `{"reason":"` + strings.Repeat("a", httpapi.MaxJSON) + `"}`
			summarize := "/api/internal/analyst/actions/recordings/" + uuid.NewString() + "/summarize"
			for _, tc := range []struct {
				name, method, path string
				cred               apptest.Cred
				body               any
				status             int
				code               string
			}{
				{"no token", "GET", "/api/internal/analyst/funnel", apptest.Anonymous, nil, 401, "UNAUTHORIZED"},
				{"wrong token", "GET", "/api/internal/analyst/funnel", apptest.Cred{Key: readToken + "x"}, nil, 401, "UNAUTHORIZED"},
				{"a house key", "GET", "/api/internal/analyst/funnel", zeldaKey, nil, 401, "UNAUTHORIZED"},
				{"a session", "GET", "/api/internal/analyst/funnel", zelda.Session(), nil, 401, "UNAUTHORIZED"},
				{"the action token on a read", "GET", "/api/internal/analyst/funnel", action, nil, 401, "UNAUTHORIZED"},
				{"the read token on approve", "POST", approve(bare), read, reason, 401, "UNAUTHORIZED"},
				{"a house key on approve", "POST", approve(bare), zeldaKey, reason, 401, "UNAUTHORIZED"},
				{"hours 0", "GET", "/api/internal/analyst/funnel?hours=0", read, nil, 400, "BAD_HOURS"},
				{"hours 721", "GET", "/api/internal/analyst/failures?hours=721", read, nil, 400, "BAD_HOURS"},
				{"hours text", "GET", "/api/internal/analyst/chat-quality?hours=a", read, nil, 400, "BAD_HOURS"},
				{"deliverability hours", "GET", "/api/internal/analyst/deliverability?hours=-1", read, nil, 400, "BAD_HOURS"},
				{"product-usage hours", "GET", "/api/internal/analyst/product-usage?hours=9999", read, nil, 400, "BAD_HOURS"},
				{"invitations hours", "GET", "/api/internal/analyst/invitations?hours=0", read, nil, 400, "BAD_HOURS"},
				{"invitations limit", "GET", "/api/internal/analyst/invitations?limit=201", read, nil, 400, "BAD_LIMIT"},
				{"invitations status", "GET", "/api/internal/analyst/invitations?status=maybe", read, nil, 400, "BAD_STATUS"},
				{"learnings hours", "GET", "/api/internal/analyst/learnings?hours=0", read, nil, 400, "BAD_HOURS"},
				{"learnings limit", "GET", "/api/internal/analyst/learnings?limit=0", read, nil, 400, "BAD_LIMIT"},
				{"longstory hours", "GET", "/api/internal/analyst/longstory?hours=0", read, nil, 400, "BAD_HOURS"},
				{"longstory limit", "GET", "/api/internal/analyst/longstory?limit=x", read, nil, 400, "BAD_LIMIT"},
				{"longstory unknown house", "GET", "/api/internal/analyst/longstory?organizationId=" + uuid.NewString(), read, nil, 404, "NOT_FOUND"},
				{"longstory malformed house", "GET", "/api/internal/analyst/longstory?organizationId=nope", read, nil, 404, "NOT_FOUND"},
				{"recordings hours", "GET", "/api/internal/analyst/recordings?hours=0", read, nil, 400, "BAD_HOURS"},
				{"recordings limit", "GET", "/api/internal/analyst/recordings?limit=500", read, nil, 400, "BAD_LIMIT"},
				{"rejections hours", "GET", "/api/internal/analyst/rejections?hours=0", read, nil, 400, "BAD_HOURS"},
				{"rejections limit", "GET", "/api/internal/analyst/rejections?limit=0", read, nil, 400, "BAD_LIMIT"},
				{"experiments limit", "GET", "/api/internal/analyst/experiments?limit=0", read, nil, 400, "BAD_LIMIT"},
				{"experiments status", "GET", "/api/internal/analyst/experiments?status=live", read, nil, 400, "BAD_STATUS"},
				{"experiments id", "GET", "/api/internal/analyst/experiments?experimentId=" + strings.Repeat("x", 101), read, nil, 400, "BAD_EXPERIMENT_ID"},
				{"flags limit", "GET", "/api/internal/analyst/feature-flags?limit=201", read, nil, 400, "BAD_LIMIT"},
				{"flags active", "GET", "/api/internal/analyst/feature-flags?active=yes", read, nil, 400, "BAD_ACTIVE"},
				{"analysis of a malformed id", "GET", "/api/internal/analyst/recordings/nope/analysis", read, nil, 404, "NOT_FOUND"},
				{"preview unknown", "GET", "/api/internal/analyst/assets/" + uuid.NewString() + "/preview", read, nil, 404, "NOT_FOUND"},
				{"preview malformed", "GET", "/api/internal/analyst/assets/no%20pe/preview", read, nil, 404, "NOT_FOUND"},
				{"research unknown", "POST", "/api/internal/analyst/actions/invitations/" + uuid.NewString() + "/research", read, nil, 404, "NOT_FOUND"},
				{"approve without reason", "POST", approve(bare), action, map[string]string{}, 400, "REASON_REQUIRED"},
				{"approve blank reason", "POST", approve(bare), action, map[string]string{"reason": "  "}, 400, "REASON_REQUIRED"},
				{"approve bad json", "POST", approve(bare), action, "{", 400, "BAD_JSON"},
				{"approve bad body", "POST", approve(bare), action, "[]", 400, "BAD_BODY"},
				{"approve huge body", "POST", approve(bare), action, huge, 413, "BODY_TOO_LARGE"},
				{"approve unknown", "POST", approve(uuid.NewString()), action, reason, 404, "NOT_FOUND"},
				{"approve not a uuid", "POST", approve("nope"), action, reason, 404, "NOT_FOUND"},
				{"approve declined", "POST", approve(declined), action, reason, 409, "NOT_PENDING"},
				{"summarize without focus", "POST", summarize, read, map[string]string{}, 400, "FOCUS_AREA_REQUIRED"},
				{"summarize bad json", "POST", summarize, read, "{", 400, "BAD_JSON"},
				{"summarize bad body", "POST", summarize, read, "[]", 400, "BAD_BODY"},
				{"summarize huge body", "POST", summarize, read, huge, 413, "BODY_TOO_LARGE"},
				{"summarize: nothing recorded", "POST", summarize, read, map[string]string{"focusArea": "checkout"}, 404, "NOT_FOUND"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := a.Do(t, tc.method, tc.path, tc.cred, tc.body)
					if res.Status != tc.status || res.Code != tc.code {
						t.Errorf("got %d %s; want %d %s", res.Status, res.Body, tc.status, tc.code)
					}
				})
			}
			// Nothing a refusal touched changed: the declined applicant stays declined, the pending one pending.
			var st string
			_ = a.DB.QueryTest(ctx, `SELECT status FROM invite_requests WHERE id = '`+declined+`'`, &st)
			if st != "declined" {
				t.Errorf("declined applicant is %s", st)
			}
			_ = a.DB.QueryTest(ctx, `SELECT status FROM invite_requests WHERE id = '`+bare+`'`, &st)
			if st != "pending" {
				t.Errorf("refused approvals moved the applicant to %s", st)
			}
		})
	})
}

// TestAnalystUnconfigured: without an AI endpoint summarize is 503; with
// the action token unset the approval admits no token at all.
func TestAnalystUnconfigured(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.AnalystToken = readToken })
		read := apptest.Cred{Key: readToken}
		res := a.Do(t, "POST", "/api/internal/analyst/actions/recordings/"+uuid.NewString()+"/summarize", read, map[string]string{"focusArea": "checkout"})
		if res.Status != 503 || res.Code != "AI_NOT_CONFIGURED" {
			t.Errorf("summarize: %d %s", res.Status, res.Body)
		}
		for _, c := range []apptest.Cred{read, {Key: actionToken}, {Key: ""}} {
			res := a.Do(t, "POST", "/api/internal/analyst/actions/invitations/"+uuid.NewString()+"/approve", c, map[string]string{"reason": "x"})
			if res.Status != 401 || res.Code != "UNAUTHORIZED" {
				t.Errorf("approve with the action token unset, %q: %d %s", c.Key, res.Status, res.Body)
			}
		}
		if res := a.Do(t, "GET", "/api/internal/analyst/funnel", read, nil); res.Status != 200 {
			t.Errorf("funnel: %d %s", res.Status, res.Body)
		}
	})
}

// TestAnalystInOpenAPI: the routes carry their bearer schemes.
func TestAnalystInOpenAPI(t *testing.T) {
	doc, err := httpapi.NewServer(httpapi.Config{}, httpapi.Services{}, slog.New(slog.NewTextHandler(io.Discard, nil))).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths      map[string]map[string]struct{ Security []map[string][]string }
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string }
		}
	}
	if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"analystToken", "analystActionToken"} {
		if s := d.Components.SecuritySchemes[name]; s.Type != "http" || s.Scheme != "bearer" {
			t.Errorf("scheme %s: %+v", name, s)
		}
	}
	n := 0
	for path, ops := range d.Paths {
		if !strings.HasPrefix(path, "/api/internal/analyst/") {
			continue
		}
		for method, op := range ops {
			n++
			want := "analystToken"
			if strings.HasSuffix(path, "/approve") {
				want = "analystActionToken"
			}
			if len(op.Security) != 1 || op.Security[0][want] == nil {
				t.Errorf("%s %s security %v; want %s", method, path, op.Security, want)
			}
		}
	}
	if n != 17 {
		t.Errorf("%d analyst operations in the document; want 17", n)
	}
}

func nowMs() int64 { return time.Now().UnixMilli() }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
