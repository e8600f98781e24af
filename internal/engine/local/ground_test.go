package local_test

import (
	"context"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
)

// Subjects on real grounds (generated: known shapes on procedural wood,
// concrete and clutter), through the graph cut of package segment.

func onGround(ground func(w, h int) segtest.Texture, s segtest.Shape, c color.NRGBA, w, h int) *image.NRGBA {
	cov := segtest.Coverage(s, w, h)
	fill := segtest.Fill(c, segtest.Linen(w, h), 0.3, w, h)
	return segtest.Composite(ground(w, h), fill, cov, w, h, 0.3, 1)
}

func TestPackshotOnARealGround(t *testing.T) {
	navy := color.NRGBA{R: 30, G: 50, B: 120, A: 255}
	grounds := map[string]func(w, h int) segtest.Texture{"wood": segtest.Wood, "concrete": segtest.Concrete}
	if raceEnabled {
		delete(grounds, "concrete")
	}
	for name, ground := range grounds {
		t.Run(name, func(t *testing.T) {
			src := encJPEG(t, onGround(ground, segtest.TShirt, navy, 320, 240)) // the cut runs at the source's size
			_, img := run(t, engine.Request{Tool: "packshot", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", src)}})
			// The canvas around the garment is white: no ground came along.
			for _, band := range []image.Rectangle{rel(img, 0, 0, 1, 0.05), rel(img, 0, 0, 0.05, 1), rel(img, 0.95, 0, 1, 1)} {
				if d := dist(meanRGB(img, band), [3]float64{255, 255, 255}); d > 10 {
					t.Errorf("border %v is %v, not white", band, meanRGB(img, band))
				}
			}
			// The garment fills the middle, in its own colour.
			if d := dist(meanRGB(img, rel(img, 0.45, 0.45, 0.55, 0.6)), rgbOf(navy)); d > 40 {
				t.Errorf("centre %v is %.0f from the garment's navy", meanRGB(img, rel(img, 0.45, 0.45, 0.55, 0.6)), d)
			}
			// Beside the body, between the sleeves and the hem, is canvas,
			// not the ground: the outline was followed.
			if beside := meanRGB(img, rel(img, 0.12, 0.7, 0.2, 0.78)); dist(beside, [3]float64{255, 255, 255}) > 30 {
				t.Errorf("beside the garment %v, want the white canvas", beside)
			}
		})
	}
}

func TestRemoveBackgroundOnARealGround(t *testing.T) {
	if raceEnabled {
		t.Skip("the separation itself is race-tested in engine/segment")
	}
	src := encJPEG(t, onGround(segtest.Wood, segtest.Bottle, color.NRGBA{R: 40, G: 120, B: 60, A: 255}, 480, 360))
	res, img := run(t, engine.Request{Tool: "remove-background", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", src)}})
	if res.Mime != "image/png" {
		t.Fatalf("Mime %s, want image/png", res.Mime)
	}
	alphaAt := func(u, v float64) uint8 {
		b := img.Bounds()
		_, _, _, a := img.At(b.Min.X+int(u*float64(b.Dx())), b.Min.Y+int(v*float64(b.Dy()))).RGBA()
		return uint8(a >> 8)
	}
	if a := alphaAt(0.5, 0.6); a < 250 {
		t.Errorf("alpha inside the bottle %d, want opaque", a)
	}
	for _, p := range [][2]float64{{0.1, 0.1}, {0.2, 0.6}, {0.8, 0.5}, {0.5, 0.95}} {
		if a := alphaAt(p[0], p[1]); a > 5 {
			t.Errorf("alpha of the table at %v is %d, want transparent", p, a)
		}
	}
}

// TestRefusesWhatItCannotSeparateCleanly: a busy scene (a café's tables and
// shelves) and a table strewn with beans are refused with the plain reason,
// as an input fault: the worker fails the job and voids its hold.
func TestRefusesWhatItCannotSeparateCleanly(t *testing.T) {
	w, h := 320, 240 // the separation runs at the source's size; a bean is 23x17 px at any
	flat := func(x, y int) [3]float64 { return [3]float64{0, 0, 0} }
	cafe := segtest.Composite(segtest.Clutter(w, h), flat, make([]float32, w*h), w, h, 0, 2)
	strewn := func(ground segtest.Texture, seed uint32) *image.NRGBA {
		return segtest.Composite(func(x, y int) [3]float64 {
			if (x/23+y/17)%5 == 0 && (x%23-11)*(x%23-11)+(y%17-8)*(y%17-8) < 30 {
				return [3]float64{40, 22, 12} // a coffee bean
			}
			return ground(x, y)
		}, flat, make([]float32, w*h), w, h, 0, seed)
	}
	cases := map[string][]byte{
		"café scene": encJPEG(t, cafe),
		// A plain ground the old plain matte took, shredding the beans
		// into a delivered packshot; its mask fails the confidence measure.
		"beans on a sweep": encJPEG(t, strewn(segtest.Plain(w, h), 3)),
		"beans on a table": encJPEG(t, strewn(segtest.Wood(w, h), 4)),
	}
	tools := []string{"packshot", "remove-background", "harmonize"}
	if raceEnabled {
		tools = tools[:1]
		delete(cases, "beans on a table")
		delete(cases, "café scene")
	}
	for name, src := range cases {
		for _, tool := range tools {
			t.Run(name+"/"+tool, func(t *testing.T) {
				r := engine.Request{Tool: tool, Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", src)}}
				if tool == "harmonize" {
					r.Inputs = append(r.Inputs, in("background", encJPEG(t, sceneImage(400, 300))))
				}
				_, err := local.New().Run(context.Background(), r)
				if !engine.IsInput(err) {
					t.Fatalf("err = %v, want an input fault", err)
				}
				if e := err.(*engine.Error); !strings.Contains(e.Reason, "could not be separated from this background cleanly") {
					t.Errorf("reason %q, want the plain sentence", e.Reason)
				}
				if name == "beans on a sweep" && !strings.Contains(err.Error(), "plain matte: score") {
					t.Errorf("err %v; want the plain matte refused by its confidence", err)
				}
			})
		}
	}
}

// TestTryonTakesStudioFiguresOnly: the local try-on is an honest composite,
// so a figure on a real ground is refused even when it could be cut out.
func TestTryonTakesStudioFiguresOnly(t *testing.T) {
	figure := segtest.Composite(segtest.Wood(300, 420), segtest.Fill(shirtBlue, nil, 0, 300, 420),
		segtest.Coverage(segtest.Figure, 300, 420), 300, 420, 0, 4)
	garment := encPNG(t, garmentImage(300))
	r := engine.Request{Tool: "tryon", Tier: ledger.Tier1K, Inputs: []engine.Input{in("model", encJPEG(t, figure)), in("garment", garment)}}
	_, err := local.New().Run(context.Background(), r)
	if !engine.IsInput(err) || !strings.Contains(err.Error(), "studio figures only") {
		t.Fatalf("err = %v, want the studio-figures refusal", err)
	}
	// A preflight foresees it, in the words the develop fails with; a
	// studio figure it foresees nothing for.
	e, _ := errors.AsType[*engine.Error](err)
	found, err := local.New().Preflight(context.Background(), r)
	if err != nil || len(found) != 1 || found[0].Code != local.CodeLowConfidence || found[0].Message != e.Reason {
		t.Errorf("preflight %+v %v; want one %s problem saying %q", found, err, local.CodeLowConfidence, e.Reason)
	}
	r.Inputs[0] = in("model", encJPEG(t, modelImage(420)))
	if found, err := local.New().Preflight(context.Background(), r); err != nil || len(found) != 0 {
		t.Errorf("preflight of a studio figure: %+v %v; want no problem", found, err)
	}
}
