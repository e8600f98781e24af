package httpapi_test

import (
	"context"
	"os"
	"testing"

	"studio/internal/apptest"
)

// TestCastCatalogueFaceInLook: a look's modelAssetId may name a casting
// board model. A face the house may use (free, bought, or its exclusive
// claim) is cast by its cover, kept once in the library and reused; an own
// model casts its collage; a face it may not use (for sale and not bought,
// exclusive and unclaimed) is 403 and one another house holds is the one
// 404, with nothing written or held. A cast face's look develops and locks.
func TestCastCatalogueFaceInLook(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ctx := context.Background()
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		k := a.Key(t, houseA, "member")
		faces := []map[string]any{
			{"key": "free", "name": "Free face", "tier": "free"},
			{"key": "sale", "name": "Sale face", "tier": "sale", "priceCents": 4900},
			{"key": "bought", "name": "Bought face", "tier": "sale", "priceCents": 2900},
			{"key": "mine", "name": "Our exclusive", "tier": "exclusive", "priceCents": 90000},
			{"key": "open", "name": "Open exclusive", "tier": "exclusive", "priceCents": 90000},
			{"key": "theirs", "name": "Their exclusive", "tier": "exclusive", "priceCents": 90000},
		}
		if n, err := a.Casting.Import(ctx, os.DirFS(catalogue(t, faces...))); err != nil || n != len(faces) {
			t.Fatalf("import: %d %v", n, err)
		}
		ids := map[string]string{}
		for _, m := range board(t, a, k) {
			ids[m.Name] = m.ID
		}
		for _, c := range []struct{ house, face, kind string }{
			{houseA.HouseID, "Bought face", "purchase"},
			{houseA.HouseID, "Our exclusive", "exclusive"},
			{houseB.HouseID, "Their exclusive", "exclusive"},
		} {
			if err := a.DB.ClaimFace(ctx, c.house, ids[c.face], c.kind); err != nil {
				t.Fatal(err)
			}
		}
		own := ownModel(t, a, k, upload(t, a, k, modelJPEG(t), "kind", "model").ID)
		ids["own"] = own.ID

		base := lookBody(t, a, k)
		compose := func(model string) (int, wireLook, []byte) {
			t.Helper()
			body := map[string]any{}
			for f, v := range base {
				body[f] = v
			}
			body["modelAssetId"] = model
			res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, body)
			var out struct{ Look wireLook }
			if res.Status == 201 {
				res.JSON(t, &out)
			}
			return res.Status, out.Look, res.Body
		}
		casts := map[string]string{}
		for _, c := range []struct {
			model, code string
			status      int
		}{
			{"Sale face", "FORBIDDEN", 403},
			{"Open exclusive", "FORBIDDEN", 403},
			{"Their exclusive", "ASSET_NOT_FOUND", 404},
			{"Free face", "", 201},
			{"Bought face", "", 201},
			{"Our exclusive", "", 201},
			{"own", "", 201},
			{"Free face", "", 201}, // again: the same cast
		} {
			id := ids[c.model]
			if c.model == "Their exclusive" {
				// House A cannot see it on its board: ask for it by house B's view.
				for _, m := range board(t, a, a.Key(t, houseB, "member")) {
					if m.Name == c.model {
						id = m.ID
					}
				}
			}
			library, before := len(listAssets(t, a, k, "")), houseBalance(t, a, houseA.HouseID)
			status, l, body := compose(id)
			if status != c.status {
				t.Fatalf("%s: %d %s; want %d %s", c.model, status, body, c.status, c.code)
			}
			after := houseBalance(t, a, houseA.HouseID)
			if after.Held != before.Held || after.Balance != before.Balance {
				t.Errorf("%s: balance %+v; before %+v", c.model, after, before)
			}
			if c.status != 201 {
				want(t, a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{"name": "x", "modelAssetId": id,
					"itemAssetIds": base["itemAssetIds"], "background": base["background"], "aesthetic": "editorial"}), c.status, c.code)
				if n := len(listAssets(t, a, k, "")); n != library {
					t.Errorf("%s: the library grew from %d to %d", c.model, library, n)
				}
				continue
			}
			switch {
			case c.model == "own" && l.ModelAssetID != own.IdentityAssetIDs[0]:
				t.Errorf("own model: cast %s; want its collage %s", l.ModelAssetID, own.IdentityAssetIDs[0])
			case c.model != "own" && casts[c.model] != "" && l.ModelAssetID != casts[c.model]:
				t.Errorf("%s cast again as %s; want the first cast %s", c.model, l.ModelAssetID, casts[c.model])
			case l.ModelAssetID == id:
				t.Errorf("%s: the look names the face, not an asset", c.model)
			}
			casts[c.model] = l.ModelAssetID
		}
		// Each face's cast is a model photograph of the house, named after it.
		kinds := map[string]string{}
		for _, as := range listAssets(t, a, k, "") {
			if as.Kind != nil {
				kinds[as.ID] = as.Name + "/" + *as.Kind
			}
		}
		for _, face := range []string{"Free face", "Bought face", "Our exclusive"} {
			if kinds[casts[face]] != face+"/model" {
				t.Errorf("%s cast as %q; want a model asset named after it", face, kinds[casts[face]])
			}
		}

		// The factory casts the same way; a face the house may not use is refused.
		run := func(model string) int {
			t.Helper()
			return a.Do(t, "POST", "/api/toolkit/factory/run", k, map[string]any{"modelAssetId": model,
				"looks": []any{map[string]any{"name": "Batch", "itemAssetIds": base["itemAssetIds"], "variationKeys": []string{"front"}}}}).Status
		}
		if s := run(ids["Sale face"]); s != 403 {
			t.Errorf("factory with a sale face: %d; want 403", s)
		}
		if s := run(ids["Free face"]); s != 201 {
			t.Errorf("factory with a free face: %d; want 201", s)
		}

		// A look cast with a catalogue face develops and locks.
		_, l, _ := compose(ids["Free face"])
		want(t, a.Do(t, "POST", looksPath(l.ID, "/develop-lock"), k, nil), 202, "")
		develop(t, a)
		var detail struct {
			LockDevelop struct{ Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(l.ID), k, nil).JSON(t, &detail)
		if detail.LockDevelop.Status != "done" {
			t.Fatalf("lock develop %+v", detail.LockDevelop)
		}
		res := a.Do(t, "POST", looksPath(l.ID, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID})
		var locked struct{ Look wireLookParent }
		if res.JSON(t, &locked); res.Status != 200 || locked.Look.Status != "locked" || locked.Look.LookBaseParentAssetID != nil {
			t.Errorf("lock of a cast face's look: %d %s", res.Status, res.Body)
		}
	})
}
