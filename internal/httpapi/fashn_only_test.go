package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/engine/fashn/fashntest"
	"studio/internal/ledger"
)

// TestOnlyFashn: with only FASHN_API_KEY set (its stand-in on FASHN_URL),
// the catalog names fashn for every tool FASHN performs and the local
// engine for the others, so every tool is served; a try-on develops on
// tryon-max and is charged the catalog's price once; a 2k lookbook-video
// is FASHN's 1080p image-to-video, priced at 1k (the quality delivered,
// as the catalog's note says), its MP4 stored and charged once; a look's
// lock frame is tryon-max with the cast model, its two variations
// product-to-model, a character model-create and a background removal
// background-remove, each done and charged the catalog's price once.
// SQLite only: no store statement here differs by engine.
func TestOnlyFashn(t *testing.T) {
	srv := fashntest.New(t, "fashn-key")
	srv.Answer(func(string, map[string]any) fashntest.Answer { return fashntest.Answer{Ready: true} })
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) { c.FashnKey, c.FashnURL = "fashn-key", srv.URL })
	owner := a.SignUp(t, "fashn")
	k := a.Key(t, owner, "member")
	if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_fashn")); err != nil {
		t.Fatal(err)
	}
	rows := catalog(t, a, k)
	for tool, want := range map[string]string{"tryon": "fashn", "lookbook": "fashn", "generate-character": "fashn", "remove-background": "fashn",
		"reframe": "fashn", "iron": "fashn", "color-change": "fashn", "fit-adjust": "fashn", "camera-lens": "fashn",
		"upscale": "local", "packshot": "local", "harmonize": "local", "cleanup": "local", "lookbook-video": "fashn"} {
		if rows[tool].Engine != want {
			t.Errorf("catalog: %s on %s; want %s", tool, rows[tool].Engine, want)
		}
	}
	if row := rows["lookbook-video"]; row.Prices != (ledger.TierPrices{K1: 40, K2: 40, K4: 40}) || !strings.Contains(row.Note, "priced at 1k") {
		t.Errorf("lookbook-video costs %+v with the note %q; want 40 at every quality, the note saying why", row.Prices, row.Note)
	}

	before := houseBalance(t, a, owner.HouseID)
	tryon := apptest.Multipart(t, apptest.Part{Name: "tool", Value: "tryon"},
		apptest.Part{Name: "model", Filename: "model.jpg", Data: modelJPEG(t)},
		apptest.Part{Name: "garment", Filename: "shirt.jpg", Data: productJPEG(t, 200, 240)})
	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, tryon), http.StatusAccepted, "")
	develop(t, a)
	var jobs JobsResult
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	after := houseBalance(t, a, owner.HouseID)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Status != "done" || before.Balance-after.Balance != rows["tryon"].Prices.K1 || after.Held != 0 {
		t.Fatalf("jobs %+v; balance %+v -> %+v; want the try-on done and %d charged once", jobs.Jobs, before, after, rows["tryon"].Prices.K1)
	}
	if runs := srv.Runs(); len(runs) != 1 || runs[0].Model != "tryon-max" {
		t.Errorf("FASHN ran %+v; want one tryon-max prediction", runs)
	}

	video := submitForm(t, "lookbook-video", "image", productJPEG(t, 200, 240), "quality", "2k")
	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, video), http.StatusAccepted, "")
	develop(t, a)
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	last := houseBalance(t, a, owner.HouseID)
	if len(jobs.Jobs) != 2 || jobs.Jobs[0].Status != "done" || jobs.Jobs[1].Status != "done" || after.Balance-last.Balance != 40 || last.Held != 0 {
		t.Fatalf("jobs %+v; balance %+v -> %+v; want the video done and 40 charged once", jobs.Jobs, after, last)
	}
	if runs := srv.Runs(); len(runs) != 2 || runs[1].Model != "image-to-video" || runs[1].Inputs["resolution"] != "1080p" {
		t.Errorf("FASHN ran %+v; want image-to-video at 1080p after the try-on", runs)
	}

	look := fashnLook(t, a, k)
	spent := func(from ledger.Balance, what string, tokens int64) ledger.Balance {
		t.Helper()
		now := houseBalance(t, a, owner.HouseID)
		if from.Balance-now.Balance != tokens || now.Held != 0 {
			t.Fatalf("%s: balance %+v -> %+v; want %d charged once, nothing held", what, from, now, tokens)
		}
		return now
	}
	res := a.Do(t, "POST", looksPath(look, "/develop-lock"), k, map[string]any{"quality": "1k", "output": "web-tile"})
	want(t, res, http.StatusAccepted, "")
	develop(t, a)
	var detail struct {
		LockDevelop struct{ Status, ResultAssetID string }
	}
	a.Do(t, "GET", looksPath(look), k, nil).JSON(t, &detail)
	if detail.LockDevelop.Status != "done" {
		t.Fatalf("lock develop %+v; want done", detail.LockDevelop)
	}
	last = spent(last, "the lock frame", rows["lookbook"].Prices.K1)
	want(t, a.Do(t, "POST", looksPath(look, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID}), http.StatusOK, "")
	res = a.Do(t, "POST", looksPath(look, "/variations"), k, map[string]any{"quality": "1k", "output": "web-tile", "keys": []string{"front", "walking"}})
	want(t, res, http.StatusAccepted, "")
	develop(t, a)
	var full struct {
		Variations []struct{ Key, Status string }
	}
	a.Do(t, "GET", looksPath(look), k, nil).JSON(t, &full)
	if len(full.Variations) != 2 || full.Variations[0].Status != "done" || full.Variations[1].Status != "done" {
		t.Fatalf("variations %+v; want two done", full.Variations)
	}
	last = spent(last, "two variations", 2*rows["lookbook"].Prices.K1)

	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "generate-character", "", nil, "prompt", "A tall model in a grey coat")), http.StatusAccepted, "")
	develop(t, a)
	last = spent(last, "a character", rows["generate-character"].Prices.K1)
	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "remove-background", "image", productJPEG(t, 200, 240))), http.StatusAccepted, "")
	develop(t, a)
	spent(last, "a background removal", rows["remove-background"].Prices.K1)

	var models []string
	for _, r := range srv.Runs()[2:] {
		models = append(models, r.Model)
	}
	if got := strings.Join(models, " "); got != "tryon-max product-to-model product-to-model model-create background-remove" {
		t.Errorf("FASHN ran %q after the try-on and the video; want the lock frame on tryon-max, two variations on product-to-model, model-create, background-remove", got)
	}
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	for _, j := range jobs.Jobs {
		if j.Status != "done" {
			t.Errorf("job %s (%s) is %s; want every develop done", j.ID, j.Tool, j.Status)
		}
	}
}

// fashnLook uploads a cast model and a shirt and composes a look of them;
// it returns the look's id.
func fashnLook(t *testing.T, a *apptest.App, k apptest.Cred) string {
	t.Helper()
	model := upload(t, a, k, modelJPEG(t), "kind", "model")
	shirt := upload(t, a, k, productJPEG(t, 200, 240), "kind", "clothes", "name", "Silk shirt")
	res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{
		"name": "FASHN look", "modelAssetId": model.ID,
		"itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top", "hero": true, "label": "Silk shirt"}},
		"background":   map[string]string{"kind": "preset", "value": "concrete"}, "aesthetic": "editorial",
	})
	want(t, res, http.StatusCreated, "")
	var created struct{ Look wireLook }
	res.JSON(t, &created)
	return created.Look.ID
}
