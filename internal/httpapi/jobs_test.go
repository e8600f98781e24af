package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// jobsWalk is the jobs area's part of the route walk (walk_test.go).
var jobsWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/jobs/submit": func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
			return request{"/api/toolkit/jobs/submit", submitForm(t, "upscale", "image", pngOf(t, 64, 48))}
		},
		"GET /api/toolkit/jobs":          static("/api/toolkit/jobs?since=0", nil),
		"POST /api/toolkit/ai/preflight": static("/api/toolkit/ai/preflight", map[string]any{"tool": "upscale"}),
		"POST /api/toolkit/jobs/{id}/cancel": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/jobs/" + submitJob(t, a, u.Session(), "upscale") + "/cancel", nil}
		},
		"POST /api/toolkit/jobs/{id}/duplicate": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/jobs/" + submitJob(t, a, u.Session(), "upscale") + "/duplicate", map[string]string{}}
		},
		"GET /api/toolkit/develops": static("/api/toolkit/develops?state=all&limit=20", nil),
		"POST /api/toolkit/develops/{id}/cancel": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/develops/run." + submitJob(t, a, u.Session(), "upscale") + "/cancel", nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/jobs/submit":          auth.Member,
		"POST /api/toolkit/jobs/{id}/cancel":     auth.Member,
		"POST /api/toolkit/jobs/{id}/duplicate":  auth.Member,
		"POST /api/toolkit/develops/{id}/cancel": auth.Member,
	},
	optionalBody: []string{"POST /api/toolkit/jobs/{id}/duplicate"},
}

// submitForm is a submit of tool with one file in role and extra fields.
func submitForm(t testing.TB, tool, role string, data []byte, fields ...string) apptest.Form {
	t.Helper()
	parts := []apptest.Part{{Name: "tool", Value: tool}}
	if role != "" {
		parts = append(parts, apptest.Part{Name: role, Filename: role + ".png", Data: data})
	}
	for i := 0; i+1 < len(fields); i += 2 {
		parts = append(parts, apptest.Part{Name: fields[i], Value: fields[i+1]})
	}
	return apptest.Multipart(t, parts...)
}

// submitJob queues a job of tool (upscale or packshot) and returns its id.
func submitJob(t testing.TB, a *apptest.App, c apptest.Cred, tool string, fields ...string) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", c, submitForm(t, tool, "image", pngOf(t, 96, 64), fields...))
	if res.Status != http.StatusAccepted {
		t.Fatalf("submit %s: %d %s", tool, res.Status, res.Body)
	}
	var body struct{ JobID string }
	res.JSON(t, &body)
	return body.JobID
}

