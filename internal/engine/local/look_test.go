package local

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"studio/internal/engine"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// lookFixture is a dark figure (or piece) on a light plain ground.
func lookFixture(t *testing.T, w, h int, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: 240, G: 240, B: 236, A: 255})
			if x > w/3 && x < 2*w/3 && y > h/8 && y < 7*h/8 {
				img.SetNRGBA(x, y, c)
			}
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// figureFixture is a standing figure on a plain light ground: a head, a
// torso in a knit, legs in dark trousers.
func figureFixture(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: 0xf0, G: 0xef, B: 0xec, A: 0xff}
			cx, fy := float64(x-w/2)/float64(w), float64(y)/float64(h)
			switch {
			case fy > 0.06 && fy < 0.17 && cx*cx/0.0036+(fy-0.115)*(fy-0.115)/0.003 < 1:
				c = color.NRGBA{R: 0xd6, G: 0xa0, B: 0x80, A: 0xff} // head
			case fy >= 0.17 && fy < 0.55 && math.Abs(cx) < 0.16:
				c = color.NRGBA{R: 0x2a, G: 0x3a, B: 0x90, A: 0xff} // torso
			case fy >= 0.55 && fy < 0.96 && math.Abs(cx) > 0.02 && math.Abs(cx) < 0.12:
				c = color.NRGBA{R: 0x3a, G: 0x3a, B: 0x40, A: 0xff} // legs
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLookbookTool(t *testing.T) {
	eng := engine.Chain(New(), NewLookbook())
	if !eng.Can("lookbook") {
		t.Fatal("the chained local engine cannot perform lookbook")
	}
	model := figureFixture(t, 150, 240)
	piece := lookFixture(t, 100, 100, color.NRGBA{R: 30, G: 60, B: 140, A: 255})
	bag := lookFixture(t, 80, 80, color.NRGBA{R: 150, G: 40, B: 40, A: 255})
	lock := engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1080, Height: 1350},
		Inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: piece}, {Role: "item", Data: bag}},
		Params: map[string]string{"tone": "#d8c4a4", "aesthetic": "studio", "stage": "lock"}}
	res, err := eng.Run(context.Background(), lock)
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 819 || res.Height != 1024 || res.Mime != "image/jpeg" {
		t.Fatalf("lock frame %dx%d %s; want 819x1024 jpeg", res.Width, res.Height, res.Mime)
	}
	img, err := picture.Decode(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	if c := img.NRGBAAt(10, 10); absInt(int(c.R)-0xd8) > 8 || absInt(int(c.B)-0xa4) > 8 {
		t.Errorf("the ground at the corner is %v; want the sand tone", c)
	}

	noir := lock
	noir.Params = map[string]string{"aesthetic": "noir"}
	noir.Shape = nil
	res, err = eng.Run(context.Background(), noir)
	if err != nil {
		t.Fatal(err)
	}
	img, _ = picture.Decode(res.Data)
	if c := img.NRGBAAt(img.Rect.Dx()/2, img.Rect.Dy()/2); absInt(int(c.R)-int(c.B)) > 6 {
		t.Errorf("a noir frame is not grey: %v", c)
	}

	variation := engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1024, Height: 1024},
		Inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: piece}, {Role: "base", Data: res.Data}},
		Params: map[string]string{"key": "close-up", "restore": "1"}}
	res, err = eng.Run(context.Background(), variation)
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 2048 || res.Height != 2048 {
		t.Errorf("a restored variation is %dx%d; want 2048x2048", res.Width, res.Height)
	}

	if _, err := eng.Run(context.Background(), engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Inputs: []engine.Input{{Role: "item", Data: piece}}}); !engine.IsInput(err) {
		t.Errorf("a look without a model: %v; want an input fault", err)
	}
	if _, err := NewLookbook().Run(context.Background(), engine.Request{Tool: "upscale", Tier: ledger.Tier1K}); err == nil {
		t.Error("the lookbook engine ran upscale")
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestProofBandSaysAlike: a key the proof frames like another says so in
// its band (issue 32): side and three-quarter are one framing, front is
// the look base's, back is the figure mirrored; a key framed its own way
// says nothing more.
func TestProofBandSaysAlike(t *testing.T) {
	words := func(key string) string {
		r := engine.Request{Tool: "lookbook", Inputs: []engine.Input{{Role: "model"}, {Role: "base"}, {Role: "item"}},
			Params: map[string]string{"key": key}}
		_, w := frameOf(r)
		return w
	}
	for key, want := range map[string]string{
		"side":          "side: three-quarter length, framed as three-quarter",
		"three-quarter": "three-quarter: three-quarter length, framed as side",
		"front":         "front: full length, framed as the look base",
		"back":          "back: full length, mirrored (not turned)",
		"walking":       "walking: full length, wide",
		"close-up":      "close-up: head and shoulders",
	} {
		if got := words(key); got != ProofMark+" · "+want {
			t.Errorf("%s: the band reads %q; want %q", key, got, ProofMark+" · "+want)
		}
	}
}
