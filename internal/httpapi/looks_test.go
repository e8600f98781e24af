package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/ledger"
)

// looksWalk is the looks area's part of the route walk (walk_test.go).
var looksWalk = walkArea{
	samples: map[string]sampleFunc{
		// Lookbook (looks_test.go holds the fixtures).
		"GET /api/toolkit/lookbook/looks": static("/api/toolkit/lookbook/looks", nil),
		"POST /api/toolkit/lookbook/looks": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks", lookBody(t, a, u.Session())}
		},
		"GET /api/toolkit/lookbook/looks/{id}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()), nil}
		},
		"POST /api/toolkit/lookbook/looks/{id}/develop-lock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/develop-lock", map[string]any{}}
		},
		"POST /api/toolkit/lookbook/looks/{id}/lock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/lock", map[string]any{"assetId": assetID(t, a, u)}}
		},
		"POST /api/toolkit/lookbook/looks/{id}/unlock": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/unlock", nil}
		},
		"POST /api/toolkit/lookbook/looks/{id}/variations": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/lookbook/looks/" + lookID(t, a, u.Session()) + "/variations", map[string]any{"keys": []string{"front"}}}
		},
		"POST /api/toolkit/factory/plan": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/factory/plan", map[string]any{"assetIds": []string{assetID(t, a, u)}}}
		},
		"POST /api/toolkit/factory/run": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			b := lookBody(t, a, u.Session())
			return request{"/api/toolkit/factory/run", map[string]any{"modelAssetId": b["modelAssetId"],
				"looks": []any{map[string]any{"name": "Batch look", "itemAssetIds": b["itemAssetIds"], "variationKeys": []string{"front"}}}}}
		},
		"GET /api/toolkit/presets": static("/api/toolkit/presets", nil),
		"POST /api/toolkit/presets": static("/api/toolkit/presets", map[string]any{"aesthetic": "minimal",
			"background": map[string]string{"kind": "preset", "value": "concrete"}, "variationKeys": []string{"front", "posture:contrapposto"}}),
		"GET /api/toolkit/backgrounds":             static("/api/toolkit/backgrounds", nil),
		"GET /api/toolkit/lookbook/templates":      static("/api/toolkit/lookbook/templates", nil),
		"GET /api/toolkit/lookbook/templates/{id}": static("/api/toolkit/lookbook/templates/ecommerce-pdp", nil),
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/lookbook/looks":                   auth.Member,
		"POST /api/toolkit/lookbook/looks/{id}/develop-lock": auth.Member,
		"POST /api/toolkit/lookbook/looks/{id}/lock":         auth.Member,
		"POST /api/toolkit/lookbook/looks/{id}/unlock":       auth.Member,
		"POST /api/toolkit/lookbook/looks/{id}/variations":   auth.Member,
		"POST /api/toolkit/factory/run":                      auth.Member,
		"POST /api/toolkit/presets":                          auth.Member,
	},
	global:       []string{"GET /api/toolkit/lookbook/templates/{id}"},
	optionalBody: []string{"POST /api/toolkit/lookbook/looks/{id}/develop-lock"},
	// A draft look is read; a look is made of the same uploaded model and piece again.
	reusable: []string{"GET /api/toolkit/lookbook/looks/{id}", "POST /api/toolkit/lookbook/looks"},
}

// modelJPEG is a standing figure on a plain ground.
func modelJPEG(t testing.TB) []byte { return figureJPEG(t, 300, 480) }

// lookBody uploads a model and a piece for the credential's house and
// returns a valid body for POST /api/toolkit/lookbook/looks.
func lookBody(t testing.TB, a *apptest.App, c apptest.Cred) map[string]any {
	t.Helper()
	model := upload(t, a, c, modelJPEG(t), "kind", "model")
	piece := upload(t, a, c, productJPEG(t, 200, 240), "kind", "clothes", "name", "Silk shirt")
	return map[string]any{
		"name": "Spring look", "modelAssetId": model.ID,
		"itemAssetIds": []map[string]any{{"assetId": piece.ID, "role": "top"}},
		"background":   map[string]string{"kind": "preset", "value": "studio-white"},
		"aesthetic":    "editorial",
	}
}

