package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"studio/internal/apptest"
)

// TestBrandRidesEveryDevelop: the brand clause (while enabled), the riding
// marks (as references with their material) and the standing notes in
// scope are in the direction recorded on each develop, the collection's
// marks replacing the house set whole.
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

		direction := func(id string) (string, []string) {
			t.Helper()
			d, ok, err := a.DB.JobDirection(context.Background(), owner.HouseID, id)
			if err != nil || !ok {
				t.Fatalf("direction of %s: %v %v", id, ok, err)
			}
			var refs []string
			for _, r := range d.Refs {
				refs = append(refs, r.Role+":"+r.Text)
			}
			return d.Prompt, refs
		}

		id := submitWith(t, a, k, "packshot", garmentPNG(t, 64), "prompt", "On a linen drape.")
		developAll(t, a)
		prompt, refs := direction(id)
		clause := "House style: Quiet coastal tailoring in washed linen. Mood: calm, sun-bleached. Palette: #f3ede2."
		for _, w := range []string{clause, "reproduced exactly in gold foil wordmark, placed left chest.",
			"reproduced exactly in blind-embossed monogram", "Keep the seams straight.", "On a linen drape."} {
			if !strings.Contains(prompt, w) {
				t.Errorf("the packshot's recorded prompt lacks %q:\n%s", w, prompt)
			}
		}
		if strings.Contains(prompt, "woven label") || strings.Contains(prompt, "Never crop the hem.") {
			t.Errorf("a third mark or a note out of scope rode:\n%s", prompt)
		}
		if strings.Join(refs, "|") != "mark:gold foil wordmark|mark:blind-embossed monogram" {
			t.Errorf("references %v", refs)
		}
		if !(strings.Index(prompt, "House style") < strings.Index(prompt, "gold foil") &&
			strings.Index(prompt, "gold foil") < strings.Index(prompt, "Keep the seams") &&
			strings.Index(prompt, "Keep the seams") < strings.Index(prompt, "On a linen drape.")) {
			t.Errorf("the parts are out of rank order:\n%s", prompt)
		}

		// A collection with its own mark: it replaces the house set; the
		// clause switched off, the marks still ride.
		res := a.Do(t, "POST", "/api/toolkit/folders", k, map[string]any{"name": "Resort"})
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
		prompt, refs = direction(id)
		if strings.Contains(prompt, "House style") || !strings.Contains(prompt, "silver thread initials") ||
			strings.Contains(prompt, "gold foil") || !strings.Contains(prompt, "Never crop the hem.") {
			t.Errorf("the collection's develop:\n%s", prompt)
		}
		if strings.Join(refs, "|") != "mark:silver thread initials" {
			t.Errorf("references %v", refs)
		}
	})
}
