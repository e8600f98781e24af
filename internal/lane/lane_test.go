package lane

import (
	"image"
	"math"
	"strings"
	"testing"
)

func TestNormBox(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want [4]int
		ok   bool
	}{
		{[]float64{100, 200, 600, 800.4}, [4]int{100, 200, 600, 800}, true},
		{[]float64{-5, 0, 1200, 999.6}, [4]int{0, 0, 1000, 1000}, true},
		{[]float64{700, 100, 650, 300}, [4]int{}, false}, // ymin past ymax
		{[]float64{10, 10, 10, 20}, [4]int{}, false},     // no height
		{[]float64{1, 2, 3}, [4]int{}, false},
		{[]float64{math.NaN(), 0, 10, 10}, [4]int{}, false},
	} {
		got, ok := normBox(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("normBox(%v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCutRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"Gold hoop earrings", 40, "Gold hoop earrings"},
		{"Gold hoop earrings with hammered finish, large size", 40, "Gold hoop earrings with hammered finish,"},
		{"Ééééééééé", 4, "Éééé"},
	} {
		if got := cutRunes(tc.in, tc.n); got != tc.want {
			t.Errorf("cutRunes(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// FuzzTarget: a checked target always lies inside the picture, a box has
// at least MinEdge pixels a side, and a refusal is TARGET_REQUIRED.
func FuzzTarget(f *testing.F) {
	f.Add(20.0, 0.0, 140.0, 120.0, 80.0, 60.0, "", 160, 120)
	f.Add(-10.0, -10.0, 1e9, 1e9, -1.0, 5.0, "bag", 64, 64)
	f.Add(math.NaN(), 0.0, 1.0, 1.0, math.Inf(1), 0.0, "", 16, 16)
	f.Fuzz(func(t *testing.T, x0, y0, x1, y1, px, py float64, label string, w, h int) {
		if w <= 0 || h <= 0 || w > 1<<14 || h > 1<<14 {
			return
		}
		r := SegmentRequest{Label: label, Box: []float64{x0, y0, x1, y1}, Point: []float64{px, py}}
		tg, err := r.checkTarget(w, h)
		if err != nil {
			if !strings.Contains(err.Error(), "TARGET_REQUIRED") {
				t.Fatalf("refusal %v", err)
			}
			return
		}
		frame := image.Rect(0, 0, w, h)
		if tg.box == nil || !tg.box.In(frame) || tg.box.Dx() < 16 || tg.box.Dy() < 16 {
			t.Fatalf("box %v in %v", tg.box, frame)
		}
		if tg.point == nil || !tg.point.In(frame) {
			t.Fatalf("point %v in %v", tg.point, frame)
		}
	})
}