// wireLook is the Look wire shape as tests read it.
type wireLook struct {
	ID              string
	Name            string
	Status          string
	ModelAssetID    string
	LookBaseAssetID *string
	LookBaseJobID   *string
	Variations      []string
	ItemAssetIDs    []struct {
		AssetID, Role, Label string
		Hero                 bool
	}
}

// lookID creates a draft look for the credential's house.
func lookID(t testing.TB, a *apptest.App, c apptest.Cred) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", c, lookBody(t, a, c))
	if res.Status != http.StatusCreated {
		t.Fatalf("create look: %d %s", res.Status, res.Body)
	}
	var body struct{ Look wireLook }
	res.JSON(t, &body)
	return body.Look.ID
}

// wantLegal checks an answer's status, code and that it lists legal values.
func wantLegal(t *testing.T, res apptest.Resp, status int, code string) {
	t.Helper()
	want(t, res, status, code)
	if legal, ok := res.Map(t)["legal"].([]any); !ok || len(legal) == 0 {
		t.Errorf("%s: no legal values in %s", code, res.Body)
	}
}

func looksPath(id string, tail ...string) string {
	return "/api/toolkit/lookbook/looks/" + id + strings.Join(tail, "")
}

func TestLookCreate(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		ok := lookBody(t, a, k)
		foreign := upload(t, a, other.Session(), modelJPEG(t), "kind", "model")
		with := func(field string, v any) map[string]any {
			b := map[string]any{}
			for k, x := range ok {
				b[k] = x
			}
			b[field] = v
			return b
		}
		items := func(n int, role string) []map[string]any {
			out := []map[string]any{}
			for range n {
				out = append(out, map[string]any{"assetId": upload(t, a, k, jpegOf(t, 16, 12), "kind", "clothes").ID, "role": role})
			}
			return out
		}
		piece := ok["itemAssetIds"].([]map[string]any)[0]["assetId"]
		tests := []struct {
			name   string
			cred   apptest.Cred
			body   map[string]any
			status int
			code   string
			legal  bool
		}{
			{"ok", k, ok, 201, "", false},
			{"viewer", viewer, ok, 403, "FORBIDDEN", false},
			{"no name", k, with("name", "  "), 400, "NAME_REQUIRED", false},
			{"no model", k, with("modelAssetId", ""), 400, "MODEL_REQUIRED", false},
			{"no items", k, with("itemAssetIds", []any{}), 400, "ITEMS_REQUIRED", false},
			{"seven items", k, with("itemAssetIds", items(7, "top")), 400, "TOO_MANY_ITEMS", false},
			{"bad role", k, with("itemAssetIds", []map[string]any{{"assetId": piece, "role": "hat"}}), 400, "BAD_ITEM", true},
			{"two heroes", k, with("itemAssetIds", append(items(1, "bag"), map[string]any{"assetId": piece, "role": "top", "hero": true}, map[string]any{"assetId": ok["modelAssetId"], "role": "shoes", "hero": true})), 400, "BAD_ITEM", true},
			{"bad background", k, with("background", map[string]string{"kind": "preset", "value": "moon"}), 400, "BAD_BACKGROUND", true},
			{"background without asset", k, with("background", map[string]string{"kind": "asset"}), 400, "BAD_BACKGROUND", true},
			{"bad aesthetic", k, with("aesthetic", "vaporwave"), 400, "BAD_AESTHETIC", true},
			{"foreign model", k, with("modelAssetId", foreign.ID), 404, "ASSET_NOT_FOUND", false},
			{"foreign background", k, with("background", map[string]string{"kind": "asset", "assetId": foreign.ID}), 404, "ASSET_NOT_FOUND", false},
		}
		before := houseBalance(t, a, owner.HouseID)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", tt.cred, tt.body)
				if tt.legal {
					wantLegal(t, res, tt.status, tt.code)
				} else {
					want(t, res, tt.status, tt.code)
				}
			})
		}
		if after := houseBalance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != before.Held {
			t.Errorf("creating looks moved the balance: %+v -> %+v", before, after)
		}
		// The created look: draft, hero settled, label from the piece's name.
		second := lookID(t, a, k)
		var list struct{ Looks []wireLook }
		a.Do(t, "GET", "/api/toolkit/lookbook/looks", viewer, nil).JSON(t, &list)
		if len(list.Looks) != 2 || list.Looks[0].ID != second {
			t.Fatalf("list: %+v; want 2 looks, newest (%s) first", list.Looks, second)
		}
		l := list.Looks[0]
		if l.Status != "draft" || !l.ItemAssetIDs[0].Hero || l.ItemAssetIDs[0].Label != "Silk shirt" || l.Variations == nil {
			t.Errorf("look %+v; want draft, hero first, labelled", l)
		}
		var empty struct{ Looks []wireLook }
		a.Do(t, "GET", "/api/toolkit/lookbook/looks", other.Session(), nil).JSON(t, &empty)
		if len(empty.Looks) != 0 {
			t.Errorf("another house lists %d looks", len(empty.Looks))
		}
	})
}

