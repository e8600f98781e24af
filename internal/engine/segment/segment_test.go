package segment_test

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"

	"studio/internal/engine/segment"
	"studio/internal/engine/segment/segtest"
)

// Generated pictures only: known masks on procedural grounds.

// tw x th is the test pictures' size; the race detector gets smaller ones.
var tw, th = func() (int, int) {
	if raceEnabled {
		return 200, 150
	}
	return 360, 270
}()

func picture(ground func(w, h int) segtest.Texture, s segtest.Shape, c color.NRGBA, w, h int) (*image.NRGBA, []bool) {
	cov := segtest.Coverage(s, w, h)
	fill := segtest.Fill(c, segtest.Concrete(w, h), 0.2, w, h)
	return segtest.Composite(ground(w, h), fill, cov, w, h, 0.12, 1), segtest.Mask(cov)
}

func separate(t *testing.T, img *image.NRGBA) (*segment.Cut, []bool) {
	t.Helper()
	cut, err := segment.Separate(context.Background(), img, segment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	alpha := cut.Matte(img)
	if len(alpha) != img.Rect.Dx()*img.Rect.Dy() {
		t.Fatalf("matte has %d values for a %v image", len(alpha), img.Rect)
	}
	m := make([]bool, len(alpha))
	for i, a := range alpha {
		if a < 0 || a > 1 {
			t.Fatalf("alpha[%d] = %v, outside 0..1", i, a)
		}
		m[i] = a >= 0.5
	}
	return cut, m
}

func TestSeparatesSubjectsFromPlainAndTexturedGrounds(t *testing.T) {
	grounds := []struct {
		name string
		f    func(w, h int) segtest.Texture
	}{
		{"plain", segtest.Plain},
		{"wood", segtest.Wood},
		{"concrete", segtest.Concrete},
		{"linen", segtest.Linen},
	}
	subjects := []struct {
		name string
		s    segtest.Shape
		c    color.NRGBA
	}{
		{"tshirt", segtest.TShirt, color.NRGBA{R: 30, G: 60, B: 140, A: 255}},
		{"bottle", segtest.Bottle, color.NRGBA{R: 40, G: 120, B: 60, A: 255}},
		{"bag", segtest.Bag, color.NRGBA{R: 120, G: 30, B: 60, A: 255}},
	}
	if raceEnabled {
		grounds, subjects = grounds[1:2], subjects[:1]
	}
	for _, g := range grounds {
		for _, s := range subjects {
			t.Run(g.name+"/"+s.name, func(t *testing.T) {
				img, truth := picture(g.f, s.s, s.c, tw, th)
				cut, m := separate(t, img)
				if !cut.Confidence.Confident() {
					t.Fatalf("not confident: %v", cut.Confidence)
				}
				if iou := segtest.IoU(m, truth); iou < 0.9 {
					t.Fatalf("IoU %.3f < 0.9 (%v)", iou, cut.Confidence)
				}
			})
		}
	}
}

func TestGivesCastShadowsBackToTheGround(t *testing.T) {
	// A dark shadow (40% darker) beside a garment on a concrete floor: the
	// colour model alone takes it for subject.
	w, h := tw, th
	cov := segtest.Coverage(segtest.TShirt, w, h)
	fill := segtest.Fill(color.NRGBA{R: 30, G: 60, B: 140, A: 255}, nil, 0, w, h)
	img := segtest.Composite(segtest.Concrete(w, h), fill, cov, w, h, 0.4, 6)
	cut, m := separate(t, img)
	if !cut.Confidence.Confident() {
		t.Fatalf("not confident: %v", cut.Confidence)
	}
	if iou := segtest.IoU(m, segtest.Mask(cov)); iou < 0.97 {
		t.Fatalf("IoU %.3f < 0.97: the shadow stayed with the subject", iou)
	}
}

func TestSeparatesAFigureCutByTheBottomEdge(t *testing.T) {
	w, h := 4*th/3, 16*th/9
	cov := segtest.Coverage(segtest.HalfFigure, w, h)
	fill := segtest.Fill(color.NRGBA{R: 170, G: 40, B: 50, A: 255}, nil, 0, w, h)
	img := segtest.Composite(segtest.Linen(w, h), fill, cov, w, h, 0, 2)
	cut, m := separate(t, img)
	if !cut.Confidence.Confident() || !cut.OpenBottom {
		t.Fatalf("confident %v, open bottom %v: %v", cut.Confidence.Confident(), cut.OpenBottom, cut.Confidence)
	}
	if iou := segtest.IoU(m, segtest.Mask(cov)); iou < 0.9 {
		t.Fatalf("IoU %.3f < 0.9", iou)
	}
}

func TestRefusesWhatItCannotSeparate(t *testing.T) {
	w, h := tw, th
	flat := func(w, h int) segtest.Texture {
		return func(x, y int) [3]float64 { return [3]float64{128, 128, 128} }
	}
	cases := []struct {
		name string
		img  *image.NRGBA
	}{
		// A shop shelf: shapes of every colour, no one subject.
		{"clutter", segtest.Composite(segtest.Clutter(w, h), flat(w, h), make([]float32, w*h), w, h, 0, 3)},
		// A subject painted with the ground itself.
		{"camouflage", func() *image.NRGBA {
			cov := segtest.Coverage(segtest.TShirt, w, h)
			return segtest.Composite(segtest.Clutter(w, h), segtest.Clutter(w, h), cov, w, h, 0, 4)
		}()},
		// Nothing but a flat grey.
		{"empty", segtest.Composite(flat(w, h), flat(w, h), make([]float32, w*h), w, h, 0, 5)},
	}
	if raceEnabled {
		cases = cases[1:]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cut, _ := separate(t, c.img)
			if cut.Confidence.Confident() {
				t.Fatalf("confident on %s: %v", c.name, cut.Confidence)
			}
			if cut.Confidence.Problem == "" {
				t.Fatal("a refusal names no problem")
			}
		})
	}
}