func houseBalance(t testing.TB, a *apptest.App, house string) ledger.Balance {
	t.Helper()
	b, err := a.DB.Balance(context.Background(), house)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// catalogRow is one tool's row of GET /api/toolkit/ai/billing/catalog, as
// the tests of which engine serves a tool read it. Engine is "null" where
// the row's engine is null (no engine serves the tool).
type catalogRow struct {
	Engine string
	Prices ledger.TierPrices
	Note   string
}

// catalog reads the catalog as c sees it, by tool.
func catalog(t testing.TB, a *apptest.App, c apptest.Cred) map[string]catalogRow {
	t.Helper()
	var body struct {
		Tools []struct {
			Tool   string
			Engine *string
			Prices ledger.TierPrices
			Note   string
		}
	}
	a.Do(t, "GET", "/api/toolkit/ai/billing/catalog", c, nil).JSON(t, &body)
	rows := make(map[string]catalogRow, len(body.Tools))
	for _, r := range body.Tools {
		row := catalogRow{Engine: "null", Prices: r.Prices, Note: r.Note}
		if r.Engine != nil {
			row.Engine = *r.Engine
		}
		rows[r.Tool] = row
	}
	return rows
}

func assetCount(t testing.TB, a *apptest.App, c apptest.Cred) int {
	t.Helper()
	var body struct{ Assets []any }
	a.Do(t, "GET", "/api/toolkit/assets", c, nil).JSON(t, &body)
	return len(body.Assets)
}

func TestJobSubmit(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		member, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		img := pngOf(t, 96, 64)
		gif := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
		big := make([]byte, 12<<20+10)
		tests := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"upscale", member, submitForm(t, "upscale", "image", img), 202, ""},
			{"packshot at 2k with options", member, submitForm(t, "packshot", "image", img, "quality", "2k", "bg", "#ffffff"), 202, ""},
			{"viewer may not spend", viewer, submitForm(t, "upscale", "image", img), 403, "FORBIDDEN"},
			{"unknown tool", member, submitForm(t, "levitate", "image", img), 400, "UNKNOWN_TOOL"},
			{"no tool", member, apptest.Multipart(t, apptest.Part{Name: "image", Filename: "a.png", Data: img}), 400, "UNKNOWN_TOOL"},
			{"no image", member, submitForm(t, "upscale", "", nil), 400, "NO_IMAGE"},
			{"a role the tool lacks", member, submitForm(t, "upscale", "garment", img), 400, "NO_IMAGE"},
			{"tryon without a garment", member, submitForm(t, "tryon", "model", img), 400, "NO_IMAGE"},
			{"empty image", member, submitForm(t, "upscale", "image", []byte{}), 400, "EMPTY_IMAGE"},
			{"gif is refused", member, submitForm(t, "upscale", "image", gif), 400, "BAD_FORM"},
			{"output is refused", member, submitForm(t, "upscale", "image", img, "output", "web-tile"), 400, "BAD_FORM"},
			{"not multipart", member, `{"tool":"upscale"}`, 400, "BAD_FORM"},
			{"bad quality", member, submitForm(t, "upscale", "image", img, "quality", "8k"), 400, "BAD_QUALITY"},
			{"too large", member, submitForm(t, "upscale", "image", big), 413, "IMAGE_TOO_LARGE"},
			{"no engine performs it", member, submitForm(t, "generate-character", "image", img), 503, "FAL_NOT_CONFIGURED"},
			{"color=blue", member, submitForm(t, "color-change", "image", img, "color", "blue"), 400, "BAD_OPTION"},
			{"a required option left out", member, submitForm(t, "fit-adjust", "image", img), 400, "BAD_OPTION"},
			{"an enum value outside", member, submitForm(t, "reframe", "image", img, "aspect", "4:5", "fill", "mirror"), 400, "BAD_OPTION"},
			{"bg=image without a background", member, submitForm(t, "packshot", "image", img, "bg", "image"), 422, "NO_INPUTS"},
			{"an unknown option name is kept", member, submitForm(t, "upscale", "image", img, "vibe", "sunny"), 202, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before, assets := houseBalance(t, a, owner.HouseID), assetCount(t, a, member)
				res := a.Do(t, "POST", "/api/toolkit/jobs/submit", tt.cred, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %q %s; want %d %q", res.Status, res.Code, res.Body, tt.wantStatus, tt.wantCode)
				}
				after := houseBalance(t, a, owner.HouseID)
				if res.Status != 202 && (after.Balance != before.Balance || after.Held != before.Held || assetCount(t, a, member) != assets) {
					t.Errorf("a refused submit changed something: balance %+v -> %+v, assets %d -> %d", before, after, assets, assetCount(t, a, member))
				}
			})
		}
		t.Run("BAD_OPTION names the option and its legal form", func(t *testing.T) {
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", member, submitForm(t, "color-change", "image", img, "color", "blue"))
			m := res.Map(t)
			if legal, _ := m["legal"].([]any); m["option"] != "color" || len(legal) != 1 || legal[0] != "#rrggbb" {
				t.Errorf("body %s; want option color, legal [#rrggbb]", res.Body)
			}
			res = a.Do(t, "POST", "/api/toolkit/jobs/submit", member, submitForm(t, "packshot", "image", img, "bg", "image"))
			if m := res.Map(t); m["option"] != "bg" || m["role"] != "background" {
				t.Errorf("body %s; want option bg, role background", res.Body)
			}
		})
		t.Run("a refused submit names the legal tools", func(t *testing.T) {
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", member, submitForm(t, "levitate", "image", img))
			if legal, _ := res.Map(t)["legal"].([]any); len(legal) < 10 {
				t.Errorf("legal = %v", res.Map(t)["legal"])
			}
		})
		t.Run("a submit says the tool field is missing, and which roles the tool takes", func(t *testing.T) {
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", member, apptest.Multipart(t, apptest.Part{Name: "image", Filename: "a.png", Data: img}))
			if m := res.Map(t); m["message"] != "The tool field is missing." || m["legal"] == nil {
				t.Errorf("no tool: %s", res.Body)
			}
			res = a.Do(t, "POST", "/api/toolkit/jobs/submit", member, submitForm(t, "packshot", "mask", img))
			if m := res.Map(t); m["message"] != "The tool packshot takes no mask input; it takes image and background." {
				t.Errorf("a role packshot lacks: %s", res.Body)
			}
		})
		t.Run("the hold equals the catalog price and the input became an asset", func(t *testing.T) {
			fresh := a.SignUp(t, "fresh")
			k := a.Key(t, fresh, "member")
			id := submitJob(t, a, k, "packshot", "quality", "2k")
			b := houseBalance(t, a, fresh.HouseID)
			if b.Held != 6 || b.Balance != 54 || len(b.Holds) != 1 || *b.Holds[0].JobID != id {
				t.Errorf("balance after a 2k packshot = %+v; want 6 held of 60", b)
			}
			if n := assetCount(t, a, k); n != 1 {
				t.Errorf("assets = %d; want the uploaded input", n)
			}
			j, err := a.DB.Job(context.Background(), fresh.HouseID, id)
			if err != nil || j.Params["bg"] != "" || j.Tier != "2k" || len(j.Inputs) != 1 || j.Inputs[0].Role != "image" {
				t.Errorf("stored job %+v %v", j, err)
			}
		})
	})
}

