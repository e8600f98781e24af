package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"studio/internal/apptest"
)

func TestPresets(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		var got struct {
			Preset struct {
				ModelAssetID  *string
				Aesthetic     string
				Quality       string
				VariationKeys []string
				Background    struct{ Kind, Value string }
			}
		}
		a.Do(t, "GET", "/api/toolkit/presets", viewer, nil).JSON(t, &got)
		if got.Preset.Aesthetic != "editorial" || got.Preset.Background.Value != "studio-white" || got.Preset.VariationKeys == nil || got.Preset.Quality != "1k" {
			t.Errorf("default preset %+v", got.Preset)
		}
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		foreign := upload(t, a, other.Session(), modelJPEG(t), "kind", "model")
		ok := func() map[string]any {
			return map[string]any{"aesthetic": "noir", "background": map[string]string{"kind": "preset", "value": "concrete"},
				"variationKeys": []string{"front", "posture:spin"}, "modelAssetId": model.ID, "quality": "2k"}
		}
		with := func(field string, v any) map[string]any { b := ok(); b[field] = v; return b }
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
			legal  bool
		}{
			{"viewer", viewer, ok(), 403, "FORBIDDEN", false},
			{"bad aesthetic", k, with("aesthetic", "pop"), 400, "BAD_AESTHETIC", true},
			{"bad background", k, with("background", map[string]string{"kind": "wallpaper"}), 400, "BAD_BACKGROUND", true},
			{"no keys", k, with("variationKeys", []string{}), 400, "KEYS_REQUIRED", false},
			{"thirteen keys", k, with("variationKeys", strings.Split(strings.Repeat("front,", 13), ",")[:13]), 400, "TOO_MANY_FRAMES", false},
			{"unknown key", k, with("variationKeys", []string{"posture:nope"}), 400, "UNKNOWN_VARIATION", true},
			{"bad quality", k, with("quality", "8k"), 400, "BAD_QUALITY", false},
			{"foreign model", k, with("modelAssetId", foreign.ID), 404, "ASSET_NOT_FOUND", false},
			{"ok", k, ok(), 200, "", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/toolkit/presets", tc.cred, tc.body)
				if tc.legal {
					wantLegal(t, res, tc.status, tc.code)
				} else {
					want(t, res, tc.status, tc.code)
				}
			})
		}
		a.Do(t, "GET", "/api/toolkit/presets", viewer, nil).JSON(t, &got)
		if got.Preset.Aesthetic != "noir" || got.Preset.ModelAssetID == nil || *got.Preset.ModelAssetID != model.ID || len(got.Preset.VariationKeys) != 2 {
			t.Errorf("stored preset %+v", got.Preset)
		}
		var theirs struct{ Preset struct{ Aesthetic string } }
		a.Do(t, "GET", "/api/toolkit/presets", other.Session(), nil).JSON(t, &theirs)
		if theirs.Preset.Aesthetic != "editorial" {
			t.Errorf("another house reads %+v", theirs.Preset)
		}
	})
}

