package engine_test

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/ledger"
)

func TestParseAspect(t *testing.T) {
	tests := []struct {
		in    string
		ratio float64
		ok    bool
	}{
		{"4:5", 0.8, true}, {"16:9", 16.0 / 9, true}, {" 1:1 ", 1, true}, {"3/2", 1.5, true},
		{"1080x1920", 0.5625, true}, {"1.25", 1.25, true}, {"2.39:1", 2.39, true},
		{"", 0, false}, {"4:", 0, false}, {":5", 0, false}, {"0:1", 0, false}, {"-4:5", 0, false},
		{"1:20", 0, false}, {"wide", 0, false}, {"NaN:1", 0, false}, {"Inf:1", 0, false}, {"4:5:6", 0, false},
	}
	for _, tt := range tests {
		a, err := engine.ParseAspect(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseAspect(%q) err = %v, want ok %v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && math.Abs(a.Ratio()-tt.ratio) > 1e-9 {
			t.Errorf("ParseAspect(%q) = %v, ratio %v, want %v", tt.in, a, a.Ratio(), tt.ratio)
		}
	}
}

func TestParseColor(t *testing.T) {
	tests := []struct {
		in   string
		want color.NRGBA
		ok   bool
	}{
		{"#1f3a5f", color.NRGBA{0x1f, 0x3a, 0x5f, 255}, true},
		{"#FFFFFF", color.NRGBA{255, 255, 255, 255}, true},
		{" #000000 ", color.NRGBA{0, 0, 0, 255}, true},
		{"1f3a5f", color.NRGBA{}, false}, {"#fff", color.NRGBA{}, false}, {"#gggggg", color.NRGBA{}, false},
		{"#+12345", color.NRGBA{}, false}, {"red", color.NRGBA{}, false}, {"", color.NRGBA{}, false},
	}
	for _, tt := range tests {
		c, err := engine.ParseColor(tt.in)
		if (err == nil) != tt.ok || c != tt.want {
			t.Errorf("ParseColor(%q) = %v, %v; want %v, ok %v", tt.in, c, err, tt.want, tt.ok)
		}
	}
}

func TestParseLensAndFit(t *testing.T) {
	for in, want := range map[string]engine.Lens{"85mm": {Focal: 85}, "35 mm": {Focal: 35}, "50": {Focal: 50}, "MACRO": {Focal: 100, Macro: true}} {
		if l, err := engine.ParseLens(in); err != nil || l != want {
			t.Errorf("ParseLens(%q) = %v, %v; want %v", in, l, err, want)
		}
	}
	for _, in := range []string{"", "fisheye", "5mm", "1000mm", "-85mm", "85cm"} {
		if _, err := engine.ParseLens(in); err == nil {
			t.Errorf("ParseLens(%q) accepted", in)
		}
	}
	for in, scale := range map[string]float64{"fitted": 0.9, "Regular": 1, "loose": 1.1, " oversized ": 1.22} {
		if f, err := engine.ParseFit(in); err != nil || f.Scale() != scale {
			t.Errorf("ParseFit(%q) = %v (%v), %v", in, f, f.Scale(), err)
		}
	}
	for _, in := range []string{"", "baggy", "slim"} {
		if _, err := engine.ParseFit(in); err == nil {
			t.Errorf("ParseFit(%q) accepted", in)
		}
	}
}

func TestCanvas(t *testing.T) {
	for _, tt := range []struct {
		a    engine.Aspect
		w, h int
	}{{engine.Aspect{W: 4, H: 5}, 819, 1024}, {engine.Aspect{W: 16, H: 9}, 1024, 576}, {engine.Aspect{W: 1, H: 1}, 1024, 1024}} {
		if w, h := engine.Canvas(ledger.Tier1K, tt.a); w != tt.w || h != tt.h {
			t.Errorf("Canvas(1k, %v) = %dx%d, want %dx%d", tt.a, w, h, tt.w, tt.h)
		}
	}
}

func FuzzParseAspect(f *testing.F) {
	for _, s := range []string{"4:5", "16:9", "1.25", "1080x1920", "3/2", "0:0", "-1:2", "1e308:1", "NaN", "∞:1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := engine.ParseAspect(s)
		if err != nil {
			return
		}
		r := a.Ratio()
		if !(a.W > 0 && a.H > 0) || math.IsInf(a.W, 0) || math.IsInf(a.H, 0) || r < 0.1 || r > 10 {
			t.Fatalf("ParseAspect(%q) = %+v, ratio %v", s, a, r)
		}
		b, err := engine.ParseAspect(a.String())
		if err != nil || math.Abs(b.Ratio()-r) > 1e-9*r {
			t.Fatalf("%q -> %v -> %v, %v: not a round trip", s, a, b, err)
		}
		w, h := engine.Canvas(ledger.Tier4K, a)
		if max(w, h) != 4096 || min(w, h) < 1 {
			t.Fatalf("Canvas(4k, %v) = %dx%d", a, w, h)
		}
	})
}

func FuzzParseColor(f *testing.F) {
	for _, s := range []string{"#1f3a5f", "#FFFFFF", "#fff", "#-00000", "#+fffff", "#0x1234", "#ｆｆｆｆｆｆ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseColor(s)
		if err != nil {
			return
		}
		if got := fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B); got != strings.ToLower(strings.TrimSpace(s)) || c.A != 255 {
			t.Fatalf("ParseColor(%q) = %v, written back %q", s, c, got)
		}
	})
}

func FuzzParseLens(f *testing.F) {
	for _, s := range []string{"85mm", "35 mm", "macro", "24", "1e2mm", "0x10mm", "mm", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := engine.ParseLens(s)
		if err != nil {
			return
		}
		if l.Focal < 10 || l.Focal > 600 || math.IsNaN(l.Focal) {
			t.Fatalf("ParseLens(%q) = %+v", s, l)
		}
		if back, err := engine.ParseLens(l.String()); err != nil || back != l {
			t.Fatalf("%q -> %v -> %v, %v", s, l, back, err)
		}
	})
}

func FuzzParseFit(f *testing.F) {
	for _, s := range []string{"fitted", "LOOSE", " regular", "oversized", "over sized", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fit, err := engine.ParseFit(s)
		if err != nil {
			return
		}
		if sc := fit.Scale(); sc < 0.9 || sc > 1.22 {
			t.Fatalf("ParseFit(%q).Scale() = %v", s, sc)
		}
		if back, err := engine.ParseFit(string(fit)); err != nil || back != fit {
			t.Fatalf("%q -> %v -> %v, %v", s, fit, back, err)
		}
	})
}