// TestLookDevelopLockFlow walks a look through develop-lock, lock, unlock and
// variations with every refusal on the way.
func TestLookDevelopLockFlow(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		id := lookID(t, a, k)
		dl := looksPath(id, "/develop-lock")
		vars := looksPath(id, "/variations")

		for _, tc := range []struct {
			name, path string
			body       map[string]any
			status     int
			code       string
		}{
			{"develop bad quality", dl, map[string]any{"quality": "8k"}, 400, "BAD_QUALITY"},
			{"develop unknown destination", dl, map[string]any{"output": map[string]any{"destination": "billboard"}}, 400, "UNKNOWN_DESTINATION"},
			{"develop tiny custom", dl, map[string]any{"output": map[string]any{"destination": "custom", "width": 10, "height": 100}}, 400, "BAD_DIMENSIONS"},
			{"develop fractional custom", dl, map[string]any{"output": map[string]any{"destination": "custom", "width": 100.5, "height": 100}}, 400, "BAD_DIMENSIONS"},
			{"develop huge custom", dl, map[string]any{"output": map[string]any{"destination": "custom", "width": 9000, "height": 100}}, 400, "OUTPUT_TOO_LARGE"},
			{"develop print at 1k", dl, map[string]any{"output": "print-a4"}, 400, "QUALITY_TOO_LOW_FOR_OUTPUT"},
			{"variations on a draft", vars, map[string]any{"keys": []string{"front"}}, 409, "LOCK_REQUIRED"},
			{"variations bad quality", vars, map[string]any{"keys": []string{"front"}, "quality": "hd"}, 400, "BAD_QUALITY"},
			{"variations no keys", vars, map[string]any{"keys": []string{}}, 400, "KEYS_REQUIRED"},
			{"variations thirteen keys", vars, map[string]any{"keys": strings.Split("front,back,side,three-quarter,walking,seated,detail,close-up,posture:spin,posture:pockets,posture:contrapposto,posture:lean-wall,posture:square-stance", ",")}, 400, "TOO_MANY_FRAMES"},
			{"variations unknown destination", vars, map[string]any{"keys": []string{"front"}, "output": "billboard"}, 400, "UNKNOWN_DESTINATION"},
			{"variations tiny custom", vars, map[string]any{"keys": []string{"front"}, "output": map[string]any{"destination": "custom", "width": 64, "height": 63}}, 400, "BAD_DIMENSIONS"},
			{"variations huge custom", vars, map[string]any{"keys": []string{"front"}, "output": map[string]any{"destination": "custom", "width": 64, "height": 8193}}, 400, "OUTPUT_TOO_LARGE"},
			{"variations print at 1k", vars, map[string]any{"keys": []string{"front"}, "output": map[string]any{"destination": "print-a4"}}, 400, "QUALITY_TOO_LOW_FOR_OUTPUT"},
		} {
			t.Run(tc.name, func(t *testing.T) { want(t, a.Do(t, "POST", tc.path, k, tc.body), tc.status, tc.code) })
		}
		for _, key := range []string{"flying", "posture:moonwalk", "front"} {
			body := map[string]any{"keys": []string{key}}
			if key == "front" {
				body["keys"] = []string{"front", "front"}
			}
			wantLegal(t, a.Do(t, "POST", vars, k, body), 400, "UNKNOWN_VARIATION")
		}
		res := a.Do(t, "POST", dl, k, map[string]any{"output": "print-a4"})
		if detail, _ := res.Map(t)["detail"].(string); !strings.Contains(detail, "Choose 2k") {
			t.Errorf("QUALITY_TOO_LOW_FOR_OUTPUT detail %q does not name the tier that would do", detail)
		}

		// pdp-portrait (2000 px) at 1k needs one restoration pass: the local
		// proof (1, DECISIONS §11) + upscale at 2k (3).
		before := houseBalance(t, a, owner.HouseID)
		res = a.Do(t, "POST", dl, k, map[string]any{"output": "pdp-portrait", "idempotencyKey": "lock-1"})
		want(t, res, 202, "")
		var rec struct {
			JobID, Status, IdempotencyKey string
			Tokens                        int64
		}
		res.JSON(t, &rec)
		if rec.Tokens != 4 || rec.IdempotencyKey != "lock-1" {
			t.Errorf("receipt %+v; want 4 tokens under lock-1", rec)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held-before.Held != 4 {
			t.Errorf("held moved by %d; want 4", b.Held-before.Held)
		}
		var replay struct {
			JobID  string
			Tokens int64
		}
		a.Do(t, "POST", dl, k, map[string]any{"output": "pdp-portrait", "idempotencyKey": "lock-1"}).JSON(t, &replay)
		if replay.JobID != rec.JobID || replay.Tokens != 0 {
			t.Errorf("replay %+v; want job %s with no second hold", replay, rec.JobID)
		}
		want(t, a.Do(t, "POST", dl, k, map[string]any{"quality": "2k", "idempotencyKey": "lock-1"}), 409, "IDEMPOTENCY_KEY_REUSED")
		want(t, a.Do(t, "POST", dl, k, nil), 409, "DEVELOP_IN_FLIGHT")
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": "x"}), 409, "DEVELOP_IN_FLIGHT")
		want(t, a.Do(t, "POST", looksPath(id, "/unlock"), k, nil), 200, "") // a draft stays a draft

		develop(t, a)
		var detail struct {
			Look        wireLook
			LockDevelop struct{ ID, Status, ResultAssetID string }
			Variations  []any
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &detail)
		if detail.LockDevelop.ID != rec.JobID || detail.LockDevelop.Status != "done" || detail.LockDevelop.ResultAssetID == "" {
			t.Fatalf("lockDevelop %+v; want job %s done", detail.LockDevelop, rec.JobID)
		}
		frame := getAsset(t, a, k, detail.LockDevelop.ResultAssetID)
		if frame.Width != 1638 || frame.Height != 2048 {
			t.Errorf("restored pdp-portrait frame is %dx%d; want 1638x2048", frame.Width, frame.Height)
		}
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": ""}), 400, "ASSET_REQUIRED")
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": assetID(t, a, owner)}), 422, "NOT_A_LOOK_FRAME")
		res = a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": frame.ID})
		want(t, res, 200, "")
		var locked struct{ Look wireLook }
		res.JSON(t, &locked)
		if locked.Look.Status != "locked" || *locked.Look.LookBaseAssetID != frame.ID || *locked.Look.LookBaseJobID != rec.JobID {
			t.Fatalf("locked look %+v", locked.Look)
		}
		want(t, a.Do(t, "POST", dl, k, nil), 409, "LOOK_LOCKED")

		// Variations: one job per key, a posture key among them.
		before = houseBalance(t, a, owner.HouseID)
		res = a.Do(t, "POST", vars, k, map[string]any{"keys": []string{"close-up", "posture:contrapposto"}, "idempotencyKey": "v-1"})
		want(t, res, 202, "")
		var jobs struct{ Jobs []struct{ Key, JobID string } }
		res.JSON(t, &jobs)
		if len(jobs.Jobs) != 2 || jobs.Jobs[1].Key != "posture:contrapposto" {
			t.Fatalf("variations %+v", jobs.Jobs)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Held-before.Held != 2 {
			t.Errorf("held moved by %d; want 2 (two proofs)", b.Held-before.Held)
		}
		var again struct{ Jobs []struct{ Key, JobID string } }
		a.Do(t, "POST", vars, k, map[string]any{"keys": []string{"close-up", "posture:contrapposto"}, "idempotencyKey": "v-1"}).JSON(t, &again)
		if len(again.Jobs) != 2 || again.Jobs[0].JobID != jobs.Jobs[0].JobID {
			t.Errorf("replay %+v; want %+v", again.Jobs, jobs.Jobs)
		}
		want(t, a.Do(t, "POST", vars, k, map[string]any{"keys": []string{"close-up", "back"}, "idempotencyKey": "v-1"}), 409, "IDEMPOTENCY_KEY_REUSED")
		want(t, a.Do(t, "POST", vars, k, map[string]any{"keys": []string{"front"}}), 409, "DEVELOP_IN_FLIGHT")
		want(t, a.Do(t, "POST", looksPath(id, "/unlock"), k, nil), 409, "DEVELOP_IN_FLIGHT")
		develop(t, a)
		var full struct {
			Variations []struct {
				Key, Framing, JobID, Status string
				AssetID                     *string
				Locked                      bool
			}
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &full)
		if len(full.Variations) != 2 || full.Variations[1].Status != "done" || full.Variations[1].AssetID == nil ||
			!full.Variations[1].Locked || full.Variations[1].Framing != "posture: Contrapposto" {
			t.Errorf("variations %+v", full.Variations)
		}

		// Too few tokens: 12 proofs at 4k (1 each) create and hold nothing.
		drain(t, a, owner.HouseID, 11)
		before = houseBalance(t, a, owner.HouseID)
		jobsBefore := len(jobsSince(t, a, k))
		res = a.Do(t, "POST", vars, k, map[string]any{"quality": "4k", "keys": strings.Split("front,back,side,three-quarter,walking,seated,detail,close-up,posture:spin,posture:pockets,posture:contrapposto,posture:lean-wall", ",")})
		want(t, res, 402, "INSUFFICIENT_TOKENS")
		if m := res.Map(t); m["need"] != float64(12) || m["spendable"] != float64(before.Balance) || m["held"] != float64(before.Held) {
			t.Errorf("402 body %v; want need %d, spendable %d, held %d", m, 12, before.Balance, before.Held)
		}
		if b := houseBalance(t, a, owner.HouseID); b.Balance != before.Balance || b.Held != before.Held {
			t.Errorf("a refused variations moved the balance: %+v -> %+v", before, b)
		}
		if n := len(jobsSince(t, a, k)); n != jobsBefore {
			t.Errorf("a refused variations left %d jobs", n-jobsBefore)
		}

		// Unlock keeps the look base; a fresh develop may follow.
		res = a.Do(t, "POST", looksPath(id, "/unlock"), k, nil)
		var unlocked struct{ Look wireLook }
		res.JSON(t, &unlocked)
		if unlocked.Look.Status != "draft" || unlocked.Look.LookBaseAssetID == nil {
			t.Errorf("unlocked look %+v; want draft with its base kept", unlocked.Look)
		}
	})
}

