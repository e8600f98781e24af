package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/ledger"
)

// The AI lanes (SPEC §4.9). Without an AI endpoint or fal in the walk, the
// samples are requests a member is refused with a 400 (the input is checked
// before the provider), and a viewer with a 403.
var lanesWalk = walkArea{
	samples: map[string]sampleFunc{
		"POST /api/toolkit/ai/depth":                laneEmpty("/api/toolkit/ai/depth"),
		"POST /api/toolkit/ai/describe-item":        laneEmpty("/api/toolkit/ai/describe-item"),
		"POST /api/toolkit/ai/detect-items":         laneEmpty("/api/toolkit/ai/detect-items"),
		"POST /api/toolkit/ai/extract-character":    laneEmpty("/api/toolkit/ai/extract-character"),
		"POST /api/toolkit/ai/remove-background":    laneEmpty("/api/toolkit/ai/remove-background"),
		"POST /api/toolkit/ai/segment":              static("/api/toolkit/ai/segment", map[string]any{"imageUrl": "", "point": []int{1, 1}}),
		"POST /api/toolkit/ai/face-features":        static("/api/toolkit/ai/face-features", map[string]any{"imageUrl": ""}),
		"POST /api/toolkit/ai/inspiration-keywords": static("/api/toolkit/ai/inspiration-keywords", map[string]any{"vibe": ""}),
		"POST /api/toolkit/ai/midjourney-prompts":   static("/api/toolkit/ai/midjourney-prompts", map[string]any{"description": ""}),
		"POST /api/toolkit/ai/prompt-builder":       static("/api/toolkit/ai/prompt-builder", map[string]any{"subject": ""}),
		"POST /api/toolkit/ai/prompt-enhancer":      static("/api/toolkit/ai/prompt-enhancer", map[string]any{"prompt": ""}),
		"POST /api/toolkit/ai/extract-build":        static("/api/toolkit/ai/extract-build", map[string]any{"assetId": ""}),
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/ai/depth":                auth.Member,
		"POST /api/toolkit/ai/describe-item":        auth.Member,
		"POST /api/toolkit/ai/detect-items":         auth.Member,
		"POST /api/toolkit/ai/extract-character":    auth.Member,
		"POST /api/toolkit/ai/remove-background":    auth.Member,
		"POST /api/toolkit/ai/segment":              auth.Member,
		"POST /api/toolkit/ai/face-features":        auth.Member,
		"POST /api/toolkit/ai/inspiration-keywords": auth.Member,
		"POST /api/toolkit/ai/midjourney-prompts":   auth.Member,
		"POST /api/toolkit/ai/prompt-builder":       auth.Member,
		"POST /api/toolkit/ai/prompt-enhancer":      auth.Member,
		"POST /api/toolkit/ai/extract-build":        auth.Member,
	},
}

func laneEmpty(path string) sampleFunc {
	return func(t *testing.T, _ *apptest.App, _ *apptest.User) request {
		return request{path, apptest.Multipart(t)}
	}
}

func imagePart(t testing.TB, data []byte) apptest.Form {
	return apptest.Multipart(t, apptest.Part{Name: "image", Filename: "look.png", Data: data})
}

