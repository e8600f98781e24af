package httpapi_test

import (
	"testing"

	"studio/internal/apptest"
)

// TestLookbookStory is the user story of issue #5: upload a model and three
// pieces, plan a factory batch, run it, develop-lock the look, develop it,
// lock the result, ask for its variations (a posture among them), and see
// the balance move by exactly the plan's quoted total; variations the house
// cannot afford create and hold nothing.
func TestLookbookStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "story")
		k := a.Key(t, owner, "member")
		model := upload(t, a, k, modelJPEG(t), "kind", "model")
		coat := upload(t, a, k, productJPEG(t, 220, 300), "kind", "clothes", "name", "Wool coat")
		bag := upload(t, a, k, productJPEG(t, 160, 140), "kind", "accessory", "name", "Tote")
		ring := upload(t, a, k, productJPEG(t, 100, 100), "kind", "jewelry", "name", "Ring")
		want(t, a.Do(t, "POST", "/api/toolkit/presets", k, map[string]any{"aesthetic": "editorial",
			"background": map[string]string{"kind": "preset", "value": "seamless-sand"}, "variationKeys": []string{"front", "side", "posture:over-shoulder"}}), 200, "")

		var plan struct {
			Looks []struct {
				Name          string
				ModelAssetID  string
				ItemAssetIDs  []map[string]any
				Background    map[string]any
				VariationKeys []string
			}
			ModelReady bool
			Cost       struct {
				PerFrame, Total       int64
				FramesPerLook, Frames int
			}
			Balance int64
		}
		a.Do(t, "POST", "/api/toolkit/factory/plan", k, map[string]any{"assetIds": []string{model.ID, coat.ID, bag.ID, ring.ID}}).JSON(t, &plan)
		if len(plan.Looks) != 1 || !plan.ModelReady || len(plan.Looks[0].ItemAssetIDs) != 3 || plan.Looks[0].ItemAssetIDs[0]["assetId"] != coat.ID {
			t.Fatalf("plan %+v; want one look led by the coat with all three pieces", plan)
		}
		if plan.Cost.PerFrame != 1 || plan.Cost.FramesPerLook != 4 || plan.Cost.Total != 4 {
			t.Fatalf("plan cost %+v; want 1 a frame (a local proof), 4 frames, 4 in all", plan.Cost)
		}
		start := houseBalance(t, a, owner.HouseID)
		if plan.Balance != start.Balance {
			t.Errorf("plan balance %d; want %d", plan.Balance, start.Balance)
		}

		p := plan.Looks[0]
		res := a.Do(t, "POST", "/api/toolkit/factory/run", k, map[string]any{"modelAssetId": p.ModelAssetID, "looks": []any{map[string]any{
			"name": p.Name, "itemAssetIds": p.ItemAssetIDs, "background": p.Background, "variationKeys": p.VariationKeys}}})
		want(t, res, 201, "")
		var batch struct {
			Looks []struct {
				ID            string
				VariationKeys []string
			}
		}
		res.JSON(t, &batch)
		look := batch.Looks[0]

		var rec struct{ JobID string }
		res = a.Do(t, "POST", looksPath(look.ID, "/develop-lock"), k, nil)
		want(t, res, 202, "")
		res.JSON(t, &rec)
		develop(t, a)
		var detail struct {
			LockDevelop struct{ Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(look.ID), k, nil).JSON(t, &detail)
		if detail.LockDevelop.Status != "done" {
			t.Fatalf("lock develop %+v", detail.LockDevelop)
		}
		want(t, a.Do(t, "POST", looksPath(look.ID, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID}), 200, "")

		res = a.Do(t, "POST", looksPath(look.ID, "/variations"), k, map[string]any{"keys": look.VariationKeys})
		want(t, res, 202, "")
		var vars struct{ Jobs []struct{ Key, JobID string } }
		res.JSON(t, &vars)
		if len(vars.Jobs) != 3 || vars.Jobs[2].Key != "posture:over-shoulder" {
			t.Fatalf("variations %+v", vars.Jobs)
		}
		develop(t, a)
		end := houseBalance(t, a, owner.HouseID)
		if spent := start.Balance - end.Balance; spent != plan.Cost.Total || end.Held != start.Held {
			t.Errorf("the balance moved by %d (held %d -> %d); want exactly the quoted %d", spent, start.Held, end.Held, plan.Cost.Total)
		}

		// Too few tokens: nothing is created, nothing held.
		drain(t, a, owner.HouseID, 1)
		before := houseBalance(t, a, owner.HouseID)
		jobs := len(jobsSince(t, a, k))
		want(t, a.Do(t, "POST", looksPath(look.ID, "/variations"), k, map[string]any{"keys": []string{"front", "back"}}), 402, "INSUFFICIENT_TOKENS")
		if b := houseBalance(t, a, owner.HouseID); b.Held != before.Held || b.Balance != before.Balance || len(jobsSince(t, a, k)) != jobs {
			t.Errorf("a refused variations request held or created something")
		}
	})
}
