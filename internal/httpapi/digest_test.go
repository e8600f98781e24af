package httpapi_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/ai/aitest"
	"studio/internal/apptest"
	"studio/internal/digest"
	"studio/internal/ops"
)

var digestWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/admin/analyst":           static("/api/toolkit/admin/analyst", nil),
		"PATCH /api/toolkit/admin/analyst/cadence": static("/api/toolkit/admin/analyst/cadence", map[string]any{"hours": 24}),
		"POST /api/toolkit/admin/analyst/run":      static("/api/toolkit/admin/analyst/run", nil),
	},
}

const (
	digestPath  = "/api/toolkit/admin/analyst"
	cadencePath = "/api/toolkit/admin/analyst/cadence"
	runPath     = "/api/toolkit/admin/analyst/run"
)

// seedVerdicts stores n readable verdicts (score 70) written now in the house.
func seedVerdicts(t *testing.T, a *apptest.App, house string, n int) {
	t.Helper()
	for range n {
		if _, err := a.DB.RawExec(context.Background(), `INSERT INTO verdicts (organization_id, job_id, score, unreadable, flagged,
			show_score, retry_futile, findings, rubric_version, judge, created_at) VALUES (?, ?, 70, 0, 0, 1, 0, '[]', 1, 'local', ?)`,
			house, uuid.NewString(), time.Now().UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
}

// ageDigests moves every stored digest back by d, as if run that long ago.
func ageDigests(t *testing.T, a *apptest.App, d time.Duration) {
	t.Helper()
	if _, err := a.DB.RawExec(context.Background(), `UPDATE analyst_digests SET created_at = created_at - ?`, d.Milliseconds()); err != nil {
		t.Fatal(err)
	}
}

func runDigest(t *testing.T, a *apptest.App, c apptest.Cred) digest.RunResult {
	t.Helper()
	res := a.Do(t, "POST", runPath, c, nil)
	if res.Status != 200 {
		t.Fatalf("run: %d %s", res.Status, res.Body)
	}
	var out digest.RunResult
	res.JSON(t, &out)
	return out
}

func caveatCodes(d digest.Digest) []string {
	var out []string
	for _, c := range d.Caveats {
		out = append(out, c.Code)
	}
	return out
}

func countRows(t *testing.T, a *apptest.App, query string) int {
	t.Helper()
	var n int
	if err := a.DB.QueryTest(context.Background(), query, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

var uuidRe = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestAnalystDigest: the operators' digest with an AI endpoint: the empty
// state, the cadence's range, a thin digest that asks no model, a second
// press that costs nothing, headlines the model writes from the facts alone
// (no address, id or house name in its request), a model failure that
// still lands a digest, the reads logged, the cost in ai-costs.
func TestAnalystDigest(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		a := apptest.New(t, e, withAI(srv))
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		h1, h2 := a.SignUp(t, "linen"), a.SignUp(t, "wool")
		k1, k2 := a.Key(t, h1, "member"), a.Key(t, h2, "member")
		adm := op.Session()

		t.Run("a key, even an admin's, is 403; another session 403", func(t *testing.T) {
			for _, c := range []apptest.Cred{a.Key(t, op, "member"), h1.Session(), k1} {
				want(t, a.Do(t, "GET", digestPath, c, nil), 403, "FORBIDDEN")
				want(t, a.Do(t, "PATCH", cadencePath, c, map[string]any{"hours": 24}), 403, "FORBIDDEN")
				want(t, a.Do(t, "POST", runPath, c, nil), 403, "FORBIDDEN")
			}
			if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_digests`) + countRows(t, a, `SELECT COUNT(*) FROM analyst_reads`) +
				countRows(t, a, `SELECT COUNT(*) FROM analyst_cadence`); n != 0 {
				t.Errorf("%d rows written by refused calls", n)
			}
		})

		t.Run("no digest yet: an honest empty state, the read logged", func(t *testing.T) {
			var v digest.View
			res := a.Do(t, "GET", digestPath, adm, nil)
			res.JSON(t, &v)
			if res.Status != 200 || v.Digest != nil || len(v.Previous) != 0 || v.History != 5 ||
				v.Cadence != (digest.Cadence{Hours: 168}) || !strings.Contains(string(res.Body), `"digest":null`) {
				t.Errorf("empty state %d %s", res.Status, res.Body)
			}
			if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_reads WHERE digest_id IS NULL AND history = 5 AND user_id = '`+op.ID+`'`); n != 1 {
				t.Errorf("read log rows %d; want 1 naming no digest", n)
			}
		})

		t.Run("history and cadence refusals write nothing", func(t *testing.T) {
			for _, q := range []string{"?history=21", "?history=-1", "?history=x", "?history="} {
				want(t, a.Do(t, "GET", digestPath+q, adm, nil), 400, "BAD_HISTORY")
			}
			for _, body := range []any{map[string]any{}, map[string]any{"enabled": true}, map[string]any{"hours": 0},
				map[string]any{"hours": 169}, map[string]any{"hours": -3}, map[string]any{"hours": nil}} {
				want(t, a.Do(t, "PATCH", cadencePath, adm, body), 400, "BAD_HOURS")
			}
			want(t, a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": "24"}), 400, "BAD_BODY")
			want(t, a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": 24, "enabled": "yes"}), 400, "BAD_BODY")
			if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_cadence`) + countRows(t, a, `SELECT COUNT(*) FROM analyst_reads`); n != 1 {
				t.Errorf("rows after refusals %d; want only the first read's", n)
			}
		})

		t.Run("cadence", func(t *testing.T) {
			var c digest.Cadence
			a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": 168, "enabled": true}).JSON(t, &c)
			if c.Hours != 168 || !c.Enabled || c.UpdatedAt == nil {
				t.Errorf("cadence %+v", c)
			}
			a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": 24}).JSON(t, &c)
			if c.Hours != 24 || !c.Enabled {
				t.Errorf("cadence %+v; want 24 hours, still enabled (enabled left out)", c)
			}
			a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": 24, "enabled": false}).JSON(t, &c)
			if c.Hours != 24 || c.Enabled {
				t.Errorf("cadence %+v; want 24 hours, off", c)
			}
			var v digest.View
			a.Do(t, "GET", digestPath, adm, nil).JSON(t, &v)
			if v.Cadence.Hours != 24 || v.Cadence.Enabled {
				t.Errorf("read cadence %+v", v.Cadence)
			}
		})

		// Failures: three in the window over two houses, one the window
		// before, their texts differing only by numbers, ids and addresses.
		ctx := context.Background()
		for i, k := range []apptest.Cred{k1, k1, k2} {
			id := submitJob(t, a, k, "upscale")
			runJob(t, a, id, fmt.Sprintf("fal: timeout after %d s for request %s of owner%d@maison.test", 30+i, uuid.NewString(), i))
		}
		old := submitJob(t, a, k2, "upscale")
		runJob(t, a, old, "fal: timeout after 9 s for request "+uuid.NewString()+" of someone@maison.test")
		if _, err := a.DB.RawExec(ctx, `UPDATE jobs SET created_at = created_at - ? WHERE id = ?`, (30 * time.Hour).Milliseconds(), old); err != nil {
			t.Fatal(err)
		}
		group := "fal: timeout after <n> s for request <id> of <email>"

		var thin digest.RunResult
		t.Run("below the verdict floor: thin, no model asked", func(t *testing.T) {
			thin = runDigest(t, a, adm)
			d := thin.Digest
			if thin.Reused || !d.Thin || d.HeadlinesBy != "rules" || d.Model != nil || d.ReadableVerdicts != 0 || d.VerdictFloor != 20 ||
				d.WindowHours != 24 || len(d.Headlines) == 0 || !strings.HasPrefix(d.Headlines[0], "Thin window") {
				t.Errorf("thin digest %+v", thin)
			}
			if got := caveatCodes(d); len(got) != 1 || got[0] != "THIN_DATA" {
				t.Errorf("caveats %v; want THIN_DATA alone", got)
			}
			if n := len(srv.Chats()); n != 0 {
				t.Errorf("%d model calls for a thin digest", n)
			}
			var fg *digest.Movement
			for i, m := range d.Movements {
				if m.Metric == "failure_group" {
					fg = &d.Movements[i]
				}
			}
			if fg == nil || *fg.Group != group || fg.Current != 3 || fg.Previous != 1 || *fg.Houses != 2 || fg.Direction != "up" || *fg.ChangePct != 200 {
				t.Errorf("failure group %+v", fg)
			}
			if len(d.Actions) == 0 || d.Actions[0].Kind != "investigate_failure_group" || *d.Actions[0].Group != group || d.Actions[0].Priority != "high" {
				t.Errorf("actions %+v", d.Actions)
			}
			if d.Headlines[1] != d.Actions[0].Text {
				t.Errorf("headlines %q; want the action after the thin line", d.Headlines)
			}
		})

		t.Run("a second press inside the window: the same digest, nothing computed", func(t *testing.T) {
			again := runDigest(t, a, adm)
			if !again.Reused || again.Digest.ID != thin.Digest.ID || !again.FreshAfter.Equal(thin.Digest.CreatedAt.Add(24*time.Hour)) {
				t.Errorf("second press %+v; want the first digest reused", again)
			}
			if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_digests`); n != 1 || len(srv.Chats()) != 0 {
				t.Errorf("%d digests, %d model calls; want 1 and 0", n, len(srv.Chats()))
			}
		})

		// Enough readable verdicts, and the thin digest a day old.
		seedVerdicts(t, a, h1.HouseID, 25)
		if n := countRows(t, a, `SELECT COUNT(*) FROM verdicts WHERE score IS NOT NULL`); n != 25 {
			t.Fatalf("%d verdicts seeded", n)
		}
		ageDigests(t, a, 25*time.Hour)
		headlines := []string{"Timeouts at the render provider tripled.", "Verdicts are readable again."}

		var written digest.RunResult
		t.Run("the model writes the headlines from the facts alone", func(t *testing.T) {
			srv.Answer(withCost(aitest.JSON(map[string]any{"headlines": headlines}), 0.0021))
			written = runDigest(t, a, adm)
			d := written.Digest
			if written.Reused || d.Thin || d.HeadlinesBy != "model" || d.Model == nil || *d.Model != "vision-test" ||
				strings.Join(d.Headlines, "|") != strings.Join(headlines, "|") || d.ReadableVerdicts != 25 || d.CostUSD != 0.0021 {
				t.Errorf("written digest %+v", written)
			}
			if len(d.Caveats) != 0 {
				t.Errorf("caveats %+v; want none", d.Caveats)
			}
			chats := srv.Chats()
			if len(chats) != 1 {
				t.Fatalf("%d model calls; want 1", len(chats))
			}
			raw := string(chats[0].Raw)
			user := chats[0].Messages[len(chats[0].Messages)-1].Text()
			if !strings.Contains(user, group) || !strings.Contains(user, `"readableVerdicts":25`) {
				t.Errorf("the request lacks the facts: %s", user)
			}
			for _, banned := range []string{"@", op.ID, h1.ID, h2.ID, h1.HouseID, h2.HouseID, op.HouseID, h1.Email, "linen", "wool"} {
				if strings.Contains(raw, banned) {
					t.Errorf("the model's request carries %q: %s", banned, raw)
				}
			}
			if uuidRe.MatchString(raw) {
				t.Errorf("the model's request carries an id: %s", raw)
			}
			if n := len(srv.Chats()); n != 1 || runDigest(t, a, adm).Digest.ID != d.ID || len(srv.Chats()) != 1 {
				t.Errorf("a second press asked the model again")
			}
		})

		t.Run("reads: the latest with previous headlines, each read logged", func(t *testing.T) {
			var v digest.View
			a.Do(t, "GET", digestPath+"?history=3", adm, nil).JSON(t, &v)
			if v.Digest == nil || v.Digest.ID != written.Digest.ID || v.History != 3 || len(v.Previous) != 1 ||
				v.Previous[0].ID != thin.Digest.ID || !v.Previous[0].Thin || len(v.Previous[0].Headlines) == 0 {
				t.Errorf("view %+v", v)
			}
			a.Do(t, "GET", digestPath+"?history=0", adm, nil).JSON(t, &v)
			if len(v.Previous) != 0 || v.Digest.ID != written.Digest.ID {
				t.Errorf("history=0: %+v", v)
			}
			if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_reads WHERE digest_id = '`+written.Digest.ID+`' AND user_id = '`+op.ID+`'`); n != 2 {
				t.Errorf("reads of the written digest logged %d; want 2", n)
			}
		})

		t.Run("ai-costs lists the digest's model call", func(t *testing.T) {
			var c ops.Costs
			a.Do(t, "GET", "/api/toolkit/admin/ai-costs", adm, nil).JSON(t, &c)
			found := false
			for _, tc := range c.ByTool {
				if tc.Tool == "analyst" {
					found = tc.CostUSD == 0.0021 && tc.Tokens == 0
				}
			}
			if !found {
				t.Errorf("ai-costs %+v; want analyst at $0.0021", c.ByTool)
			}
		})

		t.Run("a model failure: the digest lands with rule headlines and a caveat", func(t *testing.T) {
			ageDigests(t, a, 25*time.Hour)
			fail := aitest.Fail(500, "server_error", "", "The server had an error.")
			srv.Answer(fail, fail) // the client asks again once after a 5xx
			r := runDigest(t, a, adm)
			d := r.Digest
			if r.Reused || d.HeadlinesBy != "rules" || d.Model == nil || len(d.Headlines) == 0 || d.Headlines[0] != d.Actions[0].Text {
				t.Errorf("digest after a model failure %+v", r)
			}
			if got := caveatCodes(d); len(got) != 1 || got[0] != "MODEL_FAILED" {
				t.Errorf("caveats %v; want MODEL_FAILED", got)
			}
			if srv.Pending() != 0 || len(srv.Chats()) != 3 {
				t.Errorf("pending %d, calls %d", srv.Pending(), len(srv.Chats()))
			}
		})
	})
}

// TestAnalystDigestRules: without an AI endpoint the headlines are the
// rules' and say so; the workers' automatic run computes a due digest once
// while the cadence is enabled, and never while it is off.
func TestAnalystDigestRules(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx := context.Background()
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		h := a.SignUp(t, "linen")
		seedVerdicts(t, a, h.HouseID, 20)
		adm := op.Session()

		if ran, err := a.Digest.RunDue(ctx); err != nil || ran {
			t.Fatalf("automatic run with the cadence off: %v %v", ran, err)
		}
		r := runDigest(t, a, adm)
		d := r.Digest
		if d.Thin || d.HeadlinesBy != "rules" || d.Model != nil || d.WindowHours != 168 || d.ReadableVerdicts != 20 {
			t.Errorf("digest %+v", d)
		}
		if got := caveatCodes(d); len(got) != 2 || got[0] != "NO_PREVIOUS_DATA" || got[1] != "AI_NOT_CONFIGURED" {
			t.Errorf("caveats %v", got)
		}
		if !strings.Contains(strings.Join(d.Headlines, "|"), "Readable verdicts: 20 (from none on the previous 168 hours).") {
			t.Errorf("headlines %q", d.Headlines)
		}

		a.Do(t, "PATCH", cadencePath, adm, map[string]any{"hours": 6, "enabled": true})
		if ran, err := a.Digest.RunDue(ctx); err != nil || ran {
			t.Errorf("automatic run with a fresh digest: %v %v", ran, err)
		}
		ageDigests(t, a, 7*time.Hour)
		if ran, err := a.Digest.RunDue(ctx); err != nil || !ran {
			t.Errorf("automatic run when due: %v %v", ran, err)
		}
		if ran, err := a.Digest.RunDue(ctx); err != nil || ran {
			t.Errorf("automatic run again at once: %v %v", ran, err)
		}
		if n := countRows(t, a, `SELECT COUNT(*) FROM analyst_digests WHERE run_by_user_id IS NULL AND window_hours = 6`); n != 1 {
			t.Errorf("automatic digests %d; want 1", n)
		}
		// Due again, but another instance claimed the run within the hours.
		ageDigests(t, a, 7*time.Hour)
		if _, err := a.DB.RawExec(ctx, `UPDATE analyst_cadence SET auto_claimed_at = ?`, time.Now().Add(-time.Hour).UnixMilli()); err != nil {
			t.Fatal(err)
		}
		if ran, err := a.Digest.RunDue(ctx); err != nil || ran {
			t.Errorf("automatic run claimed elsewhere: %v %v", ran, err)
		}
	})
}
