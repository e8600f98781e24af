package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	_ "image/jpeg"
	"net/http"
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/engine/fal/faltest"
	"studio/internal/ledger"
)

const falLookModel = "fal-ai/nano-banana-pro/edit"

// TestLookOnFal is issue 17's story with the fal stand-in serving looks:
// create a look, develop-lock, lock, ask for four variations with a posture
// key; each frame is the look model's answer at the tier's pixels, and each
// call carries the references and the directive. A refused frame fails
// plainly and charges nothing.
func TestLookOnFal(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := faltest.New(t, "test-fal")
		a := apptest.New(t, e, func(c *app.Config) { c.FalKey, c.FalURL = "test-fal", srv.URL })
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(200, "pay_fal")); err != nil {
			t.Fatal(err)
		}

		var catalog struct {
			Tools []struct {
				Tool   string
				Engine *string
				Note   string
				Prices ledger.TierPrices
			}
		}
		a.Do(t, "GET", "/api/toolkit/ai/billing/catalog", k, nil).JSON(t, &catalog)
		for _, row := range catalog.Tools {
			if row.Tool == "lookbook" && (row.Engine == nil || *row.Engine != "fal" || row.Note != "" || row.Prices != (ledger.TierPrices{K1: 8, K2: 12, K4: 18})) {
				t.Errorf("catalog lookbook row: engine %v note %q prices %+v; want fal without a proof note at 8/12/18", row.Engine, row.Note, row.Prices)
			}
			if row.Tool == "lookbook-video" && (row.Prices != (ledger.TierPrices{K1: 40, K2: 40, K4: 40}) || !strings.Contains(row.Note, "priced at 1k")) {
				t.Errorf("catalog lookbook-video row on fal: note %q prices %+v; want Kling's 720p priced at 1k at every quality, the note saying so", row.Note, row.Prices)
			}
		}

		modelJ, shirtJ, trousersJ := modelJPEG(t), productJPEG(t, 200, 240), productJPEG(t, 220, 300)
		model := upload(t, a, k, modelJ, "kind", "model")
		shirt := upload(t, a, k, shirtJ, "kind", "clothes", "name", "Silk shirt")
		trousers := upload(t, a, k, trousersJ, "kind", "clothes", "name", "Wide trousers")
		res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{
			"name": "Fal look", "modelAssetId": model.ID,
			"itemAssetIds": []map[string]any{{"assetId": trousers.ID, "role": "bottom"}, {"assetId": shirt.ID, "role": "top", "hero": true, "label": "Silk shirt"}},
			"background":   map[string]string{"kind": "preset", "value": "concrete"}, "aesthetic": "editorial",
		})
		want(t, res, http.StatusCreated, "")
		var created struct{ Look wireLook }
		res.JSON(t, &created)
		id := created.Look.ID

		res = a.Do(t, "POST", looksPath(id, "/develop-lock"), k, map[string]any{"quality": "1k", "output": "web-tile"})
		want(t, res, 202, "")
		if m := res.Map(t); m["tokens"] != 8.0 {
			t.Errorf("a generated look frame held %v; want the lookbook's 1k price, 8", m["tokens"])
		}
		develop(t, a)
		var detail struct {
			LockDevelop struct{ Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &detail)
		if detail.LockDevelop.Status != "done" {
			t.Fatalf("lock develop %+v", detail.LockDevelop)
		}
		lockFrame := detail.LockDevelop.ResultAssetID
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": lockFrame}), 200, "")
		keys := []string{"front", "walking", "detail", "posture:lean-wall"}
		res = a.Do(t, "POST", looksPath(id, "/variations"), k, map[string]any{"quality": "1k", "output": "web-tile",
			"keys": keys, "controls": map[string]string{"gaze": "away", "arms": "crossed"}})
		want(t, res, 202, "")
		develop(t, a)

		var full struct {
			Variations []struct {
				Key, Status string
				AssetID     *string
			}
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &full)
		frames := map[string]string{"lock": lockFrame}
		for _, v := range full.Variations {
			if v.Status != "done" || v.AssetID == nil {
				t.Fatalf("variation %s: %s", v.Key, v.Status)
			}
			frames[v.Key] = *v.AssetID
		}
		subs := srv.Of(falLookModel)
		if len(subs) != 5 || len(srv.Submits()) != 5 {
			t.Fatalf("fal was called %d times (%d on the look model); want 5 look calls", len(srv.Submits()), len(subs))
		}
		uri := func(b []byte) string { return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b) }
		lockBytes := fileBytes(t, a, k, lockFrame)
		for i, sub := range subs {
			urls, _ := sub.Input["image_urls"].([]any)
			prompt, _ := sub.Input["prompt"].(string)
			if sub.Input["aspect_ratio"] != "1:1" || sub.Input["resolution"] != "1K" || len(urls) != 3 {
				t.Errorf("call %d: aspect_ratio %v resolution %v with %d images", i, sub.Input["aspect_ratio"], sub.Input["resolution"], len(urls))
				continue
			}
			first := uri(modelJ)
			words := []string{"image 2 is the hero piece, a top: Silk shirt", "image 3 is a bottom: Wide trousers", "editorial fashion-magazine", "square frame of aspect 1:1"}
			key := "lock"
			if i == 0 {
				words = append(words, "Image 1 is the model", "The setting: Concrete, a raw concrete wall and floor")
			} else {
				first, key = uri(lockBytes), keys[i-1]
				words = append(words, "Image 1 is the locked look", map[string]string{
					"front":             "facing the camera, standing naturally",
					"walking":           "walking towards the camera mid-stride",
					"detail":            "tight detail shot of the hero piece: its fabric, construction and finish filling the frame (the hero piece, a top: Silk shirt)",
					"posture:lean-wall": "posed: Shoulder against a wall, crossed ankles; leaning a shoulder against a wall, ankles crossed; looking away from the camera, arms crossed",
				}[key])
			}
			if urls[0] != first || urls[1] != uri(shirtJ) || urls[2] != uri(trousersJ) {
				t.Errorf("%s: image_urls are not [%s, hero, other piece]", key, map[bool]string{true: "model", false: "locked base"}[i == 0])
			}
			for _, w := range words {
				if !strings.Contains(prompt, w) {
					t.Errorf("%s: the prompt lacks %q:\n%s", key, w, prompt)
				}
			}
			img, _, err := image.Decode(bytes.NewReader(fileBytes(t, a, k, frames[key])))
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			r, g, bl, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
			c := sub.Color
			far := func(a uint32, b uint8) bool { return max(a, uint32(b))-min(a, uint32(b)) > 12 }
			if b.Dx() != 1024 || b.Dy() != 1024 || far(r>>8, c.R) || far(g>>8, c.G) || far(bl>>8, c.B) {
				t.Errorf("%s: the frame is %dx%d centred %d,%d,%d; want the model's answer %v at 1024x1024", key, b.Dx(), b.Dy(), r>>8, g>>8, bl>>8, c)
			}
		}

		// A refused frame: the job fails with a plain reason and its hold is voided.
		srv.Answer(func(string, map[string]any) faltest.Answer { return faltest.Answer{NSFW: true} })
		before := houseBalance(t, a, owner.HouseID)
		res = a.Do(t, "POST", looksPath(id, "/variations"), k, map[string]any{"keys": []string{"back"}})
		want(t, res, 202, "")
		develop(t, a)
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &full)
		var back *struct {
			Key, Status string
			AssetID     *string
		}
		for i := range full.Variations {
			if full.Variations[i].Key == "back" {
				back = &full.Variations[i]
			}
		}
		var jobs JobsResult
		a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
		reason := ""
		for _, j := range jobs.Jobs {
			if j.Status == "failed" && j.Error != nil {
				reason = *j.Error
			}
		}
		if back == nil || back.Status != "failed" || back.AssetID != nil || !strings.Contains(reason, "safety check refused this picture") {
			t.Errorf("the refused frame: %+v, reason %q", back, reason)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != before.Held {
			t.Errorf("a refused frame moved the balance: %+v -> %+v", before, after)
		}
	})
}
