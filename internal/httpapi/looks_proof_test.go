package httpapi_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/apptest"
	"studio/internal/engine/segment/segtest"
)

// TestLookProofStory is issue 17's story on the embedded defaults (no
// provider): create a look, develop-lock, lock, ask for four variations
// including a posture key. Every frame is a marked proof (a dark band with
// white words across the bottom), and the four variations are four
// distinct framings of the material, not one card cropped.
func TestLookProofStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		if raceEnabled && e.Name != "sqlite" {
			t.Skip("five local develops are a minute and a half under the race detector; the store's part is the same on both engines")
		}
		a := apptest.New(t, e)
		owner := a.SignUp(t, "proofs")
		k := a.Key(t, owner, "member")
		model := upload(t, a, k, figureJPEG(t, 360, 640), "kind", "model")
		shirt := upload(t, a, k, weaveJPEG(t, 320, 360), "kind", "clothes", "name", "Striped shirt")
		res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, map[string]any{
			"name": "Proof look", "modelAssetId": model.ID,
			"itemAssetIds": []map[string]any{{"assetId": shirt.ID, "role": "top", "hero": true, "label": "Striped shirt"}},
			"background":   map[string]string{"kind": "preset", "value": "concrete"}, "aesthetic": "studio",
		})
		want(t, res, http.StatusCreated, "")
		var created struct{ Look wireLook }
		res.JSON(t, &created)
		id := created.Look.ID
		want(t, a.Do(t, "POST", looksPath(id, "/develop-lock"), k, map[string]any{"quality": "1k", "output": "web-tile"}), 202, "")
		develop(t, a)
		var detail struct {
			LockDevelop struct{ Status, ResultAssetID string }
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &detail)
		if detail.LockDevelop.Status != "done" {
			t.Fatalf("lock develop %+v", detail.LockDevelop)
		}
		want(t, a.Do(t, "POST", looksPath(id, "/lock"), k, map[string]any{"assetId": detail.LockDevelop.ResultAssetID}), 200, "")
		keys := []string{"front", "walking", "detail", "posture:lean-wall"}
		want(t, a.Do(t, "POST", looksPath(id, "/variations"), k, map[string]any{"quality": "1k", "output": "web-tile", "keys": keys}), 202, "")
		develop(t, a)
		var full struct {
			Variations []struct {
				Key, Status string
				AssetID     *string
			}
		}
		a.Do(t, "GET", looksPath(id), k, nil).JSON(t, &full)
		thumbs := map[string][]float64{}
		for _, v := range full.Variations {
			if v.Status != "done" || v.AssetID == nil {
				t.Fatalf("variation %s: %s", v.Key, v.Status)
			}
			img, _, err := image.Decode(bytes.NewReader(fileBytes(t, a, k, *v.AssetID)))
			if err != nil {
				t.Fatal(err)
			}
			if !proofBand(img) {
				t.Errorf("%s: no proof mark across the frame's bottom", v.Key)
			}
			thumbs[v.Key] = greyThumb(img)
		}
		if len(thumbs) != len(keys) {
			t.Fatalf("%d variations developed; want %d", len(thumbs), len(keys))
		}
		for i, ka := range keys {
			for _, kb := range keys[i+1:] {
				d := 0.0
				for j := range thumbs[ka] {
					d += math.Abs(thumbs[ka][j] - thumbs[kb][j])
				}
				if d /= float64(len(thumbs[ka])); d < 8 {
					t.Errorf("%s and %s differ by %.1f grey levels on average; want distinct framings", ka, kb, d)
				}
			}
		}
	})
}

// proofBand: the bottom 4% of the frame is a dark band with light words.
func proofBand(img image.Image) bool {
	b := img.Bounds()
	bright, dark, n := 0, 0, 0
	for y := b.Max.Y - b.Dy()*4/100 + 2; y < b.Max.Y-2; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch l := (r>>8 + g>>8 + bl>>8) / 3; {
			case l > 200:
				bright++
			case l < 60:
				dark++
			}
			n++
		}
	}
	return bright >= n/100 && dark >= n/2
}

// greyThumb is the frame above the band, grey, 40 x 40.
func greyThumb(img image.Image) []float64 {
	b := img.Bounds()
	h := b.Dy() * 95 / 100
	out := make([]float64, 0, 1600)
	for ty := range 40 {
		for tx := range 40 {
			r, g, bl, _ := img.At(b.Min.X+(tx*b.Dx()+b.Dx()/2)/40, b.Min.Y+(ty*h+h/2)/40).RGBA()
			out = append(out, float64(r>>8+g>>8+bl>>8)/3)
		}
	}
	return out
}

