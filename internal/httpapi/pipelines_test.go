package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/pipeline"
)

// pipelinesWalk is the pipelines area's part of the route walk (walk_test.go).
var pipelinesWalk = walkArea{
	samples: map[string]sampleFunc{
		"GET /api/toolkit/pipelines/presets": static("/api/toolkit/pipelines/presets", nil),
		"POST /api/toolkit/pipelines/presets": func(*testing.T, *apptest.App, *apptest.User) request {
			return request{"/api/toolkit/pipelines/presets", map[string]any{"name": "Plan " + time.Now().Format(time.RFC3339Nano), "steps": threeSteps}}
		},
		"PATCH /api/toolkit/pipelines/presets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/presets/" + presetID(t, a, u), map[string]any{"name": "Renamed " + time.Now().Format(time.RFC3339Nano), "steps": threeSteps}}
		},
		"DELETE /api/toolkit/pipelines/presets/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/presets/" + presetID(t, a, u), nil}
		},
		"POST /api/toolkit/pipelines/preview": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/preview", map[string]any{"steps": threeSteps, "assetIds": []string{assetID(t, a, u)}}}
		},
		"GET /api/toolkit/pipelines/runs": static("/api/toolkit/pipelines/runs?limit=5", nil),
		"POST /api/toolkit/pipelines/runs": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/runs", map[string]any{"steps": cheapSteps, "assetIds": []string{assetID(t, a, u)}}}
		},
		"GET /api/toolkit/pipelines/runs/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/runs/" + pipelineRunID(t, a, u), nil}
		},
		"POST /api/toolkit/pipelines/runs/{id}/cancel": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/pipelines/runs/" + pipelineRunID(t, a, u) + "/cancel", nil}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/pipelines/presets":          auth.Member,
		"PATCH /api/toolkit/pipelines/presets/{id}":    auth.Member,
		"DELETE /api/toolkit/pipelines/presets/{id}":   auth.Member,
		"POST /api/toolkit/pipelines/runs":             auth.Member,
		"POST /api/toolkit/pipelines/runs/{id}/cancel": auth.Member,
	},
}

// threeSteps is the plan: remove the background, a packshot on
// white, then upscale to 4k.
var threeSteps = []map[string]any{
	{"tool": "remove-background"},
	{"tool": "packshot", "options": map[string]string{"bg": "white"}},
	{"tool": "upscale", "quality": "4k"},
}

// cheapSteps is a one-step plan for the samples: a 1k upscale (2 tokens).
var cheapSteps = []map[string]any{{"tool": "upscale"}}

// presetID saves a plan for u's house and returns its id.
func presetID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/pipelines/presets", u.Session(),
		map[string]any{"name": "Fixture " + time.Now().Format(time.RFC3339Nano), "steps": threeSteps})
	if res.Status != http.StatusCreated {
		t.Fatalf("save preset: %d %s", res.Status, res.Body)
	}
	var body struct{ Preset pipeline.Preset }
	res.JSON(t, &body)
	return body.Preset.ID
}

// pipelineRunID starts a one-step run for u's house and returns its id.
func pipelineRunID(t *testing.T, a *apptest.App, u *apptest.User) string {
	t.Helper()
	return startRun(t, a, u.Session(), map[string]any{"steps": cheapSteps, "assetIds": []string{assetID(t, a, u)}}).Run.ID
}

func startRun(t testing.TB, a *apptest.App, c apptest.Cred, body any) pipeline.Receipt {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/pipelines/runs", c, body)
	if res.Status != http.StatusAccepted {
		t.Fatalf("start run: %d %s", res.Status, res.Body)
	}
	var rec pipeline.Receipt
	res.JSON(t, &rec)
	return rec
}

func getRun(t testing.TB, a *apptest.App, c apptest.Cred, id string) pipeline.Run {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/pipelines/runs/"+id, c, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get run: %d %s", res.Status, res.Body)
	}
	var body struct{ Run pipeline.Run }
	res.JSON(t, &body)
	return body.Run
}

func checkLedger(t testing.TB, a *apptest.App, house string) {
	t.Helper()
	if err := a.DB.CheckLedger(context.Background(), house); err != nil {
		t.Fatalf("ledger audit: %v", err)
	}
}