func TestJobSubmitRefusals(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		img := pngOf(t, 64, 64)

		t.Run("INSUFFICIENT_TOKENS holds and creates nothing", func(t *testing.T) {
			for i := 0; i < 3; i++ { // 3 x 18 of the 60 sign-up tokens
				a.Do(t, "POST", "/api/toolkit/jobs/submit", k, apptest.Multipart(t,
					apptest.Part{Name: "tool", Value: "tryon"}, apptest.Part{Name: "quality", Value: "4k"},
					apptest.Part{Name: "model", Filename: "m.png", Data: img}, apptest.Part{Name: "garment", Filename: "g.png", Data: img}))
			}
			assets := assetCount(t, a, k)
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "tryon"}, apptest.Part{Name: "quality", Value: "4k"},
				apptest.Part{Name: "model", Filename: "m.png", Data: img}, apptest.Part{Name: "garment", Filename: "g.png", Data: img},
				apptest.Part{Name: "garment", Filename: "g2.png", Data: img}))
			m := res.Map(t)
			if res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" || m["need"] != float64(18) || m["spendable"] != float64(6) || m["held"] != float64(54) {
				t.Fatalf("got %d %s; want 402 with need 18, spendable 6 and held 54", res.Status, res.Body)
			}
			if n := assetCount(t, a, k); n != assets {
				t.Errorf("the refused submit left %d input assets behind", n-assets)
			}
		})

		t.Run("IDEMPOTENCY_KEY_REUSED", func(t *testing.T) {
			fresh := a.SignUp(t, "idem")
			k := a.Key(t, fresh, "member")
			first := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", img, "idempotencyKey", "k1"))
			again := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", img, "idempotencyKey", "k1"))
			if first.Status != 202 || again.Status != 202 || first.Map(t)["jobId"] != again.Map(t)["jobId"] {
				t.Fatalf("retry: %d %s then %d %s; want the same job", first.Status, first.Body, again.Status, again.Body)
			}
			if b := houseBalance(t, a, fresh.HouseID); b.Held != 2 || len(b.Holds) != 1 {
				t.Errorf("a retry held again: %+v", b)
			}
			other := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", img, "idempotencyKey", "k1", "quality", "2k"))
			if other.Status != 409 || other.Code != "IDEMPOTENCY_KEY_REUSED" {
				t.Errorf("another request under the key: %d %s", other.Status, other.Body)
			}
			if n := assetCount(t, a, k); n != 1 {
				t.Errorf("assets = %d; want only the first submit's input", n)
			}
		})

		t.Run("SUBMIT_FAILED charges nothing", func(t *testing.T) {
			fresh := a.SignUp(t, "broken")
			k := a.Key(t, fresh, "member")
			// The job's row cannot be written (the table stays readable:
			// discarding the submit's input reads it).
			refuse := `CREATE TRIGGER jobs_refused BEFORE INSERT ON jobs BEGIN SELECT RAISE(ABORT, 'refused'); END`
			if e.DatabaseURL != "" {
				refuse = `ALTER TABLE jobs ADD CONSTRAINT jobs_refused CHECK (id = '') NOT VALID`
			}
			if _, err := a.DB.RawExec(context.Background(), refuse); err != nil {
				t.Fatal(err)
			}
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", img))
			if res.Status != 500 || res.Code != "SUBMIT_FAILED" {
				t.Errorf("got %d %s; want 500 SUBMIT_FAILED", res.Status, res.Body)
			}
			if b := houseBalance(t, a, fresh.HouseID); b.Held != 0 || b.Balance != 60 {
				t.Errorf("balance after a failed submit: %+v", b)
			}
			if n := assetCount(t, a, k); n != 0 {
				t.Errorf("a failed submit left %d assets", n)
			}
		})
	})
}

