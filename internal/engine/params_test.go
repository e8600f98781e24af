package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"studio/internal/engine"
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

func TestTier(t *testing.T) {
	for tier, px := range map[engine.Tier]int{"1k": 1024, "2k": 2048, "4k": 4096, "8k": 0, "": 0, "1K": 0} {
		if tier.Pixels() != px || tier.Valid() != (px > 0) {
			t.Errorf("Tier(%q).Pixels() = %d, want %d", tier, tier.Pixels(), px)
		}
	}
	for _, tt := range []struct {
		a    engine.Aspect
		w, h int
	}{{engine.Aspect{W: 4, H: 5}, 819, 1024}, {engine.Aspect{W: 16, H: 9}, 1024, 576}, {engine.Aspect{W: 1, H: 1}, 1024, 1024}} {
		if w, h := engine.Canvas(engine.Tier1K, tt.a); w != tt.w || h != tt.h {
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
		w, h := engine.Canvas(engine.Tier4K, a)
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

// FuzzDecode feeds arbitrary bytes to the input decoder: it must never
// panic, must refuse with an input fault, and what it accepts must be a real,
// bounded image whose size Probe agrees with (up to an EXIF quarter turn).
func FuzzDecode(f *testing.F) {
	f.Add(encJPEG(f, productImage(16, 12)))
	f.Add(encPNG(f, garmentImage(16)))
	f.Add(encPNG(f, image.NewNRGBA(image.Rect(0, 0, 3, 2))))
	f.Add(webpLossless1x1)
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x00\x00\x00\x01\x00\x00\x08\x02\x00\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, pw, ph, perr := engine.Probe(data)
		img, err := engine.Decode(data)
		if err != nil {
			if !engine.IsInput(err) {
				t.Fatalf("Decode error %v is not an input fault", err)
			}
			return
		}
		if perr != nil {
			t.Fatalf("Decode accepted what Probe refused: %v", perr)
		}
		b := img.Bounds()
		if b.Empty() || b.Dx()*b.Dy() > engine.MaxInputPixels {
			t.Fatalf("decoded bounds %v", b)
		}
		if !(b.Dx() == pw && b.Dy() == ph) && !(b.Dx() == ph && b.Dy() == pw) {
			t.Fatalf("decoded %v, probed %dx%d", b.Size(), pw, ph)
		}
	})
}

// FuzzValidate checks that arbitrary options never panic Validate or Run
// and that a refusal is always an input fault.
func FuzzValidate(f *testing.F) {
	f.Add("reframe", "aspect", "4:5")
	f.Add("packshot", "bg", "#ffffff")
	f.Add("camera-lens", "lens", "macro")
	f.Add("iron", "strength", "0.3")
	f.Add("color-change", "color", "#zzzzzz")
	img := encJPEG(f, productImage(48, 36))
	l := engine.NewLocal()
	f.Fuzz(func(t *testing.T, tool, key, value string) {
		if !l.Can(tool) {
			return
		}
		r := engine.Request{Tool: tool, Tier: engine.Tier1K, Params: map[string]string{key: value},
			Inputs: []engine.Input{in("image", img)}}
		if err := engine.Validate(r); err != nil && !engine.IsInput(err) {
			t.Fatalf("Validate: %v", err)
		}
	})
}

// webpLossless1x1 is a 1x1 lossless WebP (VP8L).
var webpLossless1x1 = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestDecodeWebP(t *testing.T) {
	img, err := engine.Decode(webpLossless1x1)
	if err != nil {
		t.Fatalf("WebP does not decode: %v", err)
	}
	if img.Bounds().Dx() != 1 || img.Bounds().Dy() != 1 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	mime, _, _, err := engine.Probe(webpLossless1x1)
	if err != nil || mime != "image/webp" {
		t.Fatalf("Probe = %q, %v", mime, err)
	}
	// And a WebP input runs through a tool.
	res, err := engine.NewLocal().Run(context.Background(), engine.Request{Tool: "upscale", Tier: engine.Tier1K, Inputs: []engine.Input{in("image", webpLossless1x1)}})
	if err != nil || res.Width != 1024 {
		t.Fatalf("upscale of a WebP: %v, %dx%d", err, res.Width, res.Height)
	}
}

func TestDecodeRefusesHugeBeforeDecoding(t *testing.T) {
	// A PNG header claiming 10000 x 10000 pixels, and nothing behind it.
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n\x00\x00\x00\r")
	chunk := []byte("IHDR\x00\x00\x27\x10\x00\x00\x27\x10\x08\x02\x00\x00\x00")
	b.Write(chunk)
	b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(chunk)))
	_, err := engine.Decode(b.Bytes())
	if !engine.IsInput(err) || !strings.Contains(err.Error(), "50 megapixels") {
		t.Fatalf("err = %v, want the 50 megapixel input fault", err)
	}
}