func TestAssessScoresShreddedMasksLow(t *testing.T) {
	img, truth := picture(segtest.Wood, segtest.TShirt, color.NRGBA{R: 30, G: 60, B: 140, A: 255}, tw, th)
	alpha := func(m []bool) []float32 {
		out := make([]float32, len(m))
		for i, v := range m {
			if v {
				out[i] = 1
			}
		}
		return out
	}
	if c := segment.Assess(img, alpha(truth), segment.Options{}); !c.Confident() {
		t.Fatalf("the true mask is not confident: %v", c)
	}
	// Shred the truth: keep it only in a checkerboard of 12 px cells, and
	// add specks of ground.
	shred := make([]bool, len(truth))
	for i := range shred {
		x, y := i%tw, i/tw
		shred[i] = (truth[i] && (x/12+y/12)%2 == 0) || (x%37 == 0 && y%29 == 0)
	}
	if c := segment.Assess(img, alpha(shred), segment.Options{}); c.Confident() {
		t.Fatalf("a shredded mask is confident: %v", c)
	}
}

func TestSeparateRefusesTinyImagesAndStopsWithItsContext(t *testing.T) {
	if _, err := segment.Separate(context.Background(), image.NewNRGBA(image.Rect(0, 0, 8, 40)), segment.Options{}); !errors.Is(err, segment.ErrTooSmall) {
		t.Fatalf("err = %v, want ErrTooSmall", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	img, _ := picture(segtest.Plain, segtest.Bottle, color.NRGBA{R: 200, A: 255}, 120, 90)
	if _, err := segment.Separate(ctx, img, segment.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestMatteAtAnotherSizeAndGround(t *testing.T) {
	// Cut on a small copy, matte at twice the size: the alpha follows the
	// larger picture's edges.
	small, _ := picture(segtest.Concrete, segtest.Bottle, color.NRGBA{R: 150, G: 30, B: 30, A: 255}, 180, 135)
	big, truth := picture(segtest.Concrete, segtest.Bottle, color.NRGBA{R: 150, G: 30, B: 30, A: 255}, 360, 270)
	cut, err := segment.Separate(context.Background(), small, segment.Options{})
	if err != nil || !cut.Confidence.Confident() {
		t.Fatalf("err %v, confidence %v", err, cut.Confidence)
	}
	alpha := cut.Matte(big)
	m := make([]bool, len(alpha))
	for i, a := range alpha {
		m[i] = a >= 0.5
	}
	if iou := segtest.IoU(m, truth); iou < 0.9 {
		t.Fatalf("IoU at twice the size %.3f < 0.9", iou)
	}
	// The ground behind the subject is the concrete's grey, not the bottle's red.
	var c [3]float64
	cut.Ground().At(0.5, 0.6, &c)
	if c[0]-c[1] > 20 || c[0] < 90 {
		t.Fatalf("ground behind the subject = %v, want the concrete's grey", c)
	}
}

// FuzzSeparate builds a small image from bytes (a size, then colours drawn
// in blocks) and checks the invariants: no panic, a score in 0..1, a
// problem named when not confident, an alpha in 0..1 of the right size.
func FuzzSeparate(f *testing.F) {
	f.Add([]byte{20, 20, 255, 255, 255, 10, 20, 200})
	f.Add([]byte{40, 17, 0, 0, 0, 255, 255, 255, 128, 64, 32, 1, 2, 3})
	f.Add([]byte{16, 60})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		w, h := 16+int(data[0])%48, 16+int(data[1])%48
		data = data[2:]
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range w * h {
			x, y := i%w, i/w
			k := ((y/4)*((w+3)/4) + x/4) * 3
			for c := range 3 {
				if len(data) > 0 {
					img.Pix[i*4+c] = data[(k+c)%len(data)]
				}
			}
			img.Pix[i*4+3] = 255
		}
		cut, err := segment.Separate(context.Background(), img, segment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := cut.Confidence
		if c.Score < 0 || c.Score > 1 {
			t.Fatalf("score %v", c.Score)
		}
		if !c.Confident() && c.Problem == "" {
			t.Fatalf("refused without a problem: %v", c)
		}
		alpha := cut.Matte(img)
		if len(alpha) != w*h {
			t.Fatalf("alpha has %d values, want %d", len(alpha), w*h)
		}
		for _, a := range alpha {
			if !(a >= 0 && a <= 1) {
				t.Fatalf("alpha %v", a)
			}
		}
	})
}

// twoTone paints a figure by height: top above split, trousers below.
func twoTone(top, bottom color.NRGBA, split float64, w, h int) segtest.Texture {
	t := segtest.Fill(top, nil, 0, w, h)
	b := segtest.Fill(bottom, nil, 0, w, h)
	return func(x, y int) [3]float64 {
		if float64(y) < split*float64(h) {
			return t(x, y)
		}
		return b(x, y)
	}
}

// A figure in a yellow top and navy trousers, cut at the thighs by the
// frame: a mask that kept the top and left the trousers (which run on to
// the bottom edge) to the ground is refused as cut off; the whole figure
// is not cut off (Assess sees a closed frame, so it runs off the frame).
func TestAssessRefusesASubjectCutOffAtTheFrame(t *testing.T) {
	w, h := 4*th/3, 16*th/9
	cov := segtest.Coverage(segtest.HalfFigure, w, h)
	fill := twoTone(color.NRGBA{R: 230, G: 200, B: 60, A: 255}, color.NRGBA{R: 50, G: 60, B: 90, A: 255}, 0.8, w, h)
	img := segtest.Composite(segtest.Concrete(w, h), fill, cov, w, h, 0, 9)
	truth := segtest.Mask(cov)
	whole := make([]float32, w*h)
	top := make([]float32, w*h)
	for i, v := range truth {
		if v {
			whole[i] = 1
			if i/w < 8*h/10 {
				top[i] = 1
			}
		}
	}
	if c := segment.Assess(img, whole, segment.Options{}); c.CutOff > 0.3 {
		t.Fatalf("the whole figure: %v", c)
	}
	c := segment.Assess(img, top, segment.Options{})
	if c.Confident() || c.CutOff < 0.9 || c.Problem != "part of the subject was cut off at the frame's edge" {
		t.Fatalf("the top alone: %v", c)
	}
	// Separated, the figure is delivered whole (the open-bottom cut) or refused.
	cut, m := separate(t, img)
	if cut.Confidence.Confident() {
		if iou := segtest.IoU(m, truth); iou < 0.95 {
			t.Fatalf("delivered with IoU %.3f: %v", iou, cut.Confidence)
		}
	}
}
