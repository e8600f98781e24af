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
	"studio/internal/ledger"
)

// TestPricedAtQualityDelivered: with only the image endpoint configured
// (it answers at most 1536 px), a 2k character is its answer enlarged, so
// the catalog lists generate-character at 1k's price at every quality and
// says why, preflight quotes that price, and a 2k develop holds and
// settles exactly that, delivered at 2k's pixels. SQLite only: no store
// statement here differs by engine.
func TestPricedAtQualityDelivered(t *testing.T) {
	srv := aitest.New(t)
	a := apptest.New(t, apptest.SQLite(t), func(c *app.Config) { c.AIImageBaseURL, c.AIImageAPIKey = srv.URL, "img-key" })
	owner := a.SignUp(t, "native")
	k := a.Key(t, owner, "member")
	if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_native")); err != nil {
		t.Fatal(err)
	}
	const price = 6 // generate-character's 1k price (DECISIONS §4)
	if row := catalog(t, a, k)["generate-character"]; row.Prices != (ledger.TierPrices{K1: price, K2: price, K4: price}) || !strings.Contains(row.Note, "priced at 1k") {
		t.Errorf("catalog row %+v; want %d at every quality and a note saying it is priced at 1k", row, price)
	}
	var quote preflightAnswer
	a.Do(t, "POST", "/api/toolkit/ai/preflight", k, map[string]any{"tool": "generate-character", "quality": "4k",
		"options": map[string]string{"prompt": "A tall model"}}).JSON(t, &quote)
	if !quote.OK || quote.Price == nil || *quote.Price != price || !strings.Contains(quote.Note, "priced at 1k") {
		t.Errorf("preflight at 4k %+v; want ok at %d with the note", quote, price)
	}

	srv.AnswerImage(aitest.ImageAnswer{Image: pngOf(t, 1024, 1024)})
	before := houseBalance(t, a, owner.HouseID)
	res := a.Do(t, "POST", "/api/toolkit/jobs/submit", k, submitForm(t, "generate-character", "", nil, "prompt", "A tall model", "quality", "2k"))
	want(t, res, http.StatusAccepted, "")
	if held := houseBalance(t, a, owner.HouseID); held.Held != before.Held+price {
		t.Errorf("held %d at submit; want %d", held.Held-before.Held, price)
	}
	develop(t, a)
	var jobs JobsResult
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
	after := houseBalance(t, a, owner.HouseID)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Status != "done" || before.Balance-after.Balance != price || after.Held != before.Held {
		t.Fatalf("jobs %+v; balance %+v -> %+v; want one done and %d charged once", jobs.Jobs, before, after, price)
	}
	img, _, err := image.DecodeConfig(strings.NewReader(string(fileBytes(t, a, k, jobs.Jobs[0].ResultAssetID))))
	if err != nil || img.Width != 2048 || img.Height != 2048 {
		t.Errorf("result %dx%d (%v); want the answer enlarged to 2048x2048", img.Width, img.Height, err)
	}
}
