package brand

import (
	"image"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"studio/internal/errs"
)

func TestClampBounds(t *testing.T) {
	long := strings.Repeat("word ", 200)
	var vibe, palette []string
	var kws []Keyword
	for i := range 30 {
		vibe = append(vibe, strconv.Itoa(i)+strings.Repeat("v", 50))
		palette = append(palette, "#"+strings.Repeat(string("0123456789abcdef"[i%16]), 6))
		kws = append(kws, Keyword{Category: strings.Repeat("c", 60), Phrase: strconv.Itoa(i) + strings.Repeat("p", 100)})
	}
	p := Profile{VisionEn: "  " + long + "\n\tend", Vibe: vibe, Palette: palette, SignatureKeywords: kws, DNARuns: -3}
	p.Clamp()
	if n := utf8.RuneCountInString(p.VisionEn); n > MaxVision || n < MaxVision/2 {
		t.Errorf("visionEn is %d characters", n)
	}
	if strings.HasSuffix(p.VisionEn, " ") || strings.Contains(p.VisionEn, "  ") {
		t.Errorf("visionEn not folded: %q", p.VisionEn[len(p.VisionEn)-20:])
	}
	if len(p.Vibe) != MaxVibe || len(p.Palette) != MaxPalette || len(p.SignatureKeywords) != MaxKeywords {
		t.Errorf("lists: %d vibe, %d palette, %d keywords", len(p.Vibe), len(p.Palette), len(p.SignatureKeywords))
	}
	for _, v := range p.Vibe {
		if utf8.RuneCountInString(v) > MaxVibeLen {
			t.Errorf("vibe item of %d characters", utf8.RuneCountInString(v))
		}
	}
	for _, k := range p.SignatureKeywords {
		if utf8.RuneCountInString(k.Category) > MaxCategoryLen || utf8.RuneCountInString(k.Phrase) > MaxPhraseLen {
			t.Errorf("keyword %q", k)
		}
	}
	if p.DNARuns != 0 || p.Clause != "" {
		t.Errorf("runs %d, clause %q", p.DNARuns, p.Clause)
	}
}

func TestClampDrops(t *testing.T) {
	p := Profile{
		Vibe:              []string{" Quiet ", "quiet", "", "  ", "coastal\x01"},
		Palette:           []string{"#1F2A44", "1f2a44", "#abc", "red", "#12345", "fff"},
		SignatureKeywords: []Keyword{{"material", "washed linen"}, {"Material", "Washed Linen"}, {"", "x"}, {"detail", " "}},
	}
	p.Clamp()
	if !slices.Equal(p.Vibe, []string{"Quiet", "coastal"}) {
		t.Errorf("vibe %q", p.Vibe)
	}
	if !slices.Equal(p.Palette, []string{"#1f2a44", "#aabbcc", "#ffffff"}) {
		t.Errorf("palette %q", p.Palette)
	}
	if len(p.SignatureKeywords) != 1 {
		t.Errorf("keywords %q", p.SignatureKeywords)
	}
}

func TestClause(t *testing.T) {
	p := Profile{VisionEn: "Quiet tailoring by the sea", Vibe: []string{"calm", "coastal"}, Palette: []string{"#1f2a44", "#e8dcc8"},
		SignatureKeywords: []Keyword{{"material", "washed linen."}, {"silhouette", "wide trousers"}}}
	p.Clamp()
	if p.Clause != "" {
		t.Fatalf("clause without injection: %q", p.Clause)
	}
	p.InjectEnabled = true
	p.Clamp()
	want := "House style: Quiet tailoring by the sea. Mood: calm, coastal. Palette: #1f2a44, #e8dcc8. " +
		"Signature details: material: washed linen; silhouette: wide trousers."
	if p.Clause != want {
		t.Errorf("clause\n%q\nwant\n%q", p.Clause, want)
	}
	again := p
	again.Clamp()
	if again.Clause != p.Clause {
		t.Error("the clause is not deterministic")
	}
	empty := Profile{InjectEnabled: true}
	empty.Clamp()
	if empty.Clause != "" {
		t.Errorf("an empty profile says %q", empty.Clause)
	}
	only := Profile{InjectEnabled: true, VisionEn: "Bold!"}
	only.Clamp()
	if only.Clause != "House style: Bold!" {
		t.Errorf("clause %q", only.Clause)
	}
}