// holdStates counts the run's frames' holds by state.
func holdStates(r pipeline.Run) (spent, released, pending int64) {
	return r.Tokens.Spent, r.Tokens.Released, r.Tokens.Pending
}

// TestPipelinePresets: a house saves, lists, replaces and deletes plans;
// every refusal of a plan, a name taken, a viewer and another house.
func TestPipelinePresets(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		c, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		res := a.Do(t, "POST", "/api/toolkit/pipelines/presets", c, map[string]any{"name": "  Catalogue  ", "steps": threeSteps})
		var made struct{ Preset pipeline.Preset }
		res.JSON(t, &made)
		p := made.Preset
		if res.Status != 201 || p.Name != "Catalogue" || len(p.Steps) != 3 || p.Steps[0].Quality != "1k" || p.Steps[2].Quality != "4k" ||
			p.Steps[1].Options["bg"] != "white" || p.CreatedByUserID == nil || *p.CreatedByUserID != owner.ID {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}

		preset := func(name string, steps any) map[string]any { return map[string]any{"name": name, "steps": steps} }
		seven := make([]map[string]any, 7)
		for i := range seven {
			seven[i] = map[string]any{"tool": "upscale"}
		}
		refusals := []struct {
			name   string
			cred   apptest.Cred
			body   any
			status int
			code   string
		}{
			{"viewer", viewer, preset("Viewer's", threeSteps), 403, "FORBIDDEN"},
			{"no name", c, preset("  ", threeSteps), 400, "NAME_REQUIRED"},
			{"no steps", c, preset("Empty", []any{}), 400, "STEPS_REQUIRED"},
			{"seven steps", c, preset("Long", seven), 400, "TOO_MANY_STEPS"},
			{"unknown tool", c, preset("Levitate", []any{map[string]any{"tool": "levitate"}}), 400, "UNKNOWN_TOOL"},
			{"bad quality", c, preset("8k", []any{map[string]any{"tool": "upscale", "quality": "8k"}}), 400, "BAD_QUALITY"},
			{"bad option", c, preset("Blue", []any{map[string]any{"tool": "color-change", "options": map[string]string{"color": "blue"}}}), 400, "BAD_OPTION"},
			{"a required option left out", c, preset("Fit", []any{map[string]any{"tool": "fit-adjust"}}), 400, "BAD_OPTION"},
			{"two inputs", c, preset("Tryon", []any{map[string]any{"tool": "tryon"}}), 400, "BAD_STEP"},
			{"a second input by option", c, preset("Ground", []any{map[string]any{"tool": "packshot", "options": map[string]string{"bg": "image"}}}), 400, "BAD_STEP"},
			{"after a video", c, preset("Video", []any{map[string]any{"tool": "lookbook-video"}, map[string]any{"tool": "upscale"}}), 400, "BAD_STEP"},
			{"name taken", c, preset("Catalogue", cheapSteps), 409, "NAME_TAKEN"},
		}
		for _, tc := range refusals {
			res := a.Do(t, "POST", "/api/toolkit/pipelines/presets", tc.cred, tc.body)
			if res.Status != tc.status || res.Code != tc.code {
				t.Errorf("%s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
			}
			if tc.code == "BAD_OPTION" && res.Map(t)["option"] == nil {
				t.Errorf("%s: %s; want the option and its legal values", tc.name, res.Body)
			}
			if strings.HasPrefix(tc.code, "BAD_") && tc.code != "BAD_QUALITY" && res.Map(t)["step"] != float64(0) && tc.name != "after a video" {
				t.Errorf("%s: %s; want the step's index", tc.name, res.Body)
			}
		}
		second := presetID(t, a, owner)
		var list struct{ Presets []pipeline.Preset }
		a.Do(t, "GET", "/api/toolkit/pipelines/presets", viewer, nil).JSON(t, &list)
		if len(list.Presets) != 2 || list.Presets[0].ID != second || list.Presets[1].ID != p.ID {
			t.Errorf("list: %+v; want both, newest first", list.Presets)
		}

		path := "/api/toolkit/pipelines/presets/" + p.ID
		res = a.Do(t, "PATCH", path, c, preset("Catalogue 2", cheapSteps))
		var replaced struct{ Preset pipeline.Preset }
		res.JSON(t, &replaced)
		if res.Status != 200 || replaced.Preset.Name != "Catalogue 2" || len(replaced.Preset.Steps) != 1 || replaced.Preset.CreatedAt != p.CreatedAt {
			t.Errorf("replace: %d %s", res.Status, res.Body)
		}
		patches := []struct {
			name   string
			cred   apptest.Cred
			path   string
			body   any
			status int
			code   string
		}{
			{"viewer", viewer, path, preset("X", cheapSteps), 403, "FORBIDDEN"},
			{"another house", a.Key(t, other, "member"), path, preset("X", cheapSteps), 404, "NOT_FOUND"},
			{"never existed", c, "/api/toolkit/pipelines/presets/0190a000-0000-7000-8000-000000000000", preset("X", cheapSteps), 404, "NOT_FOUND"},
			{"no name", c, path, preset("", cheapSteps), 400, "NAME_REQUIRED"},
			{"no steps", c, path, preset("X", nil), 400, "STEPS_REQUIRED"},
			{"seven steps", c, path, preset("X", seven), 400, "TOO_MANY_STEPS"},
			{"unknown tool", c, path, preset("X", []any{map[string]any{"tool": "levitate"}}), 400, "UNKNOWN_TOOL"},
			{"bad quality", c, path, preset("X", []any{map[string]any{"tool": "upscale", "quality": "3k"}}), 400, "BAD_QUALITY"},
			{"bad option", c, path, preset("X", []any{map[string]any{"tool": "reframe", "options": map[string]string{"aspect": "wide"}}}), 400, "BAD_OPTION"},
			{"two inputs", c, path, preset("X", []any{map[string]any{"tool": "harmonize"}}), 400, "BAD_STEP"},
			{"name of another preset", c, path, preset(list.Presets[0].Name, cheapSteps), 409, "NAME_TAKEN"},
		}
		for _, tc := range patches {
			res := a.Do(t, "PATCH", tc.path, tc.cred, tc.body)
			if res.Status != tc.status || res.Code != tc.code {
				t.Errorf("patch %s: %d %s; want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
			}
		}
		if got := a.Do(t, "GET", "/api/toolkit/pipelines/presets", c, nil); !strings.Contains(string(got.Body), "Catalogue 2") {
			t.Errorf("a refused patch changed the preset: %s", got.Body)
		}

		if res := a.Do(t, "DELETE", path, viewer, nil); res.Status != 403 {
			t.Errorf("viewer delete: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "DELETE", path, a.Key(t, other, "member"), nil); res.Status != 404 {
			t.Errorf("another house's delete: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "DELETE", path, c, nil); res.Status != 204 {
			t.Errorf("delete: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "DELETE", path, c, nil); res.Status != 404 || res.Code != "NOT_FOUND" {
			t.Errorf("delete twice: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/pipelines/presets", c, preset("Catalogue", cheapSteps)); res.Status != 201 {
			t.Errorf("the name of a deleted preset is free again: %d %s", res.Status, res.Body)
		}
		a.Do(t, "GET", "/api/toolkit/pipelines/presets", a.Key(t, other, "member"), nil).JSON(t, &list)
		if len(list.Presets) != 0 {
			t.Errorf("another house lists %d presets", len(list.Presets))
		}
	})
}

// TestPipelinePlanRefusals: preview and run refuse the same plans and
// assets the same way, before anything is held; preview prices a plan
// without holding and a viewer may preview.
func TestPipelinePlanRefusals(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		c, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		garment, foreign := assetID(t, a, owner), assetID(t, a, other)
		preset := presetID(t, a, owner)
		before := houseBalance(t, a, owner.HouseID)

		res := a.Do(t, "POST", "/api/toolkit/pipelines/preview", viewer, map[string]any{"presetId": preset, "assetIds": []string{garment, garment}})
		var pv pipeline.Preview
		res.JSON(t, &pv)
		if res.Status != 200 || pv.Assets != 1 || pv.Frames != 3 || pv.Total != 2+4+5 || pv.Steps[2].UnitPrice != 5 || pv.Steps[1].Tokens != 4 ||
			pv.Spendable != before.Balance || !pv.Affordable {
			t.Fatalf("preview: %d %s", res.Status, res.Body)
		}
		many := make([]string, pipeline.MaxAssets+1)
		for i := range many {
			many[i] = garment + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		cases := []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"no plan", map[string]any{"assetIds": []string{garment}}, 400, "STEPS_REQUIRED"},
			{"steps and a preset", map[string]any{"steps": cheapSteps, "presetId": preset, "assetIds": []string{garment}}, 400, "BAD_BODY"},
			{"seven steps", map[string]any{"steps": make([]map[string]any, 7), "assetIds": []string{garment}}, 400, "TOO_MANY_STEPS"},
			{"unknown tool", map[string]any{"steps": []any{map[string]any{"tool": "levitate"}}, "assetIds": []string{garment}}, 400, "UNKNOWN_TOOL"},
			{"bad quality", map[string]any{"steps": []any{map[string]any{"tool": "upscale", "quality": "8k"}}, "assetIds": []string{garment}}, 400, "BAD_QUALITY"},
			{"bad option", map[string]any{"steps": []any{map[string]any{"tool": "packshot", "options": map[string]string{"bg": "plaid"}}}, "assetIds": []string{garment}}, 400, "BAD_OPTION"},
			{"after a video", map[string]any{"steps": []any{map[string]any{"tool": "lookbook-video"}, map[string]any{"tool": "upscale"}}, "assetIds": []string{garment}}, 400, "BAD_STEP"},
			{"no assets", map[string]any{"steps": cheapSteps, "assetIds": []string{}}, 400, "ASSETS_REQUIRED"},
			{"too many assets", map[string]any{"steps": cheapSteps, "assetIds": many}, 400, "TOO_MANY_ASSETS"},
			{"another house's preset", map[string]any{"presetId": presetID(t, a, other), "assetIds": []string{garment}}, 404, "NOT_FOUND"},
			{"another house's asset", map[string]any{"steps": cheapSteps, "assetIds": []string{garment, foreign}}, 404, "ASSET_NOT_FOUND"},
			{"no engine here", map[string]any{"steps": []any{map[string]any{"tool": "generate-character"}}, "assetIds": []string{garment}}, 503, "FAL_NOT_CONFIGURED"},
		}
		for _, route := range []string{"/api/toolkit/pipelines/preview", "/api/toolkit/pipelines/runs"} {
			for _, tc := range cases {
				res := a.Do(t, "POST", route, c, tc.body)
				if res.Status != tc.status || res.Code != tc.code {
					t.Errorf("%s %s: %d %s; want %d %s", route, tc.name, res.Status, res.Body, tc.status, tc.code)
				}
			}
		}
		runs := "/api/toolkit/pipelines/runs"
		if res := a.Do(t, "POST", runs, viewer, map[string]any{"steps": cheapSteps, "assetIds": []string{garment}}); res.Status != 403 || res.Code != "FORBIDDEN" {
			t.Errorf("viewer run: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", runs, c, map[string]any{"steps": cheapSteps, "assetIds": []string{garment}, "idempotencyKey": strings.Repeat("k", 201)}); res.Status != 400 || res.Code != "BAD_IDEMPOTENCY_KEY" {
			t.Errorf("long key: %d %s", res.Status, res.Body)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance || b.Held != before.Held {
			t.Errorf("balance %+v after refusals and a preview; want %+v", b, before)
		}
		var list PipelineRunsList
		a.Do(t, "GET", runs, c, nil).JSON(t, &list)
		if len(list.Runs) != 0 {
			t.Errorf("refusals started %d runs", len(list.Runs))
		}

		// Short of tokens: 402 with need, spendable and held, nothing written.
		drain(t, a, owner.HouseID, 10)
		held := houseBalance(t, a, owner.HouseID).Held
		res = a.Do(t, "POST", runs, c, map[string]any{"presetId": preset, "assetIds": []string{garment}})
		m := res.Map(t)
		if res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" || m["need"] != float64(11) || m["spendable"] != float64(10) || m["held"] != float64(held) {
			t.Errorf("short: %d %s; want 402 need 11 spendable 10 held %d", res.Status, res.Body, held)
		}
		res = a.Do(t, "POST", "/api/toolkit/pipelines/preview", c, map[string]any{"presetId": preset, "assetIds": []string{garment}})
		res.JSON(t, &pv)
		if pv.Affordable || pv.Total != 11 || pv.Spendable != 10 {
			t.Errorf("preview when short: %s", res.Body)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != 10 || b.Held != held {
			t.Errorf("balance %+v after a 402", b)
		}
		a.Do(t, "GET", runs, c, nil).JSON(t, &list)
		if len(list.Runs) != 0 {
			t.Errorf("a 402 started %d runs", len(list.Runs))
		}

		// The list's query.
		for q, code := range map[string]string{"?limit=0": "BAD_LIMIT", "?limit=101": "BAD_LIMIT", "?before=nope": "BAD_CURSOR"} {
			if res := a.Do(t, "GET", runs+q, c, nil); res.Status != 400 || res.Code != code {
				t.Errorf("list %s: %d %s; want 400 %s", q, res.Status, res.Body, code)
			}
		}
		checkLedger(t, a, owner.HouseID)
	})
}

// PipelineRunsList is the list's body as tests read it.
type PipelineRunsList struct {
	Runs       []pipeline.Run
	NextCursor *string
}

// pipeGarments uploads n distinct product photos for u's house.
func pipeGarments(t *testing.T, a *apptest.App, c apptest.Cred, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = upload(t, a, c, productJPEG(t, 240+8*i, 320), "kind", "clothes").ID
	}
	return ids
}

// TestPipelineStory is the story: a director runs remove-background,
// a packshot on white and an upscale to 4k over three garments (the issue
// says five); every frame is held up front, each landed step feeds the
// next, and the balance moves by exactly the frames that ran. Then another run over five garments is
// cancelled half way: queued and waiting steps are released, the one
// rendering finishes and costs, and nothing follows it.
func TestPipelineStory(t *testing.T) {
	// The plan upscales to 4k (5 tokens a frame); under the race
	// detector a 4k frame is minutes of instrumented pixels, so the plan
	// upscales to 1k (2 tokens): the chain, the holds and the cancel are the
	// same.
	steps, upscale := threeSteps, int64(5)
	if raceEnabled {
		steps = slices.Clone(threeSteps)
		steps[2] = map[string]any{"tool": "upscale", "quality": "1k"}
		upscale = 2
	}
	frame := 2 + 4 + upscale // remove-background, packshot, upscale
	// The first run is over three garments, not the five: every
	// frame is a render of some seconds under -race, and three chains show
	// the holds, the feeding and the one develop run as well as five.
	const n, frames = 3, 3 * 3
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "director")
		c := a.Key(t, owner, "member")
		ids := pipeGarments(t, a, c, n)
		start := houseBalance(t, a, owner.HouseID)

		rec := startRun(t, a, c, map[string]any{"steps": steps, "assetIds": ids})
		r := rec.Run
		if r.State != "queued" || r.Tokens.Held != n*frame || r.Tokens.Pending != n*frame || r.Counts.Assets != n || r.Counts.Active != n ||
			r.Name != "Remove background → Packshot → Upscale" || r.DevelopRunID != "run."+r.ID || rec.Replayed {
			t.Fatalf("started: %+v", r)
		}
		for _, as := range r.Assets {
			if len(as.Steps) != 3 || as.Steps[0].Status != "queued" || as.Steps[0].JobID == nil || as.Steps[1].Status != "waiting" ||
				as.Steps[1].JobID != nil || as.State != "queued" {
				t.Fatalf("an asset at the start: %+v", as)
			}
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held != n*frame || b.Balance != start.Balance-n*frame || len(b.Holds) != frames {
			t.Fatalf("balance %+v; want all %d frames (%d tokens) held up front", b, frames, n*frame)
		}
		checkLedger(t, a, owner.HouseID)

		develop(t, a)
		r = getRun(t, a, c, r.ID)
		if r.State != "done" || r.Counts.Done != n || r.Tokens.Spent != n*frame || r.Tokens.Pending != 0 || r.Tokens.Released != 0 {
			t.Fatalf("after developing: %+v", r)
		}
		for i, as := range r.Assets {
			if as.AssetID != ids[i] || as.State != "done" || as.Step != 2 || as.ResultURL == nil || !strings.HasPrefix(*as.ResultURL, a.URL+"/api/toolkit/assets/") ||
				as.ResultAssetID == nil || *as.ResultAssetID != *as.Steps[2].ResultAssetID {
				t.Errorf("asset %d: %+v", i, as)
			}
			for s, st := range as.Steps {
				if st.Status != "done" || st.JobID == nil || st.ResultURL == nil {
					t.Errorf("asset %d step %d: %+v", i, s, st)
				}
			}
			// Each step was fed the frame the step before made.
			for s := 1; s < 3; s++ {
				j, err := a.DB.Job(context.Background(), owner.HouseID, *as.Steps[s].JobID)
				if err != nil {
					t.Fatal(err)
				}
				if len(j.Inputs) != 1 || j.Inputs[0].AssetID != *as.Steps[s-1].ResultAssetID || j.Params["runId"] != r.ID {
					t.Errorf("asset %d step %d's develop: inputs %+v params %v", i, s, j.Inputs, j.Params)
				}
			}
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != start.Balance-n*frame || b.Held != 0 {
			t.Errorf("balance %+v; want exactly the %d frames (%d tokens) spent", b, frames, n*frame)
		}
		var develops RunsBodyForTest
		a.Do(t, "GET", "/api/toolkit/develops?state=all", c, nil).JSON(t, &develops)
		found := false
		for _, d := range develops.Runs {
			if d.ID == r.DevelopRunID {
				found = d.Counts.Total == frames && d.Counts.Done == frames && d.State == "done"
			}
		}
		if !found {
			t.Errorf("develops %+v; want the pipeline's %d frames as one develop run %s", develops.Runs, frames, r.DevelopRunID)
		}
		checkLedger(t, a, owner.HouseID)

		// Another run, cancelled half way.
		if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewGrant(200, ledger.SourceAdmin, nil)); err != nil {
			t.Fatal(err)
		}
		more := pipeGarments(t, a, c, 5)
		before := houseBalance(t, a, owner.HouseID)
		r2 := startRun(t, a, c, map[string]any{"steps": steps, "assetIds": more}).Run
		for range 5 { // every garment's background removed; the packshots are queued
			if worked, err := a.Pool.One(context.Background(), "test-worker"); err != nil || !worked {
				t.Fatalf("worker: %v %v", worked, err)
			}
		}
		mid := getRun(t, a, c, r2.ID)
		if mid.State != "developing" || mid.Tokens.Spent != 10 {
			t.Fatalf("half way: %+v", mid)
		}
		// A worker claims one packshot and stops answering (a crash).
		rendering, ok, err := a.DB.Claim(context.Background(), "crashed-worker", time.Now())
		if err != nil || !ok || rendering.Tool != "packshot" {
			t.Fatalf("claim: %+v %v %v", rendering, ok, err)
		}
		res := a.Do(t, "POST", "/api/toolkit/pipelines/runs/"+r2.ID+"/cancel", c, nil)
		var cancelled pipeline.Cancelled
		res.JSON(t, &cancelled)
		if res.Status != 200 || len(cancelled.CancelledJobIDs) != 4 || cancelled.StillRendering != 1 || cancelled.TokensReleased != 4*4+5*upscale ||
			cancelled.Run.State != "developing" || cancelled.Run.CancelledAt == nil {
			t.Fatalf("cancel: %d %s", res.Status, res.Body)
		}
		again := a.Do(t, "POST", "/api/toolkit/pipelines/runs/"+r2.ID+"/cancel", c, nil)
		var twice pipeline.Cancelled
		again.JSON(t, &twice)
		if again.Status != 200 || len(twice.CancelledJobIDs) != 0 || twice.TokensReleased != 0 || !twice.Run.CancelledAt.Equal(cancelled.Run.CancelledAt.Time) {
			t.Errorf("cancel twice: %s", again.Body)
		}
		// The rescuer hands the lapsed packshot back; it renders, lands and
		// costs, and nothing follows it.
		if _, err := a.DB.Rescue(context.Background(), time.Now().Add(time.Hour), 3, func(string) time.Duration { return 24 * time.Hour }); err != nil {
			t.Fatal(err)
		}
		develop(t, a)
		r2 = getRun(t, a, c, r2.ID)
		spent, released, pending := holdStates(r2)
		if r2.State != "cancelled" || r2.Counts.Cancelled != 5 || spent != 5*2+4 || released != 4*4+5*upscale || pending != 0 {
			t.Errorf("after the cancel: %+v", r2)
		}
		ran := 0
		for _, as := range r2.Assets {
			if as.Steps[1].Status == "done" {
				ran++
				if as.Steps[2].Status != "dropped" || as.ResultAssetID != nil {
					t.Errorf("the packshot that finished after the cancel was followed: %+v", as)
				}
			}
		}
		if ran != 1 {
			t.Errorf("%d packshots ran; want the one rendering at the cancel", ran)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance-14 || b.Held != 0 {
			t.Errorf("balance %d -> %+v; want exactly the 6 frames that ran (14 tokens)", before.Balance, b)
		}
		checkLedger(t, a, owner.HouseID)

		// The list pages newest first.
		var page PipelineRunsList
		a.Do(t, "GET", "/api/toolkit/pipelines/runs?limit=1", c, nil).JSON(t, &page)
		if len(page.Runs) != 1 || page.Runs[0].ID != r2.ID || page.NextCursor == nil {
			t.Fatalf("first page: %+v", page)
		}
		a.Do(t, "GET", "/api/toolkit/pipelines/runs?limit=1&before="+*page.NextCursor, c, nil).JSON(t, &page)
		if len(page.Runs) != 1 || page.Runs[0].ID != r.ID || page.NextCursor != nil {
			t.Errorf("second page: %+v", page)
		}
		// Another house sees none of it.
		other := a.Key(t, a.SignUp(t, "other"), "member")
		for _, p := range []string{"/api/toolkit/pipelines/runs/" + r.ID} {
			if res := a.Do(t, "GET", p, other, nil); res.Status != 404 || res.Code != "NOT_FOUND" {
				t.Errorf("another house reads %s: %d %s", p, res.Status, res.Body)
			}
		}
		if res := a.Do(t, "POST", "/api/toolkit/pipelines/runs/"+r.ID+"/cancel", other, nil); res.Status != 404 {
			t.Errorf("another house cancels: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/pipelines/runs/"+r.ID+"/cancel", a.Key(t, owner, "viewer"), nil); res.Status != 403 {
			t.Errorf("a viewer cancels: %d %s", res.Status, res.Body)
		}
	})
}

// RunsBodyForTest is GET /api/toolkit/develops as tests read it.
type RunsBodyForTest struct {
	Runs []struct {
		ID     string
		State  string
		Counts struct{ Total, Done int }
	}
}

// TestPipelineFailingStep: when a step fails, the asset's later steps
// can no longer run: their holds are voided in the failing transaction,
// and the other assets go on.
func TestPipelineFailingStep(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "fails")
		c := a.Key(t, owner, "member")
		ids := pipeGarments(t, a, c, 2)
		before := houseBalance(t, a, owner.HouseID)
		steps := []map[string]any{{"tool": "upscale"}, {"tool": "upscale", "quality": "2k"}, {"tool": "reframe", "options": map[string]string{"aspect": "4:5"}}}
		r := startRun(t, a, c, map[string]any{"steps": steps, "assetIds": ids}).Run
		if r.Tokens.Held != 2*(2+3+3) {
			t.Fatalf("held %d", r.Tokens.Held)
		}
		// The second garment's bytes are gone: its first step fails.
		keys, err := a.DB.InputKeys(context.Background(), owner.HouseID, []job.Input{{Role: "image", AssetID: ids[1]}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Blobs.Delete(context.Background(), keys[0]); err != nil {
			t.Fatal(err)
		}
		develop(t, a)
		r = getRun(t, a, c, r.ID)
		ok, bad := r.Assets[0], r.Assets[1]
		if ok.State != "done" || bad.State != "failed" || bad.Steps[0].Status != "failed" || bad.Steps[0].Error == nil ||
			bad.Steps[1].Status != "dropped" || bad.Steps[2].Status != "dropped" || bad.Steps[1].JobID != nil {
			t.Fatalf("after a failing step: %+v", r.Assets)
		}
		if r.State != "done" || r.Counts.Done != 1 || r.Counts.Failed != 1 || r.Tokens.Spent != 8 || r.Tokens.Released != 8 || r.Tokens.Pending != 0 {
			t.Errorf("run: %+v", r)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance-8 || b.Held != 0 {
			t.Errorf("balance %+v; want only the garment that ran charged (8)", b)
		}
		checkLedger(t, a, owner.HouseID)

		// A run whose every asset fails is failed.
		r = startRun(t, a, c, map[string]any{"steps": cheapSteps, "assetIds": []string{ids[1]}}).Run
		develop(t, a)
		if r = getRun(t, a, c, r.ID); r.State != "failed" || r.Tokens.Released != 2 {
			t.Errorf("all failed: %+v", r)
		}
		checkLedger(t, a, owner.HouseID)
	})
}

// TestPipelineIdempotentRun: the same key returns the same run with no
// second hold, also when the retries race; the same key with another
// request is IDEMPOTENCY_KEY_REUSED and holds nothing.
func TestPipelineIdempotentRun(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "retry")
		c := a.Key(t, owner, "member")
		ids := pipeGarments(t, a, c, 2)
		body := map[string]any{"steps": threeSteps, "assetIds": ids, "idempotencyKey": "catalogue-1"}
		var wg sync.WaitGroup
		got := make([]pipeline.Receipt, 4)
		for i := range got {
			wg.Go(func() { got[i] = startRun(t, a, c, body) })
		}
		wg.Wait()
		replays := 0
		for _, g := range got {
			if g.Run.ID != got[0].Run.ID {
				t.Fatalf("retries made two runs: %s and %s", g.Run.ID, got[0].Run.ID)
			}
			if g.Replayed {
				replays++
			}
		}
		if replays != 3 {
			t.Errorf("%d replays; want 3 of 4", replays)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held != 22 {
			t.Errorf("held %d; want one run's 22", b.Held)
		}
		res := a.Do(t, "POST", "/api/toolkit/pipelines/runs", c, map[string]any{"steps": cheapSteps, "assetIds": ids, "idempotencyKey": "catalogue-1"})
		if res.Status != 409 || res.Code != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("key reused: %d %s", res.Status, res.Body)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held != 22 {
			t.Errorf("held %d after a reused key; want 22", b.Held)
		}
		checkLedger(t, a, owner.HouseID)
	})
}

