package lookbrief_test

import (
	"slices"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/ledger"
	"studio/internal/look"
)

// TestWordsCoverTheLook: every aesthetic, fixed variation key and posture
// axis stop the look service can write has words a model is given.
func TestWordsCoverTheLook(t *testing.T) {
	for _, a := range look.Aesthetics {
		if lookbrief.Aesthetics[a] == "" {
			t.Errorf("aesthetic %s has no words", a)
		}
	}
	for _, k := range look.VariationKeys {
		if lookbrief.KeyDirectives[k] == "" {
			t.Errorf("key %s has no directive", k)
		}
	}
	for _, ax := range look.Axes {
		for _, st := range ax.Stops {
			if lookbrief.Controls[ax.ID][st.ID] == "" {
				t.Errorf("control %s=%s has no words", ax.ID, st.ID)
			}
		}
	}
	for _, b := range look.BackgroundLibrary {
		if look.Scene(b.ID) == "" {
			t.Errorf("preset %s has no scene", b.ID)
		}
	}
	if d := (look.Postures{}).Directive("lean-wall"); !strings.Contains(d, "Shoulder against a wall") || !strings.Contains(d, "ankles crossed") {
		t.Errorf("the lean-wall directive is %q", d)
	}
}

func TestBrief(t *testing.T) {
	img := []byte("x")
	cases := []struct {
		name      string
		inputs    []string
		params    map[string]string
		tier      ledger.Tier
		shape     *engine.Shape
		parts     []string
		w, h      int
		directive string
		err       bool
	}{
		{name: "lock", inputs: []string{"model", "item", "item", "background"}, params: map[string]string{"key": "lock"},
			tier: ledger.Tier2K, shape: &engine.Shape{Width: 1080, Height: 1920}, parts: []string{"model", "item", "item", "background"}, w: 1152, h: 2048},
		{name: "lock without a shape is 4:5", inputs: []string{"model", "item"}, tier: ledger.Tier1K, parts: []string{"model", "item"}, w: 819, h: 1024},
		{name: "restored", inputs: []string{"model", "item"}, params: map[string]string{"restore": "1"}, tier: ledger.Tier4K,
			shape: &engine.Shape{Width: 8000, Height: 4000}, parts: []string{"model", "item"}, w: 8192, h: 4096},
		{name: "variation", inputs: []string{"model", "item", "base"}, params: map[string]string{"key": "walking"}, tier: ledger.Tier1K,
			parts: []string{"base", "item"}, w: 819, h: 1024, directive: "full length, walking towards the camera mid-stride"},
		{name: "posture without controls", inputs: []string{"model", "item", "base"}, params: map[string]string{"key": "posture:spin", "posture": "A turn"},
			tier: ledger.Tier1K, parts: []string{"base", "item"}, w: 819, h: 1024, directive: "full length, posed: A turn"},
		{name: "posture with controls in axis order", inputs: []string{"model", "item", "base"},
			params: map[string]string{"key": "posture:spin", "posture": "A turn", "control.energy": "dynamic", "control.gaze": "down", "control.arms": "nonsense"},
			tier:   ledger.Tier1K, parts: []string{"base", "item"}, w: 819, h: 1024, directive: "full length, posed: A turn; looking down, dynamic, full of movement"},
		{name: "an unknown key is front", inputs: []string{"model", "base"}, params: map[string]string{"key": "sideways"}, tier: ledger.Tier1K,
			parts: []string{"base"}, w: 819, h: 1024, directive: lookbrief.KeyDirectives["front"]},
		{name: "no model", inputs: []string{"item"}, tier: ledger.Tier1K, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := engine.Request{Tool: "lookbook", Params: c.params, Tier: c.tier, Shape: c.shape}
			for _, role := range c.inputs {
				r.Inputs = append(r.Inputs, engine.Input{Role: role, Data: img})
			}
			b, err := lookbrief.Of(r)
			if c.err {
				if !engine.IsInput(err) {
					t.Fatalf("err = %v, want an input fault", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.Parts, c.parts) || b.Width != c.w || b.Height != c.h {
				t.Errorf("parts %v %dx%d, want %v %dx%d", b.Parts, b.Width, b.Height, c.parts, c.w, c.h)
			}
			if c.directive != "" && !strings.Contains(b.Prompt, "Re-shoot it: "+c.directive) {
				t.Errorf("the prompt lacks the directive %q:\n%s", c.directive, b.Prompt)
			}
		})
	}
}

func TestPieces(t *testing.T) {
	r := engine.Request{Tool: "lookbook", Params: map[string]string{"roles": "dress, shoes", "labels": `["Silk  slip\n dress"]`},
		Inputs: []engine.Input{{Role: "item"}, {Role: "item"}, {Role: "item"}}}
	got := lookbrief.Pieces(r)
	want := []lookbrief.Piece{{Role: "dress", Label: "Silk slip dress", Hero: true}, {Role: "shoes"}, {Role: "piece"}}
	if !slices.Equal(got, want) {
		t.Errorf("Pieces = %+v, want %+v", got, want)
	}
}

func TestAspects(t *testing.T) {
	accepted := []string{"21:9", "16:9", "3:2", "4:3", "5:4", "1:1", "4:5", "3:4", "2:3", "9:16"}
	for _, c := range []struct {
		w, h    float64
		nearest string
	}{{1080, 1350, "4:5"}, {1024, 1024, "1:1"}, {2400, 800, "21:9"}, {2480, 3508, "2:3"}, {1080, 1920, "9:16"}} {
		if got := lookbrief.Nearest(engine.Aspect{W: c.w, H: c.h}, accepted); got != c.nearest {
			t.Errorf("Nearest(%v:%v) = %s, want %s", c.w, c.h, got, c.nearest)
		}
	}
	for _, c := range []struct {
		asked string
		w, h  int
		fits  bool
	}{{"4:5", 819, 1024, true}, {"4:5", 1024, 1024, false}, {"16:9", 1376, 768, true}, {"16:9", 0, 0, false}, {"x", 10, 10, false}} {
		if got := lookbrief.Fits(c.asked, c.w, c.h); got != c.fits {
			t.Errorf("Fits(%s, %d, %d) = %v", c.asked, c.w, c.h, got)
		}
	}
}

// TestBriefMarks: the riding marks follow the look's own images, each named
// by its position and material; a text-only reference sends no picture; a
// marked frame's closing lets the logos show.
func TestBriefMarks(t *testing.T) {
	marks := []engine.Reference{{Role: "mark", Label: "Wordmark", Text: "gold foil", Data: []byte("m1"), AssetID: "a-m1"},
		{Role: "note", Text: "words only"},
		{Role: "mark", Label: "Monogram", Text: "blind emboss.", Data: []byte("m2"), AssetID: "a-m2"}}
	lock := engine.Request{Tool: lookbrief.Tool, Tier: ledger.Tier1K, References: marks, Params: map[string]string{"roles": "top", "labels": `["Silk shirt"]`},
		Inputs: []engine.Input{{Role: "model", Data: []byte("p"), AssetID: "a-p"}, {Role: "item", Data: []byte("s"), AssetID: "a-s"},
			{Role: "background", Data: []byte("g"), AssetID: "a-g"}}}
	b, err := lookbrief.Of(lock)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, r := range b.Sent().Refs {
		refs = append(refs, r.Role+":"+r.Label+":"+r.Text+":"+r.AssetID)
	}
	if got := strings.Join(refs, "|"); got != "model:::a-p|item:Silk shirt::a-s|background:::a-g|mark:Wordmark:gold foil:a-m1|mark:Monogram:blind emboss.:a-m2" ||
		!slices.Equal(b.Parts, []string{"model", "item", "background", "mark", "mark"}) || string(b.Images[4]) != "m2" {
		t.Errorf("the lock sends %s (%v)", got, b.Parts)
	}
	for _, w := range []string{"The setting is the place shown in image 3.",
		" Image 4 is the house's logo rendition Wordmark, in gold foil; image 5 is the house's logo rendition Monogram, in blind emboss. Reproduce each logo exactly as shown",
		"no text or logo other than the logo renditions shown."} {
		if !strings.Contains(b.Prompt, w) {
			t.Errorf("the lock's prompt lacks %q:\n%s", w, b.Prompt)
		}
	}
	if strings.Contains(b.Prompt, "no text,") {
		t.Errorf("a marked frame forbids all text:\n%s", b.Prompt)
	}
	variation := lock
	variation.Params = map[string]string{"key": "front"}
	variation.References = marks[:1]
	variation.Inputs = []engine.Input{{Role: "base", Data: []byte("b"), AssetID: "a-b"}, {Role: "item", Data: []byte("s")}}
	if b, err = lookbrief.Of(variation); err != nil {
		t.Fatal(err)
	}
	if len(b.Images) != 3 || b.Refs[0].AssetID != "a-b" || !strings.Contains(b.Prompt, " Image 3 is the house's logo rendition Wordmark, in gold foil. Reproduce the logo exactly") {
		t.Errorf("the variation: %v\n%s", b.Parts, b.Prompt)
	}
	plain := lock
	plain.References = nil
	if b, _ = lookbrief.Of(plain); len(b.Images) != 3 || strings.Contains(b.Prompt, "logo") || !strings.HasSuffix(b.Prompt, "no text, no watermark, no collage, no borders.") {
		t.Errorf("without marks: %v\n%s", b.Parts, b.Prompt)
	}
}