func jobsSince(t *testing.T, a *apptest.App, c apptest.Cred) []any {
	t.Helper()
	var body struct{ Jobs []any }
	a.Do(t, "GET", "/api/toolkit/jobs?since=0", c, nil).JSON(t, &body)
	return body.Jobs
}

// drain spends a house's spendable tokens down to left with a hold.
func drain(t *testing.T, a *apptest.App, house string, left int64) {
	t.Helper()
	b := houseBalance(t, a, house)
	if b.Balance <= left {
		return
	}
	if err := a.DB.TakeHold(context.Background(), house, ledger.NewHold("", b.Balance-left)); err != nil {
		t.Fatal(err)
	}
}

func TestLookDevelopInsufficient(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		id := lookID(t, a, k)
		drain(t, a, owner.HouseID, 0)
		res := a.Do(t, "POST", looksPath(id, "/develop-lock"), k, map[string]any{})
		want(t, res, 402, "INSUFFICIENT_TOKENS")
		if m := res.Map(t); m["need"] != float64(1) || m["spendable"] != float64(0) || m["held"] != float64(houseBalance(t, a, owner.HouseID).Held) {
			t.Errorf("402 body %s; want need 1 (a local proof), spendable 0 and what the house holds", res.Body)
		}
		if n := len(jobsSince(t, a, k)); n != 0 {
			t.Errorf("a refused develop left %d jobs", n)
		}
	})
}