// TestJobIdempotencyRace: concurrent retries with one key collapse to one
// job and one hold.
func TestJobIdempotencyRace(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "racer")
		k := a.Key(t, owner, "member")
		img := pngOf(t, 32, 32)
		ids := make([]string, 8)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() {
				res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "upscale", "image", img, "idempotencyKey", "same"))
				if res.Status == 202 {
					ids[i], _ = res.Map(t)["jobId"].(string)
				} else {
					t.Errorf("retry %d: %d %s", i, res.Status, res.Body)
				}
			})
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("retries made different jobs: %v", ids)
			}
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held != 2 || len(b.Holds) != 1 {
			t.Errorf("held %+v; want one hold of 2", b)
		}
		if n := assetCount(t, a, k); n != 1 {
			t.Errorf("assets = %d; want one input (the losers' uploads are discarded)", n)
		}
	})
}

func TestJobsSince(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k := a.Key(t, owner, "viewer")
		first := submitJob(t, a, owner.Session(), "upscale")
		second := submitJob(t, a, owner.Session(), "packshot")
		submitJob(t, a, other.Session(), "upscale")
		var all JobsResult
		a.Do(t, "GET", "/api/toolkit/jobs", k, nil).JSON(t, &all)
		if len(all.Jobs) != 2 || all.Jobs[0].ID != first || all.Jobs[1].ID != second || all.Jobs[0].EventSeq >= all.Jobs[1].EventSeq {
			t.Fatalf("jobs = %+v; want the house's two, ascending by eventSeq", all.Jobs)
		}
		var after JobsResult
		a.Do(t, "GET", fmt.Sprintf("/api/toolkit/jobs?since=%d", all.Jobs[0].EventSeq), k, nil).JSON(t, &after)
		if len(after.Jobs) != 1 || after.Jobs[0].ID != second {
			t.Errorf("since the first: %+v", after.Jobs)
		}
		for _, bad := range []string{"-1", "abc", "1.5"} {
			if res := a.Do(t, "GET", "/api/toolkit/jobs?since="+bad, k, nil); res.Status != 400 || res.Code != "BAD_SINCE" {
				t.Errorf("since=%s: %d %s", bad, res.Status, res.Body)
			}
		}
	})
}