func TestDNARequestCheck(t *testing.T) {
	img := pngOf(t, 20, 20, color.NRGBA{10, 20, 30, 255})
	tests := []struct {
		name string
		req  DNARequest
		code string
	}{
		{"no images", DNARequest{}, "NO_IMAGES"},
		{"eleven", DNARequest{Images: slices.Repeat([][]byte{img}, 11)}, "BAD_FORM"},
		{"set too large", DNARequest{Images: [][]byte{make([]byte, 12<<20), make([]byte, 12<<20), make([]byte, 9<<20)}}, "SET_TOO_LARGE"},
		{"empty part", DNARequest{Images: [][]byte{img, {}}}, "BAD_FORM"},
		{"not an image", DNARequest{Images: [][]byte{[]byte("GIF89a....")}}, "BAD_FORM"},
		{"bad vibe", DNARequest{Images: [][]byte{img}, Vibe: `"calm"`}, "BAD_FORM"},
		{"ok", DNARequest{Images: [][]byte{img}, Vibe: `["calm"]`, Products: `["linen shirts", "knitwear"]`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := tt.req.check()
			if code := codeOf(err); code != tt.code {
				t.Fatalf("got %v; want %s", err, tt.code)
			}
			if tt.code == "" && (in.products != "linen shirts, knitwear" || !slices.Equal(in.vibe, []string{"calm"})) {
				t.Errorf("hints %q %q", in.products, in.vibe)
			}
		})
	}
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return "?"
}

// TestPaletteMeasured: two photographs, one mostly navy with a cream
// band, one cream with a rust patch, read as navy, cream and rust, the
// most present first, each within a few ΔE of the true colour; the same
// set reads the same twice.
func TestPaletteMeasured(t *testing.T) {
	navy, cream, rust := color.NRGBA{0x1f, 0x2a, 0x44, 255}, color.NRGBA{0xe8, 0xdc, 0xc8, 255}, color.NRGBA{0xb5, 0x4a, 0x2a, 255}
	a := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	b := image.NewNRGBA(image.Rect(0, 0, 200, 200))
	for y := range 300 {
		for x := range 400 {
			c := navy
			if y > 220 {
				c = cream
			}
			a.SetNRGBA(x, y, c)
		}
	}
	for y := range 200 {
		for x := range 200 {
			c := cream
			if x < 60 && y < 100 {
				c = rust
			}
			b.SetNRGBA(x, y, c)
		}
	}
	// A transparent corner is not a colour of the set.
	for y := range 20 {
		for x := range 20 {
			b.SetNRGBA(199-x, 199-y, color.NRGBA{0, 255, 0, 0})
		}
	}
	got := MeasurePalette([]Sample{SampleOf(a), SampleOf(b)})
	if len(got) != 3 {
		t.Fatalf("palette %q; want navy, cream and rust", got)
	}
	for i, want := range []color.NRGBA{cream, navy, rust} {
		if d := deltaE(labOf(want.R, want.G, want.B), labOfHex(t, got[i])); d > 3 {
			t.Errorf("colour %d is %s, %.1f ΔE from %v", i, got[i], d, want)
		}
	}
	if again := MeasurePalette([]Sample{SampleOf(a), SampleOf(b)}); !slices.Equal(again, got) {
		t.Errorf("second read %q differs from %q", again, got)
	}
	if empty := MeasurePalette(nil); len(empty) != 0 {
		t.Errorf("no pixels gave %q", empty)
	}
}

func labOfHex(t *testing.T, h string) Lab {
	t.Helper()
	var r, g, b uint8
	if _, err := fmtSscanf(h, &r, &g, &b); err != nil {
		t.Fatal(err)
	}
	return labOf(r, g, b)
}

func TestHexRoundTrip(t *testing.T) {
	for _, c := range [][3]uint8{{0, 0, 0}, {255, 255, 255}, {31, 42, 68}, {232, 220, 200}, {181, 74, 42}} {
		if got, want := hexOf(labOf(c[0], c[1], c[2])), hexString(c); got != want {
			t.Errorf("%v: %s; want %s", c, got, want)
		}
	}
}