// TestPipelineTwoWorkers: two workers develop a run at once; each landed
// step queues the next exactly once, and every hold ends posted once.
func TestPipelineTwoWorkers(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "busy")
		c := a.Key(t, owner, "member")
		ids := pipeGarments(t, a, c, 3)
		steps := []map[string]any{{"tool": "upscale"}, {"tool": "reframe", "options": map[string]string{"aspect": "4:5"}}}
		r := startRun(t, a, c, map[string]any{"steps": steps, "assetIds": ids}).Run
		var wg sync.WaitGroup
		for _, w := range []string{"worker-a", "worker-b"} {
			wg.Go(func() {
				for {
					worked, err := a.Pool.One(context.Background(), w)
					if err != nil {
						t.Errorf("%s: %v", w, err)
						return
					}
					if !worked {
						return
					}
				}
			})
		}
		wg.Wait()
		develop(t, a) // what a worker that found the queue empty left behind
		r = getRun(t, a, c, r.ID)
		if r.State != "done" || r.Counts.Done != 3 || r.Tokens.Spent != 3*(2+3) || r.Tokens.Pending != 0 {
			t.Fatalf("run: %+v", r)
		}
		var jobs JobsResult
		a.Do(t, "GET", "/api/toolkit/jobs?since=0", c, nil).JSON(t, &jobs)
		if len(jobs.Jobs) != 6 {
			t.Errorf("%d develops; want 6 (each step once)", len(jobs.Jobs))
		}
		checkLedger(t, a, owner.HouseID)
	})
}