// subjectPNG is a w x h picture of a dark red disc on a pale studio ground.
func subjectPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	cx, cy, r := w/2, h/2, min(w, h)/3
	for y := range h {
		for x := range w {
			c := color.NRGBA{236, 234, 230, 255}
			if dx, dy := x-cx, y-cy; dx*dx+dy*dy <= r*r {
				c = color.NRGBA{uint8(120 + (x*40)/w), 24, 30, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fakeFal speaks fal's queue protocol (submit, status, response) for any
// model: the output is a white square on black (a mask, or a depth map).
// While fail is set, a request completes with an error.
func fakeFal(t testing.TB) (string, *atomic.Bool, *atomic.Int64) {
	t.Helper()
	fail, calls := &atomic.Bool{}, &atomic.Int64{}
	mask := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			v := uint8(0)
			if x >= 16 && x < 48 && y >= 16 && y < 48 {
				v = 255
			}
			mask.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, mask); err != nil {
		t.Fatal(err)
	}
	out := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Key test-fal" {
			http.Error(w, `{"detail": "no key"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		path := strings.Trim(r.URL.Path, "/")
		switch {
		case r.Method == http.MethodPost:
			calls.Add(1)
			var in map[string]any
			if json.NewDecoder(r.Body).Decode(&in) != nil || in["image_url"] == nil {
				http.Error(w, `{"detail": "image_url is required"}`, http.StatusUnprocessableEntity)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"request_id": "req-1"})
		case strings.HasSuffix(path, "/status"):
			st := map[string]any{"status": "COMPLETED"}
			if fail.Load() {
				st["error"], st["error_type"] = "the model failed", "runtime_error"
			}
			_ = json.NewEncoder(w).Encode(st)
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"image": map[string]any{"url": out, "content_type": "image/png"}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, fail, calls
}

// balanceOf is the house's spendable balance and held tokens.
func balanceOf(t testing.TB, a *apptest.App, c apptest.Cred) (int64, int64) {
	t.Helper()
	var b ledger.Balance
	a.Do(t, "GET", "/api/toolkit/ai/billing/balance", c, nil).JSON(t, &b)
	return b.Balance, b.Held
}

// broke is a fresh house whose every token is held by an open hold.
func broke(t *testing.T, a *apptest.App) *apptest.User {
	t.Helper()
	u := a.SignUp(t, "broke")
	spendable, _ := balanceOf(t, a, u.Session())
	if err := a.DB.TakeHold(context.Background(), u.HouseID, ledger.NewHold("", spendable)); err != nil {
		t.Fatal(err)
	}
	return u
}

var (
	imageLanes = []string{"depth", "describe-item", "detect-items", "extract-character", "face-features", "remove-background"}
	aiImage    = []string{"describe-item", "detect-items", "extract-character", "face-features"}
	textLanes  = map[string][2]any{ // lane: a valid body, the code of an empty one
		"inspiration-keywords": {map[string]any{"vibe": "sun-bleached Riviera linen"}, "VIBE_REQUIRED"},
		"midjourney-prompts":   {map[string]any{"description": "a linen resort capsule", "count": 2}, "DESCRIPTION_REQUIRED"},
		"prompt-builder":       {map[string]any{"subject": "a linen shirt dress", "vibe": "quiet"}, "SUBJECT_REQUIRED"},
		"prompt-enhancer":      {map[string]any{"prompt": "woman in dress on beach", "intent": "campaign"}, "PROMPT_REQUIRED"},
	}
	// goodAnswers are in-schema answers of each AI lane.
	goodAnswers = map[string]aitest.Answer{
		"describe-item":        aitest.JSON(map[string]any{"kind": "jewelry", "name": "Gold hoop earrings with hammered finish, large size", "fit": nil, "wearer": nil}),
		"detect-items":         aitest.JSON(map[string]any{"items": []any{map[string]any{"label": "linen shirt", "box": []float64{100, 200, 600, 800.4}}, map[string]any{"label": "belt", "box": []float64{700, 100, 650, 300}}}}),
		"extract-character":    aitest.JSON(map[string]any{"faceDetected": true, "age": "late twenties", "skin": "light, freckled", "eyes": "green", "hair": "auburn, shoulder length", "extras": ""}),
		"face-features":        aitest.JSON(map[string]any{"faceDetected": true, "keywords": strings.Fields("oval high-cheekbones arched-brows green-eyes straight-nose full-lips soft-jaw freckles auburn-hair wavy-hair fair-skin calm-gaze long-lashes defined-chin slim-neck rosy-cheeks strong-brow small-ears smooth-forehead natural-makeup extra-one extra-two")}),
		"inspiration-keywords": aitest.JSON(map[string]any{"categories": []any{map[string]any{"category": "palette", "keywords": []string{"bone", "sand", "faded blue"}}}}),
		"midjourney-prompts":   aitest.JSON(map[string]any{"shots": []any{map[string]any{"label": "Hero", "prompt": "linen dress on a terrace --ar 4:5"}, map[string]any{"label": "Detail", "prompt": "linen texture macro --ar 1:1"}}}),
		"prompt-builder":       aitest.JSON(map[string]any{"prompt": "A linen shirt dress on a sunlit terrace, soft morning light, 85mm."}),
		"prompt-enhancer":      aitest.JSON(map[string]any{"improved": "A woman in a white linen dress on an empty beach at golden hour, 50mm.", "notes": []string{"Named the light.", "Named the lens."}}),
	}
)

func lanePath(l string) string { return "/api/toolkit/ai/" + l }

func TestLanes(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		falURL, falFail, falCalls := fakeFal(t)
		bare := apptest.New(t, e)
		full := apptest.New(t, e, withAI(srv), func(c *app.Config) { c.FalKey, c.FalURL = "test-fal", falURL })

		owner, other := bare.SignUp(t, "maison"), bare.SignUp(t, "other")
		c := owner.Session()
		disc := subjectPNG(t, 160, 120)
		own := upload(t, bare, c, disc, "kind", "clothes")
		foreign := upload(t, bare, other.Session(), disc, "kind", "clothes")
		before, _ := balanceOf(t, bare, c)

		t.Run("the image is checked first", func(t *testing.T) {
			gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
			huge := make([]byte, 12<<20+1)
			for _, l := range imageLanes {
				missing := "IMAGE_REQUIRED"
				if l == "remove-background" {
					missing = "NO_IMAGE"
				}
				want(t, bare.Do(t, "POST", lanePath(l), c, apptest.Multipart(t)), 400, missing)
				want(t, bare.Do(t, "POST", lanePath(l), c, imagePart(t, nil)), 400, "EMPTY_IMAGE")
				want(t, bare.Do(t, "POST", lanePath(l), c, imagePart(t, gif)), 400, "BAD_FORM")
				want(t, bare.Do(t, "POST", lanePath(l), c, imagePart(t, huge)), 413, "IMAGE_TOO_LARGE")
			}
			for _, body := range []map[string]any{{}, {"imageUrl": "https://example.com/x.jpg"}} {
				want(t, bare.Do(t, "POST", lanePath("face-features"), c, body), 400, "IMAGE_REQUIRED")
				want(t, bare.Do(t, "POST", lanePath("segment"), c, map[string]any{"imageUrl": body["imageUrl"], "point": []int{1, 1}}), 400, "IMAGE_REQUIRED")
			}
			want(t, bare.Do(t, "POST", lanePath("face-features"), c, map[string]any{"imageUrl": foreign.URL}), 404, "ASSET_NOT_FOUND")
			want(t, bare.Do(t, "POST", lanePath("segment"), c, map[string]any{"imageUrl": foreign.ID, "box": []int{0, 0, 50, 50}}), 404, "ASSET_NOT_FOUND")
			for _, target := range []map[string]any{{}, {"box": []int{10, 10, 5, 40}}, {"box": []int{500, 500, 600, 600}}, {"point": []int{160, 5}}, {"point": []int{1}}} {
				target["imageUrl"] = own.URL
				want(t, bare.Do(t, "POST", lanePath("segment"), c, target), 400, "TARGET_REQUIRED")
			}
		})

		t.Run("text tools check their fields", func(t *testing.T) {
			for l, v := range textLanes {
				want(t, bare.Do(t, "POST", lanePath(l), c, map[string]any{}), 400, v[1].(string))
				body := map[string]any{}
				for k, x := range v[0].(map[string]any) {
					body[k] = x
				}
				for k := range body {
					if k != "count" {
						body[k] = strings.Repeat("a", 2001)
						break
					}
				}
				want(t, bare.Do(t, "POST", lanePath(l), c, body), 400, "BAD_BODY")
			}
			want(t, bare.Do(t, "POST", lanePath("midjourney-prompts"), c, map[string]any{"description": "linen", "count": 13}), 400, "BAD_BODY")
		})

		t.Run("unconfigured providers answer 503 and charge nothing", func(t *testing.T) {
			for _, l := range aiImage {
				want(t, bare.Do(t, "POST", lanePath(l), c, imagePart(t, disc)), 503, "AI_NOT_CONFIGURED")
			}
			for l, v := range textLanes {
				want(t, bare.Do(t, "POST", lanePath(l), c, v[0]), 503, "AI_NOT_CONFIGURED")
			}
			want(t, bare.Do(t, "POST", lanePath("depth"), c, imagePart(t, disc)), 503, "FAL_NOT_CONFIGURED")
			want(t, bare.Do(t, "POST", lanePath("segment"), c, map[string]any{"imageUrl": own.URL, "label": "the disc"}), 503, "FAL_NOT_CONFIGURED")
			// The local engine refuses what it cannot separate cleanly: nothing is charged.
			noise := noisePNG(t, 96, 96)
			want(t, bare.Do(t, "POST", lanePath("remove-background"), c, imagePart(t, noise)), 503, "FAL_NOT_CONFIGURED")
			noisy := upload(t, bare, c, noise)
			want(t, bare.Do(t, "POST", lanePath("segment"), c, map[string]any{"imageUrl": noisy.ID, "box": []int{10, 10, 80, 80}}), 503, "FAL_NOT_CONFIGURED")
			want(t, bare.Do(t, "POST", lanePath("segment"), c, map[string]any{"imageUrl": own.URL, "point": []int{3, 3}}), 503, "FAL_NOT_CONFIGURED")
			if bal, held := balanceOf(t, bare, c); bal != before || held != 0 {
				t.Errorf("balance %d held %d; want %d and 0", bal, held, before)
			}
		})

		t.Run("the local engine cuts out a box, a point and a background", func(t *testing.T) {
			for _, target := range []map[string]any{{"box": []float64{20, 0, 140, 120}}, {"point": []int{80, 60}}} {
				target["imageUrl"] = own.URL
				res := bare.Do(t, "POST", lanePath("segment"), c, target)
				var out struct {
					URL   string
					BBox  [4]int
					Spent int64
				}
				res.JSON(t, &out)
				if res.Status != 200 || !strings.HasPrefix(out.URL, "data:image/png;base64,") || out.Spent != 1 {
					t.Fatalf("segment %v: %d %.200s", target, res.Status, res.Body)
				}
				// The disc: centre (80, 60), radius 40.
				for i, w := range [4]int{40, 20, 120, 100} {
					if d := out.BBox[i] - w; d < -4 || d > 4 {
						t.Errorf("segment %v: bbox %v; want about [40 20 120 100]", target, out.BBox)
						break
					}
				}
				raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(out.URL, "data:image/png;base64,"))
				cut, err := png.Decode(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if _, _, _, a := cut.At(0, 0).RGBA(); a != 0 {
					t.Errorf("the cut-out's corner is not transparent")
				}
				if _, _, _, a := cut.At(40, 40).RGBA(); a < 0xf000 {
					t.Errorf("the cut-out's centre is not opaque")
				}
			}
			res := bare.Do(t, "POST", lanePath("remove-background"), c, imagePart(t, disc))
			var out struct {
				URL, AssetID string
				Spent        int64
			}
			res.JSON(t, &out)
			if res.Status != 200 || out.Spent != 2 || out.URL != "/api/toolkit/assets/"+out.AssetID+"/file" {
				t.Fatalf("remove-background: %d %s", res.Status, res.Body)
			}
			file := bare.Do(t, "GET", out.URL, c, nil)
			if file.Status != 200 || !bytes.HasPrefix(file.Body, []byte("\x89PNG")) {
				t.Errorf("cut-out file: %d", file.Status)
			}
			a := bare.Do(t, "GET", "/api/toolkit/assets", c, nil).Map(t)["assets"].([]any)[0].(map[string]any)
			if a["id"] != out.AssetID || a["tool"] != "remove-background" || a["name"] != "look cut-out" {
				t.Errorf("the cut-out asset: %v", a)
			}
			if bal, held := balanceOf(t, bare, c); bal != before-4 || held != 0 {
				t.Errorf("balance %d held %d; want %d and 0", bal, held, before-4)
			}
		})

		fowner := full.SignUp(t, "atelier")
		fc := fowner.Session()
		fdisc := upload(t, full, fc, disc, "kind", "clothes")
		fbefore, _ := balanceOf(t, full, fc)

		t.Run("AI lanes answer in their schema and charge one token", func(t *testing.T) {
			body := func(l string) any {
				if v, ok := textLanes[l]; ok {
					return v[0]
				}
				if l == "face-features" {
					return map[string]any{"imageUrl": fdisc.ID}
				}
				return imagePart(t, exifJPEG(t, 40, 20, 6))
			}
			spent := int64(0)
			for l, ans := range goodAnswers {
				srv.Answer(ans)
				res := full.Do(t, "POST", lanePath(l), fc, body(l))
				if res.Status != 200 || !strings.Contains(string(res.Body), `"ok":true`) {
					t.Fatalf("%s: %d %s", l, res.Status, res.Body)
				}
				spent++
				m := res.Map(t)
				switch l {
				case "describe-item":
					if m["kind"] != "jewelry" || len([]rune(m["nameEn"].(string))) > 40 || m["nameEn"] == "" {
						t.Errorf("describe-item: %s", res.Body)
					}
				case "detect-items":
					items := m["items"].([]any)
					if len(items) != 1 || items[0].(map[string]any)["label"] != "linen shirt" ||
						!equalJSON(items[0].(map[string]any)["box"], []any{100.0, 200.0, 600.0, 800.0}) {
						t.Errorf("detect-items: %s", res.Body)
					}
					// The model saw the raw pixel matrix: 40 x 20, not the upright 20 x 40.
					chats := srv.Chats()
					imgs := chats[len(chats)-1].Messages[len(chats[len(chats)-1].Messages)-1].Images()
					if len(imgs) != 1 {
						t.Fatalf("detect-items sent %d images", len(imgs))
					}
					cfg, _, err := image.DecodeConfig(bytes.NewReader(imgs[0]))
					if err != nil || cfg.Width != 40 || cfg.Height != 20 {
						t.Errorf("detect-items showed %dx%d (%v); want the raw 40x20", cfg.Width, cfg.Height, err)
					}
				case "extract-character":
					if m["faceDetected"] != true || m["fields"].(map[string]any)["eyes"] != "green" {
						t.Errorf("extract-character: %s", res.Body)
					}
				case "face-features":
					if kw := m["keywords"].([]any); len(kw) != 20 {
						t.Errorf("face-features: %d keywords; want 20", len(kw))
					}
				}
			}
			// No face: empty fields, still a read.
			srv.Answer(aitest.JSON(map[string]any{"faceDetected": false, "age": "", "skin": "", "eyes": "", "hair": "", "extras": ""}))
			res := full.Do(t, "POST", lanePath("extract-character"), fc, imagePart(t, disc))
			if res.Status != 200 || !strings.Contains(string(res.Body), `"fields":{"age":"","skin":"","eyes":"","hair":"","extras":""}`) {
				t.Errorf("no face: %d %s", res.Status, res.Body)
			}
			spent++
			if bal, held := balanceOf(t, full, fc); bal != fbefore-spent || held != 0 {
				t.Errorf("balance %d held %d; want %d and 0", bal, held, fbefore-spent)
			}
			fbefore -= spent

			// Every failure of the endpoint charges nothing.
			for l := range goodAnswers {
				for _, tc := range []struct {
					answers []aitest.Answer
					status  int
					code    string
				}{
					{[]aitest.Answer{{Content: `{"nope": 1}`}, {Content: `not JSON`}}, 502, "AI_BAD_OUTPUT"},
					{nil, 502, "AI_FAILED"}, // the empty queue answers 500, twice
					{[]aitest.Answer{{Err: aitest.OutOfCredit()}}, 402, "AI_NEEDS_BILLING"},
				} {
					srv.Answer(tc.answers...)
					want(t, full.Do(t, "POST", lanePath(l), fc, body(l)), tc.status, tc.code)
				}
			}
			if bal, held := balanceOf(t, full, fc); bal != fbefore || held != 0 || srv.Pending() != 0 {
				t.Errorf("balance %d held %d pending %d; want %d, 0, 0", bal, held, srv.Pending(), fbefore)
			}
		})

		t.Run("fal serves depth, segment and remove-background", func(t *testing.T) {
			res := full.Do(t, "POST", lanePath("depth"), fc, imagePart(t, disc))
			if res.Status != 200 || !strings.HasPrefix(res.Map(t)["url"].(string), "data:image/png;base64,") {
				t.Fatalf("depth: %d %.200s", res.Status, res.Body)
			}
			res = full.Do(t, "POST", lanePath("segment"), fc, map[string]any{"imageUrl": fdisc.ID, "label": "the disc"})
			if res.Status != 200 || !near(res.Map(t)["bbox"], [4]float64{40, 30, 120, 90}, 2) {
				t.Fatalf("segment: %d %.300s", res.Status, res.Body)
			}
			res = full.Do(t, "POST", lanePath("remove-background"), fc, imagePart(t, disc))
			if res.Status != 200 || res.Map(t)["assetId"] == "" {
				t.Fatalf("remove-background: %d %s", res.Status, res.Body)
			}
			if falCalls.Load() != 3 {
				t.Errorf("fal was called %d times; want 3", falCalls.Load())
			}
			if bal, _ := balanceOf(t, full, fc); bal != fbefore-4 {
				t.Errorf("balance %d; want %d", bal, fbefore-4)
			}
			falFail.Store(true)
			defer falFail.Store(false)
			want(t, full.Do(t, "POST", lanePath("depth"), fc, imagePart(t, disc)), 502, "DEPTH_FAILED")
			want(t, full.Do(t, "POST", lanePath("segment"), fc, map[string]any{"imageUrl": fdisc.ID, "box": []int{0, 0, 100, 100}}), 502, "SEGMENT_FAILED")
			want(t, full.Do(t, "POST", lanePath("remove-background"), fc, imagePart(t, disc)), 502, "REMOVE_BG_FAILED")
			if bal, held := balanceOf(t, full, fc); bal != fbefore-4 || held != 0 {
				t.Errorf("after failures: balance %d held %d; want %d and 0", bal, held, fbefore-4)
			}
		})

		t.Run("a house short of tokens is refused before the call", func(t *testing.T) {
			poor := broke(t, full)
			pc := poor.Session()
			asset := upload(t, full, pc, disc)
			for _, l := range append(imageLanes, "segment", "inspiration-keywords", "midjourney-prompts", "prompt-builder", "prompt-enhancer") {
				var body any = imagePart(t, disc)
				switch l {
				case "segment":
					body = map[string]any{"imageUrl": asset.ID, "box": []int{0, 0, 100, 100}}
				case "face-features":
					body = map[string]any{"imageUrl": asset.URL}
				}
				if v, ok := textLanes[l]; ok {
					body = v[0]
				}
				res := full.Do(t, "POST", lanePath(l), pc, body)
				want(t, res, 402, "INSUFFICIENT_TOKENS")
				if m := res.Map(t); m["spendable"] != 0.0 || m["need"] == nil {
					t.Errorf("%s: %s", l, res.Body)
				}
			}
			if srv.Pending() != 0 || falCalls.Load() != 6 {
				t.Errorf("a provider was asked for a short house")
			}
		})
	})
}

// near reports whether a decoded JSON array of 4 numbers is within tol of w.
func near(v any, w [4]float64, tol float64) bool {
	a, ok := v.([]any)
	if !ok || len(a) != 4 {
		return false
	}
	for i := range a {
		if x, ok := a[i].(float64); !ok || x < w[i]-tol || x > w[i]+tol {
			return false
		}
	}
	return true
}

// equalJSON compares decoded JSON values.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