// JobsResult is GET /api/toolkit/jobs as tests read it.
type JobsResult struct {
	Jobs []struct {
		ID, Tool, Status, ResultURL, ResultAssetID string
		EventSeq                                   int64
		Error                                      *string
	}
}

func TestJobCancel(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		queued := submitJob(t, a, k, "packshot") // 4 tokens at 1k
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+queued+"/cancel", viewer, nil); res.Status != 403 {
			t.Errorf("viewer cancel: %d %s", res.Status, res.Body)
		}
		res := a.Do(t, "POST", "/api/toolkit/jobs/"+queued+"/cancel", k, nil)
		m := res.Map(t)
		if res.Status != 200 || m["cancelled"] != true || m["state"] != "cancelled" || m["tokensReleased"] != float64(4) || m["reason"] != nil {
			t.Fatalf("cancel queued: %d %s", res.Status, res.Body)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != 60 || b.Held != 0 {
			t.Errorf("balance after cancel: %+v", b)
		}
		again := a.Do(t, "POST", "/api/toolkit/jobs/"+queued+"/cancel", k, nil).Map(t)
		if again["cancelled"] != false || again["reason"] != "ALREADY_SETTLED" || again["tokensReleased"] != float64(0) {
			t.Errorf("second cancel: %v", again)
		}
		running := submitJob(t, a, k, "upscale")
		if _, ok, err := a.DB.Claim(context.Background(), "test-worker", time.Now().Add(time.Minute)); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		r := a.Do(t, "POST", "/api/toolkit/jobs/"+running+"/cancel", k, nil).Map(t)
		if r["cancelled"] != false || r["state"] != "running" || r["reason"] != "ALREADY_RENDERING" {
			t.Errorf("cancel running: %v", r)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held != 2 {
			t.Errorf("a rendering frame's hold was released: %+v", b)
		}
	})
}

func TestJobDuplicate(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		src := submitJob(t, a, k, "packshot", "quality", "2k", "bg", "#eeeeee")
		res := a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", k, map[string]string{"idempotencyKey": "dup-1"})
		m := res.Map(t)
		if res.Status != 202 || m["cost"] != float64(6) || m["status"] != "queued" || m["jobId"] == src {
			t.Fatalf("duplicate: %d %s", res.Status, res.Body)
		}
		dup, err := a.DB.Job(context.Background(), owner.HouseID, m["jobId"].(string))
		if err != nil || dup.Params["bg"] != "#eeeeee" || dup.Tier != "2k" || dup.Tool != "packshot" {
			t.Errorf("duplicate did not copy the params: %+v %v", dup, err)
		}
		replay := a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", k, map[string]string{"idempotencyKey": "dup-1"}).Map(t)
		if replay["jobId"] != m["jobId"] || replay["cost"] != float64(0) {
			t.Errorf("replayed duplicate: %v", replay)
		}
		other := submitJob(t, a, k, "upscale")
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+other+"/duplicate", k, map[string]string{"idempotencyKey": "dup-1"}); res.Code != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("a key reused for another frame: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", viewer, nil); res.Status != 403 {
			t.Errorf("viewer duplicate: %d", res.Status)
		}
		// Spend the rest, then a duplicate is refused with nothing held.
		for houseBalance(t, a, owner.HouseID).Balance >= 6 {
			a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", k, nil)
		}
		before := houseBalance(t, a, owner.HouseID)
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", k, nil); res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" ||
			res.Map(t)["need"] != float64(6) || res.Map(t)["spendable"] != float64(before.Balance) || res.Map(t)["held"] != float64(before.Held) {
			t.Errorf("broke duplicate: %d %s; want need 6, spendable %d, held %d", res.Status, res.Body, before.Balance, before.Held)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held {
			t.Errorf("a refused duplicate held tokens")
		}

		fresh := a.SignUp(t, "fresh")
		fk := a.Key(t, fresh, "member")
		gone := submitJob(t, a, fk, "upscale")
		j, _ := a.DB.Job(context.Background(), fresh.HouseID, gone)
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", fk, map[string]any{"assetIds": []string{j.Inputs[0].AssetID}})
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+gone+"/duplicate", fk, nil); res.Status != 422 || res.Code != "NO_INPUTS" {
			t.Errorf("inputs deleted: %d %s; want 422 NO_INPUTS", res.Status, res.Body)
		}
		ghost := job.Job{ID: "01900000-0000-7000-8000-000000000001", Tool: "generate-character", Status: job.Queued, HouseID: fresh.HouseID,
			UserID: fresh.ID, Tier: ledger.Tier1K, Params: map[string]string{}, Inputs: []job.Input{}, Fingerprint: "x", Cost: 6}
		if _, _, err := a.DB.SubmitJob(context.Background(), ghost); err != nil {
			t.Fatal(err)
		}
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+ghost.ID+"/duplicate", fk, nil); res.Status != 422 || res.Code != "UNKNOWN_TOOL" {
			t.Errorf("a tool no engine offers: %d %s; want 422 UNKNOWN_TOOL", res.Status, res.Body)
		}
		// A frame stored before its options were checked is checked when
		// it is developed again: refused, nothing held.
		live := submitJob(t, a, fk, "upscale")
		lj, _ := a.DB.Job(context.Background(), fresh.HouseID, live)
		old := job.Job{ID: "01900000-0000-7000-8000-000000000002", Tool: "color-change", Status: job.Done, HouseID: fresh.HouseID,
			UserID: fresh.ID, Tier: ledger.Tier1K, Params: map[string]string{"color": "blue"}, Inputs: lj.Inputs, Fingerprint: "y", Cost: 3}
		if _, _, err := a.DB.SubmitJob(context.Background(), old); err != nil {
			t.Fatal(err)
		}
		held := houseBalance(t, a, fresh.HouseID).Held
		if res := a.Do(t, "POST", "/api/toolkit/jobs/"+old.ID+"/duplicate", fk, nil); res.Status != 400 || res.Code != "BAD_OPTION" || res.Map(t)["option"] != "color" {
			t.Errorf("a frame with an illegal option: %d %s; want 400 BAD_OPTION", res.Status, res.Body)
		}
		if b := houseBalance(t, a, fresh.HouseID); b.Held != held {
			t.Errorf("a refused duplicate held %d tokens", b.Held-held)
		}
	})
}

