package httpapi_test

import (
	"net/http"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/apptest"
)

// TestExtractBuild: extract-build (DECISIONS §11) reads a drawn
// full-length figure's proportions for the lane's 1 token, the vision
// endpoint adding the height it reads; a picture with no full-length
// figure is 422 NO_FIGURE and free; every refusal changes nothing.
func TestExtractBuild(t *testing.T) {
	srv := aitest.New(t)
	a := apptest.New(t, apptest.SQLite(t), withAI(srv))
	owner := a.SignUp(t, "builds")
	k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
	figure := upload(t, a, k, figureJPEG(t, 180, 320), "kind", "model").ID
	cup := upload(t, a, k, productJPEG(t, 160, 200), "kind", "clothes").ID
	path := lanePath("extract-build")

	before := houseBalance(t, a, owner.HouseID)
	for _, tc := range []struct {
		name   string
		cred   apptest.Cred
		body   any
		status int
		code   string
	}{
		{"a viewer", viewer, map[string]any{"assetId": figure}, 403, "FORBIDDEN"},
		{"no asset", k, map[string]any{}, 400, "ASSET_REQUIRED"},
		{"a number for an id", k, map[string]any{"assetId": 7}, 400, "BAD_BODY"},
		{"an unknown asset", k, map[string]any{"assetId": "01a2265d-0000-7000-8000-000000000000"}, 404, "ASSET_NOT_FOUND"},
		{"not an id", k, map[string]any{"assetId": "../etc"}, 404, "ASSET_NOT_FOUND"},
		{"a product", k, map[string]any{"assetId": cup}, 422, "NO_FIGURE"},
	} {
		t.Run(tc.name, func(t *testing.T) { want(t, a.Do(t, "POST", path, tc.cred, tc.body), tc.status, tc.code) })
	}
	if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance || b.Held != before.Held {
		t.Errorf("refusals moved the balance: %+v -> %+v", before, b)
	}

	srv.Answer(aitest.JSON(map[string]any{"fullLength": true, "heightCm": 176.4}))
	res := a.Do(t, "POST", path, k, map[string]any{"assetId": figure})
	want(t, res, http.StatusOK, "")
	var got struct {
		Build struct {
			Proportions         struct{ ShoulderToHip, LegToHeight, HeadToHeight float64 }
			Silhouette, Posture string
			HeightCm            *int
		}
		Confidence float64
		Engine     string
		Traits     map[string]string
		Spent      int64
	}
	res.JSON(t, &got)
	// figureJPEG: crown at 6%, neck at 17%, legs parting at 55%, soles at
	// 96% of the frame; torso and hips the same width.
	p := got.Build.Proportions
	if p.HeadToHeight < 0.09 || p.HeadToHeight > 0.15 || p.LegToHeight < 0.4 || p.LegToHeight > 0.5 ||
		p.ShoulderToHip < 0.9 || p.ShoulderToHip > 1.2 || got.Build.Posture != "standing" || got.Build.Silhouette == "" ||
		got.Build.HeightCm == nil || *got.Build.HeightCm != 176 || got.Engine != "local+vision" || got.Spent != 1 || got.Confidence <= 0 {
		t.Errorf("build %s; want the figure's proportions, 176 cm read by vision, 1 token", res.Body)
	}
	if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance-1 || b.Held != before.Held {
		t.Errorf("balance %+v -> %+v; want 1 token settled", before, b)
	}
	// The casting board keeps the answer's traits as the model's.
	model := ownModel(t, a, k, figure)
	res = a.Do(t, "PATCH", "/api/toolkit/models/"+model.ID, k, map[string]any{"traits": got.Traits})
	want(t, res, http.StatusOK, "")
	var kept struct {
		Model struct{ Traits map[string]any }
	}
	res.JSON(t, &kept)
	if kept.Model.Traits["build"] != got.Traits["build"] || kept.Model.Traits["height"] != "176 cm" || kept.Model.Traits["posture"] != "standing" {
		t.Errorf("stored traits %v; want the build's %v", kept.Model.Traits, got.Traits)
	}

	// A reading that does not see the whole figure adds nothing: the
	// silhouette's build alone.
	srv.Answer(aitest.JSON(map[string]any{"fullLength": false, "heightCm": 0}))
	res = a.Do(t, "POST", path, k, map[string]any{"assetId": figure})
	want(t, res, http.StatusOK, "")
	if m := res.Map(t); m["engine"] != "local" || m["build"].(map[string]any)["heightCm"] != nil {
		t.Errorf("build %s; want the local engine's alone", res.Body)
	}

	drain(t, a, owner.HouseID, 0)
	want(t, a.Do(t, "POST", path, k, map[string]any{"assetId": figure}), 402, "INSUFFICIENT_TOKENS")
}
