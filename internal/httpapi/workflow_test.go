package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/apptest"
	"studio/internal/judge"
	"studio/internal/ledger"
)

// TestSpendingRoutesFileTheirWorkflow walks every route that holds tokens
// and reads back the hold it took: a develop's hold is filed under the
// develop's tool, a lane's under the lane's name, so the account view's
// spend per workflow has no "other" (issue 26: a take's hold had none).
func TestSpendingRoutesFileTheirWorkflow(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		srv := aitest.New(t)
		a := apptest.New(t, e, withAI(srv))
		owner := a.SignUp(t, "spender")
		if err := a.DB.AddCredit(ctx, owner.HouseID, ledger.NewGrant(1000, ledger.SourceAdmin, nil)); err != nil {
			t.Fatal(err)
		}
		k := a.Key(t, owner, "member")
		img := upload(t, a, k, jpegOf(t, 96, 64), "kind", "clothes")
		disc := upload(t, a, k, subjectPNG(t, 160, 120), "kind", "clothes") // a subject the local engine separates
		type spent struct{ route, jobID, tool string }
		var develops []spent
		accepted := func(route, method, path string, body any, out any) {
			t.Helper()
			res := a.Do(t, method, path, k, body)
			if res.Status != http.StatusAccepted {
				t.Fatalf("%s: %d %s", route, res.Status, res.Body)
			}
			res.JSON(t, out)
		}
		var one struct{ JobID string }

		// First what must land: a look's lock develop (so the look can lock
		// and vary) and a pipeline, whose second step is queued, on the hold
		// taken for it, when the first lands.
		lk := lookID(t, a, k)
		accepted("develop-lock", "POST", looksPath(lk, "/develop-lock"), nil, &one)
		develops = append(develops, spent{"POST /api/toolkit/lookbook/looks/{id}/develop-lock", one.JobID, "lookbook"})
		lock := one.JobID
		pipe := startRun(t, a, k, map[string]any{"assetIds": []string{disc.ID},
			"steps": []map[string]any{{"tool": "remove-background"}, {"tool": "reframe", "options": map[string]string{"aspect": "4:5"}}}})
		stored, err := a.DB.PipelineRun(ctx, owner.HouseID, pipe.Run.ID)
		if err != nil || len(stored.Frames) != 2 {
			t.Fatalf("pipeline run: %+v %v", stored, err)
		}
		develops = append(develops, spent{"POST /api/toolkit/pipelines/runs", stored.Frames[0].JobID, "remove-background"},
			spent{"POST /api/toolkit/pipelines/runs (the step queued when the first lands)", stored.Frames[1].JobID, "reframe"})
		develop(t, a)
		var detail struct {
			LockDevelop struct{ ID, Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(lk), k, nil).JSON(t, &detail)
		if detail.LockDevelop.ID != lock || detail.LockDevelop.Status != "done" {
			t.Fatalf("the lock develop %+v", detail.LockDevelop)
		}
		if j, err := a.DB.Job(ctx, owner.HouseID, stored.Frames[1].JobID); err != nil || j.Status != "done" {
			t.Fatalf("the pipeline's second step: %+v %v", j, err)
		}
		want(t, a.Do(t, "POST", looksPath(lk, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID}), 200, "")
		var vars struct{ Jobs []struct{ Key, JobID string } }
		accepted("variations", "POST", looksPath(lk, "/variations"), map[string]any{"keys": []string{"front", "close-up"}}, &vars)
		for _, v := range vars.Jobs {
			develops = append(develops, spent{"POST /api/toolkit/lookbook/looks/{id}/variations", v.JobID, "lookbook"})
		}

		// The rest stay queued: their holds are read as taken.
		submitted := submitJob(t, a, k, "upscale")
		develops = append(develops, spent{"POST /api/toolkit/jobs/submit", submitted, "upscale"})

		started := connectMCP(t, a, k).ok(t, "start_develop", map[string]any{"tool": "iron", "inputs": map[string]any{"image": img.ID}})
		develops = append(develops, spent{"MCP start_develop", started["jobId"].(string), "iron"})

		accepted("duplicate", "POST", "/api/toolkit/jobs/"+submitted+"/duplicate", nil, &one)
		develops = append(develops, spent{"POST /api/toolkit/jobs/{id}/duplicate", one.JobID, "upscale"})

		// A crop the local engine mends with a wider one: a redraw it accepts.
		soft := developedFrame(t, a, owner, "harmonize", nil)
		writeVerdict(t, a, owner.HouseID, soft, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
			{Code: judge.CropCut, Where: "the piece touches the top edge", Confidence: judge.Sure}}})
		accepted("redraw", "POST", "/api/toolkit/judge/redraw", map[string]any{"jobId": soft}, &one)
		develops = append(develops, spent{"POST /api/toolkit/judge/redraw", one.JobID, "harmonize"})

		var taken wireTaken
		frames := []string{developedFrame(t, a, owner, "packshot", nil), developedFrame(t, a, owner, "camera-lens", nil)}
		accepted("takes", "POST", "/api/toolkit/takes", map[string]any{"jobIds": frames}, &taken)
		for i, tool := range []string{"packshot", "camera-lens"} {
			develops = append(develops, spent{"POST /api/toolkit/takes", taken.Jobs[i].JobID, tool})
		}

		// A factory run spends nothing; its looks develop through develop-lock.
		var run struct{ Looks []struct{ ID string } }
		before := houseBalance(t, a, owner.HouseID)
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		res := a.Do(t, "POST", "/api/toolkit/factory/run", k, map[string]any{"modelAssetId": model.ID,
			"looks": []map[string]any{{"name": "F", "variationKeys": []string{"front"}, "itemAssetIds": []map[string]any{{"assetId": img.ID, "role": "top"}}}}})
		if res.JSON(t, &run); res.Status != http.StatusCreated && res.Status != http.StatusOK || len(run.Looks) != 1 {
			t.Fatalf("factory run: %d %s", res.Status, res.Body)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held || after.Balance != before.Balance {
			t.Errorf("a factory run moved tokens: %+v -> %+v", before, after)
		}
		accepted("factory look develop-lock", "POST", looksPath(run.Looks[0].ID, "/develop-lock"), nil, &one)
		develops = append(develops, spent{"POST /api/toolkit/factory/run, then develop-lock", one.JobID, "lookbook"})

		for _, d := range develops {
			h, err := a.DB.JobHold(ctx, owner.HouseID, d.jobID)
			if err != nil || h.Workflow != d.tool {
				t.Errorf("%s: the hold of its %s develop is filed under %q (%v)", d.route, d.tool, h.Workflow, err)
			}
		}

		// The lanes file theirs under the lane's name.
		lanes := []string{"segment", "remove-background", "classify", "brand-dna"}
		want(t, a.Do(t, "POST", lanePath("segment"), k, map[string]any{"imageUrl": disc.ID, "box": []int{20, 0, 140, 120}}), 200, "")
		want(t, a.Do(t, "POST", lanePath("remove-background"), k, imagePart(t, subjectPNG(t, 160, 120))), 200, "")
		for l, answer := range goodAnswers {
			srv.Answer(answer)
			body := any(imagePart(t, exifJPEG(t, 40, 20, 6)))
			if v, ok := textLanes[l]; ok {
				body = v[0]
			} else if l == "face-features" {
				body = map[string]any{"imageUrl": img.ID}
			}
			want(t, a.Do(t, "POST", lanePath(l), k, body), 200, "")
			lanes = append(lanes, l)
		}
		srv.Answer(aitest.JSON(map[string]any{"kind": "clothes", "name": "Linen shirt", "fit": "regular", "wearer": nil}))
		upload(t, a, k, jpegOf(t, 40, 30), "classify", "1")
		for range 2 { // the first read is free, the second holds
			srv.Answer(aReading("Coastal tailoring."))
			readDNA(t, a, k, dnaForm(t, fivePhotos(t)[:2]))
		}
		for _, l := range lanes {
			var n int
			if err := a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE organization_id = '`+owner.HouseID+`' AND workflow = '`+l+`'`, &n); err != nil || n == 0 {
				t.Errorf("no hold is filed under the lane %s (%v)", l, err)
			}
		}
		var nameless int
		if err := a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM ledger_holds WHERE organization_id = '`+owner.HouseID+`' AND workflow = ''`, &nameless); err != nil || nameless != 0 {
			t.Errorf("%d holds are filed under no workflow (%v)", nameless, err)
		}
		for _, w := range accountView(t, a, owner.Session(), "").Tokens.ByWorkflow {
			if w.Workflow == "other" || w.Workflow == "" {
				t.Errorf("the account view files %d tokens under %q", w.Tokens, w.Workflow)
			}
		}
	})
}