// figureJPEG is a standing figure on a plain light ground: a head, a torso
// in a knit, legs in dark trousers. Drawn once per test binary (drawn).
func figureJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	return drawn("figureJPEG", w, h, func() []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				c := color.RGBA{0xf0, 0xef, 0xec, 0xff}
				cx, fy := float64(x-w/2)/float64(w), float64(y)/float64(h)
				switch {
				case fy > 0.06 && fy < 0.17 && cx*cx/0.0036+(fy-0.115)*(fy-0.115)/0.003 < 1:
					c = color.RGBA{0xd6, 0xa0, 0x80, 0xff} // head
				case fy >= 0.17 && fy < 0.55 && math.Abs(cx) < 0.16:
					c = color.RGBA{0x2a, 0x3a, 0x90, 0xff} // torso
				case fy >= 0.55 && fy < 0.96 && math.Abs(cx) > 0.02 && math.Abs(cx) < 0.12:
					c = color.RGBA{0x3a, 0x3a, 0x40, 0xff} // legs
				}
				img.Set(x, y, c)
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	})
}

// weaveJPEG is a red shirt with a fine horizontal stripe on a light ground.
func weaveJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{0xf2, 0xf1, 0xee, 0xff}
			cx, cy := x-w/2, y-h/2
			if (cx > -w/4 && cx < w/4 && cy > -h/3 && cy < h/3) || (cy > -h/3 && cy < -h/8 && cx > -w*2/5 && cx < w*2/5) {
				c = color.RGBA{0xb0, 0x18, 0x28, 0xff}
				if y%4 < 2 {
					c = color.RGBA{0x60, 0x08, 0x10, 0xff}
				}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLookOnPortrait is issue 32's "a local look on a portrait costs 0 and
// says why": a look whose model is a real portrait (Grace Hopper at half
// length before a flag, from the calibration set) is refused on the local
// engine when its base frame is asked for, 422 NO_FIGURE with the reason,
// before anything is held: no job, the balance untouched. The same photo
// sent to try-on as its model is refused in preflight, for the same cause.
func TestLookOnPortrait(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "portrait")
	k := a.Key(t, owner, "member")
	paths, _ := filepath.Glob(filepath.Join(segtest.PhotosDir(), "*", "grace-hopper.jpg"))
	if len(paths) != 1 {
		t.Fatalf("the portrait: %v", paths)
	}
	photo, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	body := lookBody(t, a, k)
	body["modelAssetId"] = upload(t, a, k, photo, "kind", "model").ID
	res := a.Do(t, "POST", "/api/toolkit/lookbook/looks", k, body)
	want(t, res, http.StatusCreated, "")
	var created struct{ Look wireLook }
	res.JSON(t, &created)
	before := houseBalance(t, a, owner.HouseID)
	res = a.Do(t, "POST", looksPath(created.Look.ID, "/develop-lock"), k, map[string]any{"quality": "1k"})
	want(t, res, http.StatusUnprocessableEntity, "NO_FIGURE")
	if msg, _ := res.Map(t)["message"].(string); !strings.Contains(msg, "no standing figure") {
		t.Errorf("the refusal says %q; want why (no standing figure)", msg)
	}
	var detail struct{ LockDevelop *struct{ ID string } }
	a.Do(t, "GET", looksPath(created.Look.ID), k, nil).JSON(t, &detail)
	if after := houseBalance(t, a, owner.HouseID); after.Balance != before.Balance || after.Held != before.Held || detail.LockDevelop != nil {
		t.Errorf("after the refusal: balance %+v (was %+v), lock develop %+v; want nothing held, spent or queued", after, before, detail.LockDevelop)
	}
	var pf struct {
		OK       bool
		Problems []struct{ Code string }
	}
	a.Do(t, "POST", "/api/toolkit/ai/preflight", k, map[string]any{"tool": "tryon",
		"inputs": map[string]string{"model": body["modelAssetId"].(string), "garment": body["itemAssetIds"].([]map[string]any)[0]["assetId"].(string)}}).JSON(t, &pf)
	if pf.OK || len(pf.Problems) != 1 || pf.Problems[0].Code != "LOW_CONFIDENCE" {
		t.Errorf("try-on's preflight of the portrait: %+v; want one LOW_CONFIDENCE problem", pf)
	}
}
