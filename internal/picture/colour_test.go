package picture_test

import (
	"math"
	"testing"

	"studio/internal/picture"
)

func TestToLab(t *testing.T) {
	// Reference values: CIE L*a*b* (D65) of sRGB colours, as colour
	// calculators give them (e.g. Bruce Lindbloom's, sRGB, D65, no adaptation).
	tests := []struct {
		name     string
		r, g, b  float64
		l, a, bb float64
	}{
		{"black", 0, 0, 0, 0, 0, 0},
		{"white", 255, 255, 255, 100, 0, 0},
		{"red", 255, 0, 0, 53.2408, 80.0925, 67.2032},
		{"green", 0, 255, 0, 87.7347, -86.1827, 83.1793},
		{"blue", 0, 0, 255, 32.2970, 79.1875, -107.8602},
		{"mid grey", 128, 128, 128, 53.5850, 0, 0},
		{"a fraction between table entries", 127.5, 127.5, 127.5, 53.3889, 0, 0},
		{"out of range is clamped", -20, 300, -1, 87.7347, -86.1827, 83.1793},
	}
	for _, tt := range tests {
		l, a, b := picture.ToLab(tt.r, tt.g, tt.b)
		if math.Abs(l-tt.l) > 0.01 || math.Abs(a-tt.a) > 0.01 || math.Abs(b-tt.bb) > 0.01 {
			t.Errorf("%s: ToLab = %.4f %.4f %.4f; want %.4f %.4f %.4f", tt.name, l, a, b, tt.l, tt.a, tt.bb)
		}
	}
}

func TestFromLab(t *testing.T) {
	tests := []struct {
		name     string
		l, a, bb float64
		r, g, b  float64
	}{
		{"white", 100, 0, 0, 255, 255, 255},
		{"black", 0, 0, 0, 0, 0, 0},
		{"red", 53.2408, 80.0925, 67.2032, 255, 0, 0},
		{"outside the gamut: green and blue are clamped", 50, 120, -120, 184.18, 0, 255},
		{"brighter than white is clamped", 120, 0, 0, 255, 255, 255},
	}
	for _, tt := range tests {
		r, g, b := picture.FromLab(tt.l, tt.a, tt.bb)
		if math.Abs(r-tt.r) > 0.05 || math.Abs(g-tt.g) > 0.05 || math.Abs(b-tt.b) > 0.05 {
			t.Errorf("%s: FromLab = %.3f %.3f %.3f; want %.0f %.0f %.0f", tt.name, r, g, b, tt.r, tt.g, tt.b)
		}
	}
}

// TestLabRoundTrip: every 8-bit colour on a coarse grid comes back from
// Lab within a thousandth of a step, and so does linear light.
func TestLabRoundTrip(t *testing.T) {
	for r := 0; r < 256; r += 15 {
		for g := 0; g < 256; g += 15 {
			for b := 0; b < 256; b += 15 {
				rr, gg, bb := picture.FromLab(picture.ToLab(float64(r), float64(g), float64(b)))
				if math.Abs(rr-float64(r)) > 1e-3 || math.Abs(gg-float64(g)) > 1e-3 || math.Abs(bb-float64(b)) > 1e-3 {
					t.Fatalf("(%d, %d, %d) came back as (%.4f, %.4f, %.4f)", r, g, b, rr, gg, bb)
				}
			}
		}
	}
	for v := 0.0; v <= 255; v += 0.25 {
		if back := picture.FromLinear(picture.ToLinear(v)); math.Abs(back-v) > 1e-9 {
			t.Fatalf("linear round trip of %v gave %v", v, back)
		}
	}
}

func TestLinear(t *testing.T) {
	tests := []struct {
		srgb, linear float64
	}{
		{0, 0},
		{255, 1},
		{10, 10.0 / 255 / 12.92}, // the linear toe, below 0.04045
		{128, 0.2158605},         // the power segment
		{-5, 0},                  // clamped
		{300, 1},                 // clamped
		{0.5, 0.5 / 255 / 12.92}, // a fraction takes the formula, not the table
	}
	for _, tt := range tests {
		if got := picture.ToLinear(tt.srgb); math.Abs(got-tt.linear) > 1e-6 {
			t.Errorf("ToLinear(%v) = %v; want %v", tt.srgb, got, tt.linear)
		}
	}
	if got := picture.FromLinear(2); math.Abs(got-255) > 1e-9 {
		t.Errorf("FromLinear(2) = %v; want the clamped white", got)
	}
	if got := picture.FromLinear(-1); got != 0 {
		t.Errorf("FromLinear(-1) = %v; want 0", got)
	}
}