func TestRuns(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		a1 := submitJob(t, a, k, "upscale", "runId", "spring")
		a2 := submitJob(t, a, k, "packshot", "runId", "spring")
		solo := submitJob(t, a, k, "packshot")
		if _, ok, _ := a.DB.Claim(context.Background(), "w", time.Now().Add(time.Minute)); !ok { // a1 starts rendering
			t.Fatal("nothing to claim")
		}
		var body struct {
			Runs []struct {
				ID, Kind, State string
				Counts          map[string]int
				JobIDs          []string
				AgainCost       *int64
			}
		}
		a.Do(t, "GET", "/api/toolkit/develops", k, nil).JSON(t, &body)
		if len(body.Runs) != 2 || body.Runs[0].ID != "run."+solo || body.Runs[1].ID != "run.spring" {
			t.Fatalf("runs = %+v", body.Runs)
		}
		spring := body.Runs[1]
		if spring.State != "developing" || spring.Counts["total"] != 2 || spring.Counts["active"] != 2 || *spring.AgainCost != 6 || spring.Kind != "batch" {
			t.Errorf("spring = %+v", spring)
		}
		for _, q := range []struct{ query, code string }{{"state=done", "BAD_STATE"}, {"limit=0", "BAD_LIMIT"}, {"limit=101", "BAD_LIMIT"}, {"limit=x", "BAD_LIMIT"}} {
			if res := a.Do(t, "GET", "/api/toolkit/develops?"+q.query, k, nil); res.Status != 400 || res.Code != q.code {
				t.Errorf("%s: %d %s", q.query, res.Status, res.Body)
			}
		}
		res := a.Do(t, "POST", "/api/toolkit/develops/run.spring/cancel", k, nil)
		m := res.Map(t)
		if res.Status != 200 || m["cancelled"] != true || m["stillRendering"] != float64(1) || m["tokensReleased"] != float64(4) {
			t.Fatalf("run cancel: %d %s", res.Status, res.Body)
		}
		if ids := m["cancelledJobIds"].([]any); len(ids) != 1 || ids[0] != a2 {
			t.Errorf("cancelled %v; want %s (and not the rendering %s)", ids, a2, a1)
		}
		var active struct{ Runs []struct{ ID string } }
		a.Do(t, "GET", "/api/toolkit/develops?state=active&limit=5", k, nil).JSON(t, &active)
		if len(active.Runs) != 2 {
			t.Errorf("active runs = %+v; want spring (rendering) and the solo run (queued)", active.Runs)
		}
		old := time.Now().Add(-31 * 24 * time.Hour).UnixMilli()
		if _, err := a.DB.RawExec(context.Background(), `UPDATE jobs SET created_at = ? WHERE id = ?`, old, solo); err != nil {
			t.Fatal(err)
		}
		if res := a.Do(t, "POST", "/api/toolkit/develops/run."+solo+"/cancel", k, nil); res.Status != 404 {
			t.Errorf("an aged-out run: %d %s; want 404", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/develops/run.spring/cancel", a.Key(t, owner, "viewer"), nil); res.Status != 403 {
			t.Errorf("viewer run cancel: %d", res.Status)
		}
	})
}

