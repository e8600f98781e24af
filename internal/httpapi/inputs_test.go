package httpapi_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"studio/internal/apptest"
	"studio/internal/asset"
	"studio/internal/job"
)

// TestSubmitReusesInputs: a file the house already has is not stored
// again, and a role sent as text names an asset of the house (DECISIONS §10).
func TestSubmitReusesInputs(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")

		t.Run("the same photo ten times leaves one asset", func(t *testing.T) {
			var first string
			for i := range 10 {
				id := submitJob(t, a, k, "upscale", "runId", "ten")
				j, err := a.DB.Job(context.Background(), owner.HouseID, id)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = j.Inputs[0].AssetID
				} else if j.Inputs[0].AssetID != first {
					t.Fatalf("submit %d filed its input as %s; want the first submit's %s", i, j.Inputs[0].AssetID, first)
				}
			}
			if n := assetCount(t, a, k); n != 1 {
				t.Errorf("assets = %d; want 1", n)
			}
		})

		t.Run("concurrent submits of one new photo leave one asset", func(t *testing.T) {
			house := a.SignUp(t, "burst")
			bk := a.Key(t, house, "member")
			img := jpegOf(t, 70, 50)
			var wg sync.WaitGroup
			for range 6 {
				wg.Go(func() {
					if res := a.Do(t, "POST", "/api/toolkit/jobs/submit", bk, submitForm(t, "upscale", "image", img)); res.Status != http.StatusAccepted {
						t.Errorf("submit: %d %s", res.Status, res.Body)
					}
				})
			}
			wg.Wait()
			if n := assetCount(t, a, bk); n != 1 {
				t.Errorf("assets = %d; want 1", n)
			}
		})

		t.Run("a reused asset keeps its metadata; kind is filed only when it had none", func(t *testing.T) {
			house := a.SignUp(t, "meta")
			mk := a.Key(t, house, "member")
			bare := pngOf(t, 50, 70)
			filed := pngOf(t, 52, 70)
			named := upload(t, a, mk, bare, "name", "Linen shirt")
			clothes := upload(t, a, mk, filed, "kind", "clothes", "name", "Coat")
			a.Do(t, "POST", "/api/toolkit/jobs/submit", mk, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "tryon"},
				apptest.Part{Name: "model", Filename: "m.png", Data: bare},
				apptest.Part{Name: "garment", Filename: "g.png", Data: filed}))
			got := map[string]wireAsset{}
			var body struct{ Assets []wireAsset }
			a.Do(t, "GET", "/api/toolkit/assets", mk, nil).JSON(t, &body)
			for _, as := range body.Assets {
				got[as.ID] = as
			}
			if len(body.Assets) != 2 {
				t.Fatalf("assets = %d; want the two uploads only", len(body.Assets))
			}
			if m := got[named.ID]; m.Name != "Linen shirt" || m.Kind == nil || *m.Kind != "model" {
				t.Errorf("the unfiled asset used as model: %+v; want its name kept and kind model", m)
			}
			if c := got[clothes.ID]; c.Name != "Coat" || c.Kind == nil || *c.Kind != "clothes" {
				t.Errorf("the filed asset: %+v; want it unchanged", c)
			}
			// Filed as clothes, sent as a model: the kind it has stays.
			a.Do(t, "POST", "/api/toolkit/jobs/submit", mk, submitForm(t, "tryon", "model", filed, "garment", named.ID))
			a.Do(t, "GET", "/api/toolkit/assets", mk, nil).JSON(t, &body)
			for _, as := range body.Assets {
				if as.ID == clothes.ID && (as.Kind == nil || *as.Kind != "clothes") {
					t.Errorf("a reused asset's kind changed: %+v", as)
				}
			}
		})

		t.Run("a role sent as text names a library asset", func(t *testing.T) {
			house := a.SignUp(t, "library")
			lk := a.Key(t, house, "member")
			other := a.SignUp(t, "other")
			model := upload(t, a, lk, jpegOf(t, 60, 90), "kind", "model")
			garment := upload(t, a, lk, jpegOf(t, 40, 40), "kind", "clothes")
			foreign := upload(t, a, other.Session(), jpegOf(t, 40, 40))
			gone := upload(t, a, lk, jpegOf(t, 41, 40))
			a.Do(t, "POST", "/api/toolkit/assets/batch/delete", lk, map[string]any{"assetIds": []string{gone.ID}})

			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", lk, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "tryon"}, apptest.Part{Name: "model", Value: model.ID},
				apptest.Part{Name: "garment", Value: garment.ID}, apptest.Part{Name: "garment", Filename: "g.png", Data: pngOf(t, 30, 30)}))
			if res.Status != http.StatusAccepted {
				t.Fatalf("submit by ids: %d %s", res.Status, res.Body)
			}
			var sub struct{ JobID string }
			res.JSON(t, &sub)
			j, _ := a.DB.Job(context.Background(), house.HouseID, sub.JobID)
			roles := map[string][]string{}
			for _, in := range j.Inputs {
				roles[in.Role] = append(roles[in.Role], in.AssetID)
			}
			if len(roles["model"]) != 1 || roles["model"][0] != model.ID || len(roles["garment"]) != 2 || roles["garment"][0] != garment.ID {
				t.Errorf("inputs %+v; want the model and the first garment by id, the second garment uploaded", j.Inputs)
			}

			notFound := ""
			for _, tt := range []struct{ name, id string }{{"unknown", "01900000-0000-7000-8000-00000000abcd"}, {"foreign", foreign.ID}, {"deleted", gone.ID}, {"not an id", "../etc"}} {
				before := houseBalance(t, a, house.HouseID)
				res := a.Do(t, "POST", "/api/toolkit/jobs/submit", lk, apptest.Multipart(t,
					apptest.Part{Name: "tool", Value: "upscale"}, apptest.Part{Name: "image", Value: tt.id}))
				if res.Status != 404 || res.Code != "ASSET_NOT_FOUND" {
					t.Errorf("%s id: %d %s; want 404 ASSET_NOT_FOUND", tt.name, res.Status, res.Body)
				}
				if notFound == "" {
					notFound = string(res.Body)
				} else if string(res.Body) != notFound {
					t.Errorf("%s id answers %s; want the same body as an unknown one, %s", tt.name, res.Body, notFound)
				}
				if after := houseBalance(t, a, house.HouseID); after.Held != before.Held {
					t.Errorf("%s id held tokens", tt.name)
				}
			}
			// A library asset over 12 MB (a frame stored before the cap, say)
			// is refused as an upload that size would be (SPEC §8).
			huge := upload(t, a, lk, jpegOf(t, 42, 40))
			if _, err := a.DB.RawExec(context.Background(), `UPDATE assets SET size_bytes = ? WHERE id = ?`, asset.MaxBytes+1, huge.ID); err != nil {
				t.Fatal(err)
			}
			before := houseBalance(t, a, house.HouseID)
			res = a.Do(t, "POST", "/api/toolkit/jobs/submit", lk, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "upscale"}, apptest.Part{Name: "image", Value: huge.ID}))
			var tooLarge struct{ MaxMb int }
			res.JSON(t, &tooLarge)
			if res.Status != 413 || res.Code != "IMAGE_TOO_LARGE" || tooLarge.MaxMb != 12 {
				t.Errorf("an input over 12 MB by id: %d %s; want 413 IMAGE_TOO_LARGE with maxMb 12", res.Status, res.Body)
			}
			if after := houseBalance(t, a, house.HouseID); after.Held != before.Held {
				t.Error("an input over 12 MB held tokens")
			}
			for _, tt := range []struct {
				name  string
				parts []apptest.Part
				code  string
			}{
				{"an empty id", []apptest.Part{{Name: "tool", Value: "upscale"}, {Name: "image", Value: " "}}, "EMPTY_IMAGE"},
				{"an id and a file in one role", []apptest.Part{{Name: "tool", Value: "upscale"}, {Name: "image", Value: model.ID},
					{Name: "image", Filename: "a.png", Data: pngOf(t, 10, 10)}}, "BAD_FORM"},
				{"seven garments", append([]apptest.Part{{Name: "tool", Value: "tryon"}, {Name: "model", Value: model.ID}},
					sevenGarments(garment.ID)...), "BAD_FORM"},
			} {
				if res := a.Do(t, "POST", "/api/toolkit/jobs/submit", lk, apptest.Multipart(t, tt.parts...)); res.Status != 400 || res.Code != tt.code {
					t.Errorf("%s: %d %s; want 400 %s", tt.name, res.Status, res.Body, tt.code)
				}
			}
		})

		t.Run("an asset sent by id develops", func(t *testing.T) {
			// An app and a store of their own: develop runs every queued
			// job, and the subtests above leave some twenty renders queued
			// that this one has no use for.
			a := apptest.New(t, apptest.Fresh(t, e))
			house := a.SignUp(t, "develops")
			dk := a.Key(t, house, "member")
			garment := upload(t, a, dk, jpegOf(t, 64, 48), "kind", "clothes")
			res := a.Do(t, "POST", "/api/toolkit/jobs/submit", dk, apptest.Multipart(t,
				apptest.Part{Name: "tool", Value: "upscale"}, apptest.Part{Name: "image", Value: garment.ID}))
			var sub struct{ JobID string }
			res.JSON(t, &sub)
			develop(t, a)
			j, err := a.DB.Job(context.Background(), house.HouseID, sub.JobID)
			if err != nil || j.Status != job.Done || j.Inputs[0].AssetID != garment.ID || j.ResultAssetID == "" {
				t.Errorf("job %+v %v; want done from the library asset", j, err)
			}
		})
	})
}

func sevenGarments(id string) []apptest.Part {
	out := make([]apptest.Part, 7)
	for i := range out {
		out[i] = apptest.Part{Name: "garment", Value: id}
	}
	return out
}
