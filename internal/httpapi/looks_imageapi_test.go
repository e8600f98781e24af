package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/ledger"
)

// TestLookOnImageAPI: with only AI_IMAGE_BASE_URL configured, the image
// endpoint serves look frames and generate-character (the catalog says
// so); a look's lock and its variations are its answers at the tier's
// pixels, each edit carrying the brief's images and words; a refusal by
// its safety system fails the frame and charges nothing.
func TestLookOnImageAPI(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		srv.RequireKey("img-key")
		a := apptest.New(t, e, func(c *app.Config) { c.AIImageBaseURL, c.AIImageAPIKey = srv.URL, "img-key" })
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_img")); err != nil {
			t.Fatal(err)
		}
		rows := catalog(t, a, k)
		if rows["lookbook"].Engine != "image-api" || rows["generate-character"].Engine != "image-api" || rows["upscale"].Engine != "local" {
			t.Errorf("catalog engines: lookbook %s, generate-character %s, upscale %s; want lookbook and generate-character on image-api, upscale local",
				rows["lookbook"].Engine, rows["generate-character"].Engine, rows["upscale"].Engine)
		}

		colours := []color.NRGBA{{200, 40, 40, 255}, {40, 160, 60, 255}, {40, 60, 200, 255}}
		for _, c := range colours {
			img := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
			for i := 0; i < len(img.Pix); i += 4 {
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
			}
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			srv.AnswerImage(aitest.ImageAnswer{Image: b.Bytes()})
		}
		modelJ, shirtJ := modelJPEG(t), productJPEG(t, 200, 240)
		model := upload(t, a, k, modelJ, "kind", "model")
		shirt := upload(t, a, k, shirtJ, "kind", "clothes", "name", "Silk shirt")
		res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{
			"name": "Image API look", "modelAssetId": model.ID, "itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top"}},
			"background": map[string]string{"kind": "preset", "value": "garden"}, "aesthetic": "romantic",
		})
		want(t, res, http.StatusCreated, "")
		var created struct{ Look wireLook }
		res.JSON(t, &created)
		id := created.Look.ID
		want(t, a.Do(t, "POST", looksPath(id, "/develop-lock"), k, map[string]any{}), 202, "")
		develop(t, a)
		var detail struct {
			LockDevelop struct{ Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &detail)
		if detail.LockDevelop.Status != "done" {
			t.Fatalf("lock develop %+v", detail.LockDevelop)
		}
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID}), 200, "")
		want(t, a.Do(t, "POST", looksPath(id, "/variations"), k, map[string]any{"keys": []string{"close-up", "posture:pockets"},
			"controls": map[string]string{"weight": "left"}}), 202, "")
		develop(t, a)
		var full struct {
			Variations []struct {
				Key, Status string
				AssetID     *string
			}
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &full)
		frames := []string{detail.LockDevelop.ResultAssetID}
		for _, v := range full.Variations {
			if v.Status != "done" || v.AssetID == nil {
				t.Fatalf("variation %s: %s", v.Key, v.Status)
			}
			frames = append(frames, *v.AssetID)
		}
		edits := srv.Edits()
		if len(edits) != 3 {
			t.Fatalf("%d edits reached the endpoint; want 3", len(edits))
		}
		lockBytes := fileBytes(t, a, k, frames[0])
		for i, ed := range edits {
			first, words := modelJ, []string{"Image 1 is the model", "image 2 is the hero piece, a top: Silk shirt", "Garden, green foliage, out of focus", "romantic"}
			if i > 0 {
				first = lockBytes
				words = []string{"Image 1 is the locked look", map[int]string{1: "head-and-shoulders close-up",
					2: "posed: Both hands in pockets, relaxed shoulders; hands in pockets, relaxed shoulders; weight on the left leg"}[i]}
			}
			if ed.Path != "/v1/images/edits" || ed.Size != "1024x1024" || ed.N != "1" || ed.ImageField != "image[]" || len(ed.Images) != 2 ||
				!bytes.Equal(ed.Images[0], first) || !bytes.Equal(ed.Images[1], shirtJ) {
				t.Errorf("edit %d: %s size %s n %s %d images as %s", i, ed.Path, ed.Size, ed.N, len(ed.Images), ed.ImageField)
			}
			for _, w := range words {
				if !strings.Contains(ed.Prompt, w) {
					t.Errorf("edit %d: the prompt lacks %q:\n%s", i, w, ed.Prompt)
				}
			}
			img, _, err := image.Decode(bytes.NewReader(fileBytes(t, a, k, frames[i])))
			if err != nil {
				t.Fatal(err)
			}
			r, g, b, _ := img.At(512, 512).RGBA()
			c := colours[i]
			far := func(a uint32, b uint8) bool { return max(a>>8, uint32(b))-min(a>>8, uint32(b)) > 12 }
			if img.Bounds().Dx() != 1024 || img.Bounds().Dy() != 1024 || far(r, c.R) || far(g, c.G) || far(b, c.B) {
				t.Errorf("frame %d is %v centred %d,%d,%d; want the endpoint's answer %v at 1024x1024", i, img.Bounds(), r>>8, g>>8, b>>8, c)
			}
		}

		srv.AnswerImage(aitest.ImageAnswer{Err: &aitest.Error{Status: http.StatusBadRequest, Type: "image_generation_user_error",
			Code: "moderation_blocked", Message: "Your request was rejected as a result of our safety system."}})
		before := houseBalance(t, a, owner.HouseID)
		want(t, a.Do(t, "POST", looksPath(id, "/variations"), k, map[string]any{"keys": []string{"back"}}), 202, "")
		develop(t, a)
		var jobs JobsResult
		a.Do(t, "GET", "/api/toolkit/jobs?since=0", k, nil).JSON(t, &jobs)
		failed := 0
		for _, j := range jobs.Jobs {
			if j.Status == "failed" && j.Error != nil && strings.Contains(*j.Error, "safety check refused this picture") {
				failed++
			}
		}
		if after := houseBalance(t, a, owner.HouseID); failed != 1 || after.Balance != before.Balance || after.Held != before.Held {
			t.Errorf("refused frame: %d failed jobs, balance %+v -> %+v", failed, before, after)
		}
	})
}
