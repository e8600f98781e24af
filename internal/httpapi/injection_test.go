package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ops"
)

// TestBrandRidesEveryDevelop is issue 13's injection tried as a new user
// and an operator would: enable injection, register marks, set standing
// notes, develop a packshot, and find the clause and the notes in scope in
// the job's recorded prompt and the marks (as pictures, with their
// material and placement) in its references, through the operators'
// develop read; a look frame, a redraw and a take carry them too; a
// collection's marks replace the house set whole. A mark is put in words
// only beside its picture, where the model is shown it (the look frame's
// brief): a packshot's or an upscale's prompt says nothing of it (issue 27).
func TestBrandRidesEveryDevelop(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "maison")
		k := owner.Session()
		if res := a.Do(t, "PATCH", "/api/toolkit/brand", k, map[string]any{"visionEn": "Quiet coastal tailoring in washed linen.",
			"vibe": []string{"calm", "sun-bleached"}, "palette": []string{"#f3ede2"}, "injectEnabled": true}); res.Status != 200 {
			t.Fatalf("patch brand: %d %s", res.Status, res.Body)
		}
		register := func(material, collection string, order int) {
			t.Helper()
			body := map[string]any{"assetId": markAsset(t, a, k), "material": material, "placement": "left chest", "sortOrder": order}
			if collection != "" {
				body["collectionId"] = collection
			}
			if res := a.Do(t, "POST", "/api/toolkit/brand/marks", k, body); res.Status != 201 {
				t.Fatalf("register: %d %s", res.Status, res.Body)
			}
		}
		register("gold foil wordmark", "", 1)
		register("blind-embossed monogram", "", 2)
		register("woven label", "", 3) // a third: at most two ride
		if res := a.Do(t, "POST", "/api/toolkit/standing-notes", k, map[string]any{"text": "Keep the seams straight.", "scopeTools": []string{"packshot"}}); res.Status != 201 {
			t.Fatalf("standing note: %d %s", res.Status, res.Body)
		}
		if res := a.Do(t, "POST", "/api/toolkit/standing-notes", k, map[string]any{"text": "Never crop the hem.", "scopeTools": []string{"upscale"}}); res.Status != 201 {
			t.Fatalf("standing note: %d %s", res.Status, res.Body)
		}

		// What each develop's provider was sent, as an operator reads it.
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		sent := func(id string) (string, []string, []job.Ref) {
			t.Helper()
			var body struct{ Develop ops.Develop }
			if res := a.Do(t, "GET", "/api/toolkit/admin/develops?id="+id, op.Session(), nil); res.Status != 200 {
				t.Fatalf("admin develop %s: %d %s", id, res.Status, res.Body)
			} else {
				res.JSON(t, &body)
			}
			d := body.Develop
			if d.Job.ID != id || d.House.ID != owner.HouseID || d.ProviderPrompt == nil {
				t.Fatalf("admin develop %s: %+v", id, d)
			}
			var refs []string
			for _, r := range d.ProviderRefs {
				refs = append(refs, r.Role+":"+r.Text)
			}
			return *d.ProviderPrompt, refs, d.ProviderRefs
		}

		id := submitWith(t, a, k, "packshot", garmentPNG(t, 64), "prompt", "On a linen drape.")
		developAll(t, a)
		prompt, refs, named := sent(id)
		clause := "House style: Quiet coastal tailoring in washed linen. Mood: calm, sun-bleached. Palette: #f3ede2."
		for _, w := range []string{clause, "Keep the seams straight.", "On a linen drape."} {
			if !strings.Contains(prompt, w) {
				t.Errorf("the packshot's recorded prompt lacks %q:\n%s", w, prompt)
			}
		}
		if strings.Contains(prompt, "gold foil") || strings.Contains(strings.ToLower(prompt), "logo") || strings.Contains(prompt, "Never crop the hem.") {
			t.Errorf("a mark's words or a note out of scope rode:\n%s", prompt)
		}
		// The local engine records what it would send: the input, then the marks.
		j, _ := a.DB.Job(context.Background(), owner.HouseID, id)
		if strings.Join(refs, "|") != "image:|mark:gold foil wordmark, placed left chest|mark:blind-embossed monogram, placed left chest" || named[0].AssetID != j.Inputs[0].AssetID ||
			named[1].AssetID == "" || named[1].AssetID == named[2].AssetID {
			t.Errorf("references %v %+v", refs, named)
		}
		if !(strings.Index(prompt, "House style") < strings.Index(prompt, "Keep the seams") &&
			strings.Index(prompt, "Keep the seams") < strings.Index(prompt, "On a linen drape.")) {
			t.Errorf("the parts are out of rank order:\n%s", prompt)
		}
		want(t, a.Do(t, "GET", "/api/toolkit/admin/develops?id="+uuid.NewString(), op.Session(), nil), 404, "NOT_FOUND")
		want(t, a.Do(t, "GET", "/api/toolkit/admin/develops?id="+id, k, nil), 403, "FORBIDDEN")

		// Looks, redraws and takes pass through the same director: each
		// carries the clause and the marks.
		carries := func(what, id string, words ...string) {
			t.Helper()
			prompt, refs, _ := sent(id)
			for _, w := range append([]string{clause}, words...) {
				if !strings.Contains(prompt, w) {
					t.Errorf("the %s's recorded prompt lacks %q:\n%s", what, w, prompt)
				}
			}
			if n := len(refs); n < 2 || refs[n-2] != "mark:gold foil wordmark, placed left chest" || refs[n-1] != "mark:blind-embossed monogram, placed left chest" {
				t.Errorf("the %s's references %v; want the marks last", what, refs)
			}
		}
		if err := a.DB.AddCredit(context.Background(), owner.HouseID, ledger.NewTopUp(100, "pay_inject")); err != nil {
			t.Fatal(err)
		}
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		shirt := upload(t, a, k, productJPEG(t, 200, 240), "kind", "clothes", "name", "Silk shirt")
		res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{"name": "Injected", "modelAssetId": model.ID,
			"itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top"}}, "background": map[string]string{"kind": "preset", "value": "studio-white"}, "aesthetic": "studio"})
		want(t, res, 201, "")
		var created struct{ Look wireLook }
		res.JSON(t, &created)
		want(t, a.Do(t, "POST", looksPath(created.Look.ID, "/develop-lock"), k, map[string]any{}), 202, "")
		developAll(t, a)
		var detail struct{ LockDevelop struct{ ID, Status string } }
		a.Do(t, "GET", looksPath(created.Look.ID), k, nil).JSON(t, &detail)
		// The local proof records the brief a generating provider would get:
		// the marks follow the model and the piece, named by position.
		carries("look frame", detail.LockDevelop.ID, "Image 1 is the model",
			"Image 3 is the house's logo rendition Wordmark, in gold foil wordmark, placed left chest; image 4 is the house's logo rendition Wordmark, in blind-embossed monogram, placed left chest.")

		res = a.Do(t, "POST", "/api/toolkit/judge/redraw", k, map[string]any{"jobId": mendableFrame(t, a, owner)})
		want(t, res, 202, "")
		redraw := res.Map(t)["jobId"].(string)
		res = a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": []string{judgedFrame(t, a, owner)}, "direction": "Warmer light."})
		var take wireTaken
		res.JSON(t, &take)
		if res.Status != 202 || len(take.Jobs) != 1 {
			t.Fatalf("take: %d %s", res.Status, res.Body)
		}
		developAll(t, a)
		carries("redraw", redraw, "Correct what the judge found", "Never crop the hem.")
		carries("take", take.Jobs[0].JobID, "Warmer light.", "Never crop the hem.")

		// A collection with its own mark: it replaces the house set; the
		// clause switched off, the marks still ride.
		res = a.Do(t, "POST", "/api/toolkit/folders", k, map[string]any{"name": "Resort"})
		folder := res.Map(t)["folder"].(map[string]any)["id"].(string)
		register("silver thread initials", folder, 1)
		if res := a.Do(t, "PATCH", "/api/toolkit/brand", k, map[string]any{"injectEnabled": false}); res.Status != 200 {
			t.Fatalf("patch brand: %d", res.Status)
		}
		id = submitWith(t, a, k, "upscale", garmentPNG(t, 72)) // new bytes: a new asset, not the earlier input reused
		// The input the submit filed is the newest asset: move it into the
		// collection before the develop runs.
		input := a.Do(t, "GET", "/api/toolkit/assets", k, nil).Map(t)["assets"].([]any)[0].(map[string]any)["id"].(string)
		if res := a.Do(t, "PATCH", "/api/toolkit/assets/"+input, k, map[string]any{"folderId": folder}); res.Status != 200 {
			t.Fatalf("move the input: %d %s", res.Status, res.Body)
		}
		developAll(t, a)
		prompt, refs, _ = sent(id)
		if strings.Contains(prompt, "House style") || strings.Contains(prompt, "silver thread") ||
			strings.Contains(prompt, "gold foil") || !strings.Contains(prompt, "Never crop the hem.") {
			t.Errorf("the collection's develop:\n%s", prompt)
		}
		if strings.Join(refs, "|") != "image:|mark:silver thread initials, placed left chest" {
			t.Errorf("references %v", refs)
		}
	})
}