func TestFactory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		shirt := upload(t, a, k, productJPEG(t, 200, 240), "kind", "clothes", "name", "Shirt")
		bag := upload(t, a, k, productJPEG(t, 120, 120), "kind", "accessory", "name", "Bag")
		foreign := upload(t, a, other.Session(), productJPEG(t, 120, 120), "kind", "clothes")

		// Plan: reads only, a viewer may ask.
		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"no assets", map[string]any{"assetIds": []string{}}, 400, "ASSETS_REQUIRED"},
			{"bad quality", map[string]any{"assetIds": []string{shirt.ID}, "quality": "3k"}, 400, "BAD_QUALITY"},
			{"foreign", map[string]any{"assetIds": []string{shirt.ID, foreign.ID}}, 404, "ASSET_NOT_FOUND"},
		} {
			t.Run("plan/"+tc.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/factory/plan", viewer, tc.body), tc.status, tc.code)
			})
		}
		pieces := []string{}
		for i := range 22 {
			pieces = append(pieces, upload(t, a, k, jpegOf(t, 16, 12), "kind", "clothes", "name", "Piece "+string(rune('A'+i))).ID)
		}
		var plan struct {
			Looks     []struct{ Name string }
			Truncated bool
			Cost      struct{ PerFrame, Total int64 }
		}
		a.Do(t, "POST", "/api/toolkit/factory/plan", viewer, map[string]any{"assetIds": append(pieces, model.ID)}).JSON(t, &plan)
		if len(plan.Looks) != 20 || !plan.Truncated || plan.Cost.Total != 20*1 {
			t.Errorf("plan of 22 garments: %d looks, truncated %v, total %d; want 20, true, 20 (a local proof is 1 token)", len(plan.Looks), plan.Truncated, plan.Cost.Total)
		}

		// Run: one bad look rejects all; nothing is spent.
		good := map[string]any{"name": "One", "itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top"}, {"assetId": bag.ID, "role": "bag"}},
			"variationKeys": []string{"front", "posture:pockets"}}
		look := func(field string, v any) map[string]any {
			b := map[string]any{}
			for k, x := range good {
				b[k] = x
			}
			b[field] = v
			return b
		}
		run := func(looks ...map[string]any) map[string]any {
			return map[string]any{"modelAssetId": model.ID, "aesthetic": "street", "looks": looks}
		}
		many := []map[string]any{}
		for range 21 {
			many = append(many, good)
		}
		noModel := run(good)
		delete(noModel, "modelAssetId")
		badAesthetic := run(good)
		badAesthetic["aesthetic"] = "glam"
		badQuality := run(good)
		badQuality["quality"] = "10k"
		seven := []map[string]any{}
		for range 7 {
			seven = append(seven, map[string]any{"assetId": shirt.ID, "role": "top"})
		}
		before := houseBalance(t, a, owner.HouseID)
		for _, tc := range []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
		}{
			{"viewer", viewer, run(good), 403, "FORBIDDEN"},
			{"no looks", k, run(), 400, "LOOKS_REQUIRED"},
			{"too many looks", k, run(many...), 400, "TOO_MANY_LOOKS"},
			{"no model", k, noModel, 400, "MODEL_REQUIRED"},
			{"bad aesthetic", k, badAesthetic, 400, "BAD_AESTHETIC"},
			{"bad quality", k, badQuality, 400, "BAD_QUALITY"},
			{"no name", k, run(good, look("name", "")), 400, "NAME_REQUIRED"},
			{"no items", k, run(good, look("itemAssetIds", []any{})), 400, "ITEMS_REQUIRED"},
			{"seven items", k, run(good, look("itemAssetIds", seven)), 400, "TOO_MANY_ITEMS"},
			{"bad item", k, run(good, look("itemAssetIds", []map[string]any{{"assetId": shirt.ID, "role": "cape"}})), 400, "BAD_ITEM"},
			{"bad background", k, run(good, look("background", map[string]string{"kind": "preset", "value": "mars"})), 400, "BAD_BACKGROUND"},
			{"no keys", k, run(good, look("variationKeys", []string{})), 400, "KEYS_REQUIRED"},
			{"thirteen keys", k, run(good, look("variationKeys", strings.Split(strings.Repeat("side,", 13), ",")[:13])), 400, "TOO_MANY_FRAMES"},
			{"unknown key", k, run(good, look("variationKeys", []string{"handstand"})), 400, "UNKNOWN_VARIATION"},
			{"foreign piece", k, run(good, look("itemAssetIds", []map[string]any{{"assetId": foreign.ID, "role": "top"}})), 404, "ASSET_NOT_FOUND"},
		} {
			t.Run("run/"+tc.name, func(t *testing.T) {
				want(t, a.Do(t, "POST", "/api/toolkit/factory/run", tc.cred, tc.body), tc.status, tc.code)
			})
		}
		var list struct{ Looks []any }
		a.Do(t, "GET", "/api/toolkit/lookbook/looks", k, nil).JSON(t, &list)
		if len(list.Looks) != 0 {
			t.Fatalf("refused runs left %d looks", len(list.Looks))
		}
		res := a.Do(t, "POST", "/api/toolkit/factory/run", k, run(good, look("name", "Two")))
		want(t, res, http.StatusCreated, "")
		var made struct {
			BatchID, Quality string
			Looks            []struct {
				ID, Name      string
				VariationKeys []string
			}
		}
		res.JSON(t, &made)
		if made.BatchID == "" || made.Quality != "1k" || len(made.Looks) != 2 || made.Looks[1].Name != "Two" || len(made.Looks[0].VariationKeys) != 2 {
			t.Errorf("run answer %+v", made)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance || b.Held != before.Held {
			t.Errorf("a factory run moved the balance")
		}
	})
}