// TestDuplicateLookFrame: a look's develop is duplicated with its params
// (destination included) and a fresh hold of what the frame cost.
func TestDuplicateLookFrame(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "looker")
		k := a.Key(t, owner, "member")
		id := lookID(t, a, k)
		res := a.Do(t, "POST", looksPath(id, "/develop-lock"), k, map[string]any{"quality": "1k", "output": map[string]any{"destination": "web-tile"}})
		if res.Status != 202 {
			t.Fatalf("develop-lock: %d %s", res.Status, res.Body)
		}
		src := res.Map(t)["jobId"].(string)
		before := houseBalance(t, a, owner.HouseID)
		dup := a.Do(t, "POST", "/api/toolkit/jobs/"+src+"/duplicate", k, nil)
		m := dup.Map(t)
		if dup.Status != 202 || m["cost"] != float64(1) {
			t.Fatalf("duplicate a look frame: %d %s; want 202 costing the local proof's price, 1", dup.Status, dup.Body)
		}
		j, err := a.DB.Job(context.Background(), owner.HouseID, m["jobId"].(string))
		if err != nil || j.Tool != "lookbook" || j.Params["lookId"] != id || j.Params["destination"] != "web-tile" {
			t.Errorf("duplicate %+v %v; want the look's params copied", j, err)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held+1 {
			t.Errorf("held %d -> %d; want a fresh hold of 1", before.Held, after.Held)
		}
	})
}

// TestSubmitDocumentsOptions: the submit's description in /openapi.json
// names every option each tool reads, from the one declaration.
func TestSubmitDocumentsOptions(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "owner")
	var doc struct {
		Paths map[string]map[string]struct{ Description string }
	}
	a.Do(t, "GET", "/openapi.json", a.Key(t, owner, "viewer"), nil).JSON(t, &doc)
	desc := doc.Paths["/api/toolkit/jobs/submit"]["post"].Description
	for _, name := range tool.SubmitTools() {
		section := desc[strings.Index(desc, "**"+name+"**"):]
		if i := strings.Index(section[2:], "\n- **"); i >= 0 {
			section = section[:i+2]
		}
		for _, o := range tool.Options(name) {
			if o.Internal || o.ReadBy(tool.Service) {
				continue
			}
			if !strings.Contains(section, "`"+o.Name+"`") || (len(o.Legal) > 0 && !strings.Contains(section, o.Legal[0])) {
				t.Errorf("the submit's description does not document %s's %s: %q", name, o.Name, section)
			}
		}
	}
	if !strings.Contains(desc, "BAD_OPTION") || !strings.Contains(desc, "runId") {
		t.Errorf("description %q", desc)
	}
}
