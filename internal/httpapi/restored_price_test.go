package httpapi_test

import (
	"context"
	"image"
	"net/http"
	"strings"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/engine/fal/faltest"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// TestRestoredThroughFal: with the image endpoint first in ENGINE_ORDER
// and FAL_KEY set, a character larger than the endpoint's answer goes
// through fal's upscale model, so the catalog lists generate-character at
// the tier's price with a note saying so, preflight quotes it, and a 2k
// develop is charged exactly 2k's price once, delivered at 2048 px from
// the restored picture. A pass fal loses fails the develop: nothing
// charged, the hold voided, fal's cancel sent. (Without fal the same
// develop is priced at 1k: TestPricedAtQualityDelivered.) SQLite only: no
// store statement here differs by engine.
func TestRestoredThroughFal(t *testing.T) {
	api := aitest.New(t)
	queue := faltest.New(t, "test-fal")
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) {
		c.AIImageBaseURL, c.AIImageAPIKey = api.URL, "img-key"
		c.FalKey, c.FalURL = "test-fal", queue.URL
		c.EngineOrder = []string{tool.ImageAPI, tool.Fal, tool.Fashn, tool.Local}
	})
	owner := a.SignUp(t, "restored")
	k := a.Key(t, owner, "member")
	if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_restored")); err != nil {
		t.Fatal(err)
	}
	const price = 9 // generate-character's 2k price (DECISIONS §4)
	if row := catalog(t, a, k)["generate-character"]; row.Engine != "image-api" || row.Prices != (ledger.TierPrices{K1: 6, K2: price, K4: 13}) ||
		!strings.Contains(row.Note, "restored to the quality asked by fal's upscale model") {
		t.Errorf("catalog row %+v; want the image endpoint at 6/9/13 with a note naming fal's restoration", row)
	}
	var quote preflightAnswer
	a.Do(t, "POST", "/api/toolkit/ai/preflight", k, map[string]any{"tool": "generate-character", "quality": "2k",
		"options": map[string]string{"prompt": "A tall model"}}).JSON(t, &quote)
	if !quote.OK || quote.Price == nil || *quote.Price != price || !strings.Contains(quote.Note, "fal's upscale model") {
		t.Errorf("preflight at 2k %+v; want ok at %d with the note", quote, price)
	}

	// The endpoint answers a quarter of the frame (its real answer is 1024
	// px; the rule is the same and the pixels fewer): fal restores it x4.
	api.AnswerImage(aitest.ImageAnswer{Image: pngOf(t, 512, 512)}, aitest.ImageAnswer{Image: pngOf(t, 512, 512)})
	before := houseBalance(t, a, owner.HouseID)
	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "generate-character", "", nil, "prompt", "A tall model", "quality", "2k")), http.StatusAccepted, "")
	develop(t, a)
	var jobs JobsResult
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	after := houseBalance(t, a, owner.HouseID)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Status != "done" || before.Balance-after.Balance != price || after.Held != before.Held {
		t.Fatalf("jobs %+v; balance %+v -> %+v; want one done and %d charged once", jobs.Jobs, before, after, price)
	}
	subs := queue.Submits()
	if len(subs) != 1 || subs[0].Model != "fal-ai/esrgan" || subs[0].Input["scale"] != 4.0 || !strings.HasPrefix(subs[0].Input["image_url"].(string), "data:image/png;base64,") {
		t.Errorf("fal was sent %+v; want the endpoint's answer once to the upscale model at scale 4", subs)
	}
	img, _, err := image.DecodeConfig(strings.NewReader(string(fileBytes(t, a, k, jobs.Jobs[0].ResultAssetID))))
	if err != nil || img.Width != 2048 || img.Height != 2048 {
		t.Errorf("result %dx%d (%v); want the restored answer at 2048x2048", img.Width, img.Height, err)
	}

	// fal takes the second pass and its status cannot be read: the
	// develop fails, nothing is charged, and fal is told to cancel.
	queue.Answer(func(string, map[string]any) faltest.Answer { return faltest.Answer{Lost: true} })
	want(t, a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "generate-character", "", nil, "prompt", "A tall model", "quality", "2k")), http.StatusAccepted, "")
	develop(t, a)
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	final := houseBalance(t, a, owner.HouseID)
	failed := 0
	for _, j := range jobs.Jobs {
		if j.Status == "failed" && j.Error != nil && strings.Contains(*j.Error, "Nothing was charged") {
			failed++
		}
	}
	subs = queue.Submits()
	if failed != 1 || final.Balance != after.Balance || final.Held != before.Held {
		t.Errorf("jobs %+v; balance %+v -> %+v; want the second failed, nothing charged, its hold voided", jobs.Jobs, after, final)
	}
	if c := queue.Cancelled(); len(subs) != 2 || len(c) != 1 || c[0] != subs[1].ID {
		t.Errorf("cancels %v of %+v; want the lost pass cancelled", c, subs)
	}
}
