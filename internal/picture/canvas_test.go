package picture_test

import (
	"image"
	"image/color"
	"testing"

	"studio/internal/picture"
)

func TestFit(t *testing.T) {
	tests := []struct {
		name           string
		iw, ih, w, h   int
		inside, canvas image.Point
	}{
		{"same aspect", 800, 600, 1024, 768, image.Pt(1024, 768), image.Pt(1024, 768)},
		{"wider image", 1600, 900, 819, 1024, image.Pt(819, 461), image.Pt(819, 461)},
		{"taller image", 800, 800, 1024, 576, image.Pt(576, 576), image.Pt(576, 576)},
		{"within 2 px snaps to the canvas", 800, 1001, 819, 1024, image.Pt(818, 1024), image.Pt(819, 1024)},
		{"3 px off does not snap", 1000, 994, 1024, 1024, image.Pt(1024, 1018), image.Pt(1024, 1018)},
		{"never below one pixel", 10_000, 1, 100, 100, image.Pt(100, 1), image.Pt(100, 1)},
	}
	for _, tt := range tests {
		fw, fh := picture.FitInside(tt.iw, tt.ih, tt.w, tt.h)
		cw, ch := picture.FitCanvas(tt.iw, tt.ih, tt.w, tt.h)
		if image.Pt(fw, fh) != tt.inside || image.Pt(cw, ch) != tt.canvas {
			t.Errorf("%s: FitInside %dx%d, FitCanvas %dx%d; want %v, %v", tt.name, fw, fh, cw, ch, tt.inside, tt.canvas)
		}
	}
}

func TestResize(t *testing.T) {
	img := solid(40, 20, color.NRGBA{R: 100, G: 150, B: 200, A: 255})
	if picture.Resize(img, 40, 20) != img {
		t.Error("Resize to the same size copied")
	}
	if got := picture.Resize(img, 10, 30).Rect; got != image.Rect(0, 0, 10, 30) {
		t.Errorf("Resize to 10x30 gave %v", got)
	}
	if picture.FitLong(img, 64) != img {
		t.Error("FitLong upsized or copied a picture already inside")
	}
	if got := picture.FitLong(img, 10).Rect; got != image.Rect(0, 0, 10, 5) {
		t.Errorf("FitLong to 10 gave %v", got)
	}
	sub := solid(10, 10, color.NRGBA{A: 255}).SubImage(image.Rect(2, 2, 6, 8))
	if got := picture.NRGBA(sub).Rect; got != image.Rect(0, 0, 4, 6) {
		t.Errorf("NRGBA of a sub-image is at %v; want the origin", got)
	}
}

func TestConform(t *testing.T) {
	plain := solid(100, 100, color.NRGBA{R: 240, G: 238, B: 230, A: 255})
	tests := []struct {
		name        string
		img         *image.NRGBA
		w, h        int
		fill        picture.Fill
		transparent bool
		corner      color.NRGBA // the canvas's corner, outside the picture
	}{
		// A plain border continues into the canvas as the same colour.
		{"auto on a plain border extends it", plain, 200, 100, picture.FillAuto, false, color.NRGBA{R: 240, G: 238, B: 230, A: 255}},
		{"extend", plain, 100, 300, picture.FillExtend, false, color.NRGBA{R: 240, G: 238, B: 230, A: 255}},
		// The blur fill is the picture dimmed to 92%.
		{"blur dims the fill", plain, 300, 100, picture.FillBlur, false, color.NRGBA{R: 221, G: 219, B: 212, A: 255}},
		{"transparent leaves the canvas clear", plain, 200, 100, picture.FillAuto, true, color.NRGBA{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := picture.Conform(tt.img, tt.w, tt.h, tt.fill, tt.transparent)
			if out.Rect != image.Rect(0, 0, tt.w, tt.h) {
				t.Fatalf("bounds %v; want %dx%d", out.Rect, tt.w, tt.h)
			}
			if got := out.NRGBAAt(0, 0); !near(got, tt.corner, true) {
				t.Errorf("corner %v; want %v", got, tt.corner)
			}
			if got := out.NRGBAAt(tt.w/2, tt.h/2); got != plain.NRGBAAt(50, 50) {
				t.Errorf("centre %v; want the picture's own %v", got, plain.NRGBAAt(50, 50))
			}
		})
	}
	if picture.Conform(plain, 100, 100, picture.FillAuto, false) != plain {
		t.Error("Conform to the picture's own size copied it")
	}
	if got := picture.Conform(plain, 51, 50, picture.FillAuto, false).Rect; got != image.Rect(0, 0, 51, 50) {
		t.Errorf("Conform within 2 px gave %v; want a plain resample to 51x50", got)
	}
}

func TestParallelCoversEveryRowOnce(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		seen := make([]int32, n)
		picture.Parallel(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++ // each row belongs to one chunk: no two goroutines write one element
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: row %d ran %d times", n, i, c)
			}
		}
	}
}

func TestClamp8AndSmoothstep(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want uint8
	}{{-3, 0}, {0.49, 0}, {0.5, 1}, {127.5, 128}, {254.6, 255}, {999, 255}} {
		if got := picture.Clamp8(tt.v); got != tt.want {
			t.Errorf("Clamp8(%v) = %d; want %d", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct{ x, want float64 }{{-1, 0}, {0, 0}, {5, 0.5}, {10, 1}, {11, 1}} {
		if got := picture.Smoothstep(0, 10, tt.x); got != tt.want {
			t.Errorf("Smoothstep(0, 10, %v) = %v; want %v", tt.x, got, tt.want)
		}
	}
}