func TestPostures(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		res := a.Do(t, "GET", "/api/toolkit/postures", viewer, nil)
		want(t, res, 200, "")
		if strings.Contains(string(res.Body), "fragment") || strings.Contains(string(res.Body), "weight on one leg") {
			t.Errorf("a prompt fragment went on the wire: %s", res.Body)
		}
		var view struct {
			Library             []struct{ ID string }
			Axes                []any
			RegisterConstraints []any
			Prefs               struct{ Favorites, Defaults, ExploreAdded []string }
		}
		res.JSON(t, &view)
		if len(view.Library) < 12 || len(view.Axes) == 0 || len(view.RegisterConstraints) == 0 || view.Prefs.Favorites == nil {
			t.Errorf("postures view %+v", view)
		}
		prefs := "/api/toolkit/postures/prefs"
		want(t, a.Do(t, "PUT", prefs, viewer, map[string]any{"favorites": []string{"spin"}}), 403, "role_cannot_edit_postures")
		want(t, a.Do(t, "PUT", prefs, k, map[string]any{"favorites": []string{""}}), 400, "BAD_IDS")
		want(t, a.Do(t, "PUT", prefs, k, map[string]any{"custom": []map[string]any{{"name": "Mine", "baseId": "nope"}}}), 400, "BAD_CUSTOM")
		want(t, a.Do(t, "PUT", prefs, k, map[string]any{"custom": []map[string]any{{"name": "Mine", "baseId": "spin", "deltas": []string{"gaze:sideways"}}}}), 400, "BAD_CUSTOM")
		res = a.Do(t, "PUT", prefs, k, map[string]any{"favorites": []string{"spin", "ghost", "custom-my-spin"},
			"custom": []map[string]any{{"name": "My spin", "baseId": "spin", "deltas": []string{"energy:dynamic"}, "frameAssetId": "not-ours"}}})
		want(t, res, 200, "")
		var stored struct {
			Favorites, Defaults []string
			Custom              []struct {
				ID           string
				FrameAssetID *string
			}
		}
		res.JSON(t, &stored)
		if strings.Join(stored.Favorites, ",") != "spin,custom-my-spin" || len(stored.Custom) != 1 || stored.Custom[0].FrameAssetID != nil {
			t.Errorf("stored prefs %+v; want uncastable ids dropped", stored)
		}
		// A partial merge keeps what it does not name.
		res = a.Do(t, "PUT", prefs, k, map[string]any{"defaults": []string{"pockets"}})
		res.JSON(t, &stored)
		if len(stored.Favorites) != 2 || len(stored.Defaults) != 1 || len(stored.Custom) != 1 {
			t.Errorf("merged prefs %+v", stored)
		}
		// The house's posture casts on a look's variations.
		want(t, a.Do(t, "POST", "/api/toolkit/presets", k, map[string]any{"aesthetic": "minimal",
			"background": map[string]string{"kind": "preset", "value": "beach"}, "variationKeys": []string{"posture:custom-my-spin"}}), 200, "")
	})
}

func TestBackgroundsAndTemplates(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		viewer := a.Key(t, owner, "viewer")
		wall := upload(t, a, owner.Session(), jpegOf(t, 64, 48), "kind", "background", "name", "Wall")
		upload(t, a, owner.Session(), jpegOf(t, 64, 48), "kind", "clothes")
		var bgs struct {
			Presets []struct{ ID, Tone string }
			Assets  []struct{ AssetID, Name, URL string }
		}
		a.Do(t, "GET", "/api/toolkit/backgrounds", viewer, nil).JSON(t, &bgs)
		if len(bgs.Presets) != 7 || len(bgs.Assets) != 1 || bgs.Assets[0].AssetID != wall.ID {
			t.Errorf("backgrounds %+v", bgs)
		}
		var tpls struct{ Templates []struct{ ID string } }
		a.Do(t, "GET", "/api/toolkit/lookbook/templates", viewer, nil).JSON(t, &tpls)
		if len(tpls.Templates) == 0 {
			t.Fatal("no templates")
		}
		for _, tpl := range tpls.Templates {
			want(t, a.Do(t, "GET", "/api/toolkit/lookbook/templates/"+tpl.ID, viewer, nil), 200, "")
		}
		want(t, a.Do(t, "GET", "/api/toolkit/lookbook/templates/nope", viewer, nil), 404, "NOT_FOUND")
	})
}
