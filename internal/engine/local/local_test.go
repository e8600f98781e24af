package local_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/ledger"
)

var dumpDir = flag.String("dump", "", "write every local result into this folder, to look at")

func dump(t *testing.T, name string, res engine.Result) {
	if *dumpDir == "" {
		return
	}
	ext := strings.TrimPrefix(res.Mime, "image/")
	name = strings.NewReplacer("/", "_", " ", "_").Replace(name)
	if err := os.WriteFile(filepath.Join(*dumpDir, name+"."+ext), res.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, r engine.Request) (engine.Result, image.Image) {
	t.Helper()
	res, err := rendered(r)
	if err != nil {
		t.Fatalf("Run(%s): %v", r.Tool, err)
	}
	img := decodeResult(t, res.Data, res.Mime, res.Width, res.Height)
	if long := max(res.Width, res.Height); long != r.Tier.Pixels() {
		t.Fatalf("long edge %d, want %d", long, r.Tier.Pixels())
	}
	if r.Shape != nil {
		got := float64(res.Width) / float64(res.Height)
		want := float64(r.Shape.Width) / float64(r.Shape.Height)
		if math.Abs(got-want) > 0.002*want+1/float64(min(res.Width, res.Height)) {
			t.Fatalf("aspect %.4f (%dx%d), want %.4f", got, res.Width, res.Height, want)
		}
	}
	dump(t, t.Name(), res)
	return res, img
}

// renders are the results run has had from the engine in this test
// binary, by request (renderKey): where two tests ask the same request
// (TestShapesAndTiers asks some tool tests' shaped requests), the engine
// renders it once and both tests check the same bytes. Every request
// is still rendered, under the race detector, by the first test that asks
// it; that a render gives the same bytes again is TestDeterministic's.
var renders sync.Map // string -> engine.Result

// renderKey is everything a local render reads of r: the tool, tier,
// shape, params, and each input's role and bytes (rendered leaves a
// request with a prompt, references or a record to the engine each time).
func renderKey(r engine.Request) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", r.Tool, r.Tier)
	if r.Shape != nil {
		fmt.Fprintf(h, "%dx%d", r.Shape.Width, r.Shape.Height)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Params)) {
		fmt.Fprintf(h, "%q=%q\x00", k, r.Params[k])
	}
	for _, in := range r.Inputs {
		fmt.Fprintf(h, "%q %d\x00", in.Role, len(in.Data))
		h.Write(in.Data)
	}
	return string(h.Sum(nil))
}

// rendered is the local engine's result for r, rendered once per test
// binary; a failed render is never kept.
func rendered(r engine.Request) (engine.Result, error) {
	if r.Prompt != "" || r.Record != nil || len(r.References) > 0 {
		return local.New().Run(context.Background(), r)
	}
	k := renderKey(r)
	if res, ok := renders.Load(k); ok {
		return res.(engine.Result), nil
	}
	res, err := local.New().Run(context.Background(), r)
	if err == nil {
		renders.Store(k, res)
	}
	return res, err
}

func in(role string, data []byte) engine.Input { return engine.Input{Role: role, Data: data} }

func TestLocalTools(t *testing.T) {
	want := []string{"camera-lens", "cleanup", "color-change", "fit-adjust", "harmonize", "iron",
		"packshot", "reframe", "remove-background", "tryon", "upscale"}
	l := local.New()
	if got := l.Tools(); !slices.Equal(got, want) {
		t.Fatalf("Tools() = %v, want %v", got, want)
	}
	for _, tool := range want {
		if !l.Can(tool) {
			t.Errorf("Can(%q) = false", tool)
		}
	}
	for _, tool := range []string{"generate-character", "lookbook-video", "prompt-enhancer", "face-features", ""} {
		if l.Can(tool) {
			t.Errorf("Can(%q) = true", tool)
		}
		_, err := l.Run(context.Background(), engine.Request{Tool: tool, Tier: ledger.Tier1K,
			Inputs: []engine.Input{in("image", encJPEG(t, productImage(64, 64)))}})
		if !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("Run(%q) = %v, want ErrUnsupported", tool, err)
		}
	}
	if l.Name() != "local" {
		t.Errorf("Name() = %q", l.Name())
	}
}

// TestShapesAndTiers runs every tool at each tier and with shapes of other
// aspects, checking the frame rules: the result decodes, its long edge is the
// tier's pixels, and its aspect is the shape's.
func TestShapesAndTiers(t *testing.T) {
	// Small sources: the frame rules are about the frame, and a tool
	// separates or measures its source at the source's size.
	product := encJPEG(t, productImage(320, 240))
	model := encJPEG(t, modelImage(350))
	garment := encPNG(t, garmentImage(150))
	scene := encJPEG(t, sceneImage(250, 200))
	mask := encPNG(t, maskImage(320, 240, image.Rect(20, 20, 45, 45)))
	// Three tools' shaped frames are their own tests' shaped requests
	// (TestReframe's "shape wins over aspect", TestPackshot's "shape",
	// TestRemoveBackground's wide canvas): run renders each once per binary.
	product400, product450 := encJPEG(t, productImage(400, 300)), encJPEG(t, productImage(450, 350))
	shaped := map[string]*engine.Shape{"packshot": {Width: 1600, Height: 2000}, "remove-background": {Width: 1920, Height: 1080}}
	reqs := map[string]engine.Request{
		"upscale":           {Inputs: []engine.Input{in("image", product)}},
		"reframe":           {Inputs: []engine.Input{in("image", product400)}, Params: map[string]string{"aspect": "1:1"}},
		"packshot":          {Inputs: []engine.Input{in("image", product450)}},
		"remove-background": {Inputs: []engine.Input{in("image", product400)}},
		"camera-lens":       {Inputs: []engine.Input{in("image", model)}, Params: map[string]string{"lens": "85mm"}},
		"harmonize":         {Inputs: []engine.Input{in("image", model), in("background", scene)}},
		"iron":              {Inputs: []engine.Input{in("image", garment)}},
		"cleanup":           {Inputs: []engine.Input{in("image", product), in("mask", mask)}},
		"color-change":      {Inputs: []engine.Input{in("image", product)}, Params: map[string]string{"color": "#2a7f3c"}},
		"fit-adjust":        {Inputs: []engine.Input{in("image", model)}, Params: map[string]string{"fit": "loose", "part": "top"}},
		"tryon":             {Inputs: []engine.Input{in("model", model), in("garment", garment)}},
	}
	type frame struct {
		tier  ledger.Tier
		shape *engine.Shape
	}
	frames := []frame{
		{ledger.Tier1K, nil},
		{ledger.Tier1K, &engine.Shape{Width: 1080, Height: 1920}},
		{ledger.Tier1K, &engine.Shape{Width: 2400, Height: 800}},
		{ledger.Tier2K, nil},
		{ledger.Tier2K, &engine.Shape{Width: 1024, Height: 1024}},
	}
	switch {
	case raceEnabled:
		frames = frames[1:2] // one shaped frame per tool: the tool tests cover the rest
	case testing.Short():
		frames = frames[:2]
	}
	for _, tool := range local.New().Tools() {
		for _, f := range frames {
			tier, shape := f.tier, f.shape
			if s := shaped[tool]; s != nil && shape != nil && *shape == (engine.Shape{Width: 1080, Height: 1920}) {
				shape = s
			}
			name := fmt.Sprintf("%s/%s/%v", tool, tier, shapeName(shape))
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := reqs[tool]
				r.Tool, r.Tier, r.Shape = tool, tier, shape
				res, _ := run(t, r)
				wantMime := "image/jpeg"
				if tool == "remove-background" {
					wantMime = "image/png"
				}
				if res.Mime != wantMime {
					t.Errorf("Mime = %s, want %s", res.Mime, wantMime)
				}
			})
		}
	}
}

func shapeName(s *engine.Shape) string {
	if s == nil {
		return "own"
	}
	return fmt.Sprintf("%dx%d", s.Width, s.Height)
}

func TestUpscale(t *testing.T) {
	src := productImage(300, 200)
	_, img := run(t, engine.Request{Tool: "upscale", Tier: ledger.Tier2K, Inputs: []engine.Input{in("image", encJPEG(t, src))}})
	if b := img.Bounds(); b.Dx() != 2048 || b.Dy() != 1365 {
		t.Fatalf("upscaled to %v, want 2048x1365", b.Size())
	}
	// The label stays where it was, in its colour.
	got := meanRGB(img, rel(img, 0.45, 0.47, 0.55, 0.53))
	if d := dist(got, rgbOf(productBlue)); d > 40 {
		t.Errorf("label colour %v is %.0f away from %v", got, d, productBlue)
	}
	// Downscale to a smaller tier works too (from 1,200 px: a downscale
	// all the same, at a third of the pixels of a 2,000 px source).
	_, small := run(t, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", encJPEG(t, productImage(1200, 900)))}})
	if b := small.Bounds(); b.Dx() != 1024 || b.Dy() != 768 {
		t.Fatalf("downscaled to %v, want 1024x768", b.Size())
	}
}

func TestReframe(t *testing.T) {
	src := encJPEG(t, productImage(400, 300)) // the frame's size is the tier's, whatever the source's
	tests := []struct {
		name   string
		params map[string]string
		shape  *engine.Shape
		w, h   int
	}{
		{"aspect 4:5", map[string]string{"aspect": "4:5"}, nil, 819, 1024},
		{"aspect 16:9 blur", map[string]string{"aspect": "16:9", "fill": "blur"}, nil, 1024, 576},
		{"shape wins over aspect", map[string]string{"aspect": "1:1"}, &engine.Shape{Width: 1080, Height: 1920}, 576, 1024},
		{"extend", map[string]string{"aspect": "1:2", "fill": "extend"}, nil, 512, 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, img := run(t, engine.Request{Tool: "reframe", Tier: ledger.Tier1K, Shape: tt.shape,
				Params: tt.params, Inputs: []engine.Input{in("image", src)}})
			if res.Width != tt.w || res.Height != tt.h {
				t.Fatalf("size %dx%d, want %dx%d", res.Width, res.Height, tt.w, tt.h)
			}
			// The whole product is kept, centred: the label sits in the middle.
			if d := dist(meanRGB(img, rel(img, 0.47, 0.48, 0.53, 0.52)), rgbOf(productBlue)); d > 45 {
				t.Errorf("centre is %.0f from the label colour", d)
			}
			if tt.params["fill"] == "extend" {
				// The light backdrop continues into the new area.
				top := meanRGB(img, rel(img, 0, 0, 1, 0.05))
				if top[0] < 215 || top[1] < 215 {
					t.Errorf("extended top is %v, want the light backdrop", top)
				}
			}
		})
	}
}

func TestPackshot(t *testing.T) {
	src := encJPEG(t, productImage(450, 350)) // the matte is found at the source's size: a small one is cheap
	ground := encJPEG(t, sceneImage(400, 400))
	tests := []struct {
		name   string
		params map[string]string
		inputs []engine.Input
		shape  *engine.Shape
		border [3]float64
	}{
		{"white square", nil, nil, nil, [3]float64{255, 255, 255}},
		{"colour portrait", map[string]string{"bg": "#f4f1ea", "aspect": "4:5"}, nil, nil, [3]float64{0xf4, 0xf1, 0xea}},
		{"shape", nil, nil, &engine.Shape{Width: 1600, Height: 2000}, [3]float64{255, 255, 255}},
		{"own ground", map[string]string{"bg": "image"}, []engine.Input{in("background", ground)}, nil, [3]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := engine.Request{Tool: "packshot", Tier: ledger.Tier1K, Shape: tt.shape, Params: tt.params,
				Inputs: append([]engine.Input{in("image", src)}, tt.inputs...)}
			res, img := run(t, r)
			if tt.shape == nil && tt.params["aspect"] == "" && res.Width != res.Height {
				t.Errorf("default packshot is %dx%d, want square", res.Width, res.Height)
			}
			// Borders are the clean ground.
			bands := []image.Rectangle{rel(img, 0, 0, 1, 0.04), rel(img, 0, 0, 0.04, 1), rel(img, 0.96, 0, 1, 1)}
			for _, band := range bands {
				want := tt.border
				if tt.params["bg"] == "image" {
					// The background input, scaled to cover the square canvas.
					scene := sceneImage(400, 400)
					sb := image.Rect(band.Min.X*400/img.Bounds().Dx(), band.Min.Y*400/img.Bounds().Dy(),
						band.Max.X*400/img.Bounds().Dx(), band.Max.Y*400/img.Bounds().Dy())
					want = meanRGB(scene, sb)
				}
				if d := dist(meanRGB(img, band), want); d > 12 {
					t.Errorf("border %v is %v, %.1f from %v", band, meanRGB(img, band), d, want)
				}
			}
			// The product is preserved in the centre: the label's blue and the box's red.
			if d := dist(meanRGB(img, rel(img, 0.46, 0.47, 0.54, 0.53)), rgbOf(productBlue)); d > 45 {
				t.Errorf("centre %v is %.0f from the label", meanRGB(img, rel(img, 0.46, 0.47, 0.54, 0.53)), d)
			}
			red := meanRGB(img, rel(img, 0.2, 0.3, 0.26, 0.36))
			if red[0] < 120 || red[1] > 70 {
				t.Errorf("box edge area %v is not the product's red", red)
			}
		})
	}
}

func TestRemoveBackground(t *testing.T) {
	src := encJPEG(t, productImage(400, 300))
	res, img := run(t, engine.Request{Tool: "remove-background", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("image", src)}})
	if res.Mime != "image/png" {
		t.Fatalf("Mime %s, want image/png", res.Mime)
	}
	alpha := func(x, y int) uint8 { return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA).A }
	b := img.Bounds()
	for _, p := range []image.Point{{2, 2}, {b.Dx() - 3, 2}, {2, b.Dy() - 3}, {b.Dx() - 3, b.Dy() - 3}, {b.Dx() / 2, 10}} {
		if a := alpha(p.X, p.Y); a > 5 {
			t.Errorf("alpha at %v is %d, want transparent", p, a)
		}
	}
	for _, p := range []image.Point{{b.Dx() / 2, b.Dy() / 2}, {b.Dx() * 3 / 10, b.Dy() * 3 / 10}, {b.Dx() * 7 / 10, b.Dy() * 7 / 10}} {
		if a := alpha(p.X, p.Y); a < 250 {
			t.Errorf("alpha at %v is %d, want opaque", p, a)
		}
	}
	// A wider shape extends the canvas with transparency.
	_, wide := run(t, engine.Request{Tool: "remove-background", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1920, Height: 1080},
		Inputs: []engine.Input{in("image", src)}})
	if a := color.NRGBAModel.Convert(wide.At(5, wide.Bounds().Dy()/2)).(color.NRGBA).A; a != 0 {
		t.Errorf("extended edge alpha %d, want 0", a)
	}
}

func TestCameraLens(t *testing.T) {
	model := encJPEG(t, modelImage(400))
	corners := map[string]float64{}
	for _, lens := range []string{"24mm", "135mm", "macro", ""} {
		t.Run("lens "+lens, func(t *testing.T) {
			_, img := run(t, engine.Request{Tool: "camera-lens", Tier: ledger.Tier1K, Params: map[string]string{"lens": lens},
				Inputs: []engine.Input{in("image", model)}})
			// Vignette: corners darker than the backdrop next to the subject.
			corner := meanRGB(img, rel(img, 0, 0, 0.05, 0.05))
			side := meanRGB(img, rel(img, 0.02, 0.45, 0.1, 0.55))
			if corner[1] >= side[1] {
				t.Errorf("corner %v not darker than the side %v", corner, side)
			}
			corners[lens] = corner[1]
			// The subject stays in focus (except for macro's thin plane): the
			// shirt's edge against the backdrop is still a hard step.
			if lens != "macro" {
				y := img.Bounds().Dy() * 30 / 100
				step := 0
				for x := 1; x < img.Bounds().Dx(); x++ {
					a := color.NRGBAModel.Convert(img.At(x-1, y)).(color.NRGBA)
					b := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
					step = max(step, abs(int(a.R)-int(b.R)))
				}
				if step < 60 {
					t.Errorf("sharpest step on the shirt row is %d, want a crisp subject", step)
				}
			}
		})
	}
	// A wide lens vignettes harder than a long one.
	if wide, long := corners["24mm"], corners["135mm"]; wide >= long {
		t.Errorf("24mm corner %.0f should be darker than 135mm corner %.0f", wide, long)
	}
	// Without a plain backdrop the centre is in focus and the edges fall off:
	// fine stripes keep their contrast in the middle and lose it near the edge.
	stripes := image.NewNRGBA(image.Rect(0, 0, 1024, 512)) // 2:1: the corners stay as far out as in 4:3, at two thirds of the pixels
	for y := range 512 {
		for x := range 1024 {
			v := uint8(60)
			if (x/3)%2 == 0 {
				v = 200
			}
			stripes.SetNRGBA(x, y, color.NRGBA{R: v, G: v, B: v, A: 255})
		}
	}
	_, img := run(t, engine.Request{Tool: "camera-lens", Tier: ledger.Tier1K, Params: map[string]string{"lens": "135mm"},
		Inputs: []engine.Input{in("image", encPNG(t, stripes))}})
	contrast := func(r image.Rectangle) float64 {
		var s float64
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X + 1; x < r.Max.X; x++ {
				a := color.NRGBAModel.Convert(img.At(x-1, y)).(color.NRGBA)
				b := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				s += math.Abs(float64(a.G) - float64(b.G))
				n++
			}
		}
		return s / float64(n)
	}
	if centre, edge := contrast(rel(img, 0.45, 0.45, 0.55, 0.55)), contrast(rel(img, 0.02, 0.05, 0.1, 0.15)); edge > 0.5*centre {
		t.Errorf("stripe contrast centre %.1f, edge %.1f: want the edge defocused", centre, edge)
	}
}

func TestHarmonize(t *testing.T) {
	subject := modelImage(350)
	scene := sceneImage(400, 500)
	_, img := run(t, engine.Request{Tool: "harmonize", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("image", encJPEG(t, subject)), in("background", encJPEG(t, scene))}})
	// The composite is the scene's size ratio (4:5), the subject is in the middle.
	if b := img.Bounds(); b.Dx() != 819 || b.Dy() != 1024 {
		t.Fatalf("size %v, want 819x1024", b.Size())
	}
	sceneMean := meanRGB(scene, scene.Rect)
	// The legs (dark grey) are in the lower-middle; their colour moves toward the scene's.
	before := [3]float64{60, 60, 64}
	after := meanRGB(img, rel(img, 0.42, 0.70, 0.47, 0.80))
	if dist(after, sceneMean) >= dist(before, sceneMean)-3 {
		t.Errorf("subject %v did not move toward the background %v (was %v)", after, sceneMean, before)
	}
	// The background is the scene: the top corners are its colour.
	if d := dist(meanRGB(img, rel(img, 0, 0, 0.1, 0.05)), meanRGB(scene, rel(scene, 0, 0, 0.1, 0.05))); d > 20 {
		t.Errorf("top corner %.0f from the scene", d)
	}
}

// TestIron irons the figure's shirt through a mask of it, and refuses the
// figure without one: a person is not fabric the engine has separated
// (issue 32: the whole frame, face and hair, was smoothed).
func TestIron(t *testing.T) {
	model := modelImage(800)
	// The shirt's torso (modelImage: 12 units either side of the axis, rows 20 to 52 of 100).
	mask := encPNG(t, maskImage(480, 800, image.Rect(240-96, 160, 240+96, 416)))
	data := encJPEG(t, model)
	_, err := local.New().Run(context.Background(), engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", data)}})
	if !engine.IsInput(err) || !strings.Contains(reason(err), "not a garment") {
		t.Errorf("iron on a figure without a mask: %v, want an input fault naming the garment", err)
	}
	_, img := run(t, engine.Request{Tool: "iron", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", data), in("mask", mask)}})
	// The face is left alone.
	if d := dist(meanRGB(img, rel(img, 0.45, 0.09, 0.55, 0.15)), meanRGB(model, rel(model, 0.45, 0.09, 0.55, 0.15))); d > 4 {
		t.Errorf("the face moved by %.1f", d)
	}
	// Wrinkle shading across the shirt (rows vary sinusoidally) is reduced.
	rowVar := func(img image.Image, r image.Rectangle) float64 {
		var vals []float64
		for y := r.Min.Y; y < r.Max.Y; y++ {
			vals = append(vals, meanRGB(img, image.Rect(r.Min.X, y, r.Max.X, y+1))[2])
		}
		var m, v float64
		for _, x := range vals {
			m += x
		}
		m /= float64(len(vals))
		for _, x := range vals {
			v += (x - m) * (x - m)
		}
		return v / float64(len(vals))
	}
	before := rowVar(model, rel(model, 0.4, 0.26, 0.6, 0.46))
	after := rowVar(img, rel(img, 0.4, 0.26, 0.6, 0.46))
	if after > 0.5*before {
		t.Errorf("shirt row variance %.1f -> %.1f, want at least halved", before, after)
	}
	// The backdrop is left alone.
	if d := dist(meanRGB(img, rel(img, 0, 0, 0.1, 0.1)), [3]float64{226, 226, 222}); d > 6 {
		t.Errorf("backdrop moved by %.1f", d)
	}
}

func TestCleanup(t *testing.T) {
	clean := gradientImage(600, 400)
	blotched := cloneImg(clean)
	blotch := image.Rect(250, 150, 330, 210)
	fill(blotched, blotch, color.NRGBA{R: 20, G: 20, B: 20, A: 255})
	mask := maskImage(600, 400, blotch.Inset(-3))
	_, img := run(t, engine.Request{Tool: "cleanup", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("image", encPNG(t, blotched)), in("mask", encPNG(t, mask))}})
	// Compare in the result's frame: 1024x683.
	s := float64(img.Bounds().Dx()) / 600
	under := image.Rect(int(float64(blotch.Min.X)*s), int(float64(blotch.Min.Y)*s), int(float64(blotch.Max.X)*s), int(float64(blotch.Max.Y)*s))
	ref := scaleTo(clean, img.Bounds().Dx(), img.Bounds().Dy())
	bl := scaleTo(blotched, img.Bounds().Dx(), img.Bounds().Dy())
	before := meanAbsDiff(bl, ref, under)
	after := meanAbsDiff(img, ref, under)
	if after > before/8 || after > 12 {
		t.Errorf("difference under the mask %.1f -> %.1f, want it mostly gone", before, after)
	}
	// Away from the mask nothing changes beyond JPEG noise.
	if d := meanAbsDiff(img, ref, image.Rect(20, 20, 200, 100)); d > 4 {
		t.Errorf("area away from the mask changed by %.1f", d)
	}
}

func TestColorChange(t *testing.T) {
	src := productImage(400, 300)
	target := color.NRGBA{R: 30, G: 140, B: 60, A: 255}
	data, mask := encJPEG(t, src), encPNG(t, maskImage(400, 300, image.Rect(100, 75, 300, 225)))
	for _, withMask := range []bool{false, true} {
		t.Run(fmt.Sprintf("mask=%v", withMask), func(t *testing.T) {
			inputs := []engine.Input{in("image", data)}
			if withMask {
				inputs = append(inputs, in("mask", mask))
			}
			_, img := run(t, engine.Request{Tool: "color-change", Tier: ledger.Tier1K,
				Params: map[string]string{"color": "#1e8c3c"}, Inputs: inputs})
			// The garment's red body moves to the target hue.
			body := meanRGB(img, rel(img, 0.28, 0.28, 0.36, 0.36))
			if h := hue(body); math.Abs(angleDiff(h, hue(rgbOf(target)))) > 25 {
				t.Errorf("body colour %v has hue %.0f, want near %.0f", body, h, hue(rgbOf(target)))
			}
			// Shading is kept: the box's left is lighter than its right, as before.
			left := meanRGB(img, rel(img, 0.26, 0.28, 0.3, 0.36))
			right := meanRGB(img, rel(img, 0.7, 0.28, 0.74, 0.36))
			if left[1] <= right[1] {
				t.Errorf("shading lost: left %v right %v", left, right)
			}
			// The backdrop is left alone.
			bg := meanRGB(img, rel(img, 0, 0, 1, 0.1))
			if d := dist(bg, meanRGB(src, rel(src, 0, 0, 1, 0.1))); d > 4 {
				t.Errorf("backdrop moved by %.1f", d)
			}
		})
	}
}

func TestFitAdjust(t *testing.T) {
	model := encJPEG(t, modelImage(400))
	// The figure wears a shirt and trousers: which one is meant must be said.
	_, err := local.New().Run(context.Background(), engine.Request{Tool: "fit-adjust", Tier: ledger.Tier1K, Params: map[string]string{"fit": "loose"},
		Inputs: []engine.Input{in("image", model)}})
	if !engine.IsInput(err) || !strings.Contains(reason(err), "part option") {
		t.Errorf("fit-adjust on two pieces without a part: %v, want an input fault asking for the part", err)
	}
	width := func(fit string) int {
		_, img := run(t, engine.Request{Tool: "fit-adjust", Tier: ledger.Tier1K, Params: map[string]string{"fit": fit, "part": "top"},
			Inputs: []engine.Input{in("image", model)}})
		// The shirt's width on the row 35% down: the dark-blue span.
		y := img.Bounds().Dy() * 35 / 100
		n := 0
		for x := range img.Bounds().Dx() {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if int(c.B) > int(c.R)+40 {
				n++
			}
		}
		return n
	}
	fitted, regular, loose, over := width("fitted"), width("regular"), width("loose"), width("oversized")
	if !(fitted < regular && regular < loose && loose < over) {
		t.Errorf("shirt widths fitted %d, regular %d, loose %d, oversized %d: want increasing", fitted, regular, loose, over)
	}
	if r := float64(loose) / float64(regular); r < 1.05 || r > 1.15 {
		t.Errorf("loose/regular = %.3f, want about 1.10", r)
	}
}

func TestTryon(t *testing.T) {
	model := encJPEG(t, modelImage(400))
	garment := encPNG(t, garmentImage(200))
	_, img := run(t, engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("model", model), in("garment", garment)}})
	// The chest is now the garment's red, the head and the legs are the model's.
	chest := meanRGB(img, rel(img, 0.45, 0.3, 0.55, 0.4))
	if chest[0] < 150 || chest[2] > 80 {
		t.Errorf("chest %v is not the garment's red", chest)
	}
	if d := dist(meanRGB(img, rel(img, 0.47, 0.1, 0.53, 0.14)), rgbOf(skin)); d > 30 {
		t.Errorf("face moved: %.0f from skin", d)
	}
	if d := dist(meanRGB(img, rel(img, 0.35, 0.8, 0.45, 0.9)), [3]float64{60, 60, 64}); d > 30 {
		t.Errorf("legs changed: %.0f from their grey", d)
	}
	// Two garments (a top and trousers) both land.
	trousers := image.NewNRGBA(image.Rect(0, 0, 100, 250))
	fill(trousers, trousers.Rect, color.NRGBA{R: 250, G: 250, B: 250, A: 255})
	fill(trousers, image.Rect(20, 10, 80, 240), color.NRGBA{R: 230, G: 200, B: 60, A: 255})
	_, two := run(t, engine.Request{Tool: "tryon", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("model", model), in("garment", garment), in("garment", encPNG(t, trousers))}})
	legs := meanRGB(two, rel(two, 0.4, 0.75, 0.6, 0.85))
	if legs[0] < 150 || legs[2] > 120 {
		t.Errorf("legs %v are not the trousers' yellow", legs)
	}
}

func TestInputFaults(t *testing.T) {
	good := encJPEG(t, productImage(200, 150))
	tests := []struct {
		name string
		r    engine.Request
	}{
		{"missing image", engine.Request{Tool: "upscale"}},
		{"wrong role", engine.Request{Tool: "upscale", Inputs: []engine.Input{in("picture", good)}}},
		{"empty bytes", engine.Request{Tool: "upscale", Inputs: []engine.Input{in("image", nil)}}},
		{"not an image", engine.Request{Tool: "upscale", Inputs: []engine.Input{in("image", []byte("hello, world"))}}},
		{"truncated jpeg", engine.Request{Tool: "upscale", Inputs: []engine.Input{in("image", good[:len(good)/3])}}},
		{"gif", engine.Request{Tool: "upscale", Inputs: []engine.Input{in("image", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))}}},
		{"harmonize without background", engine.Request{Tool: "harmonize", Inputs: []engine.Input{in("image", good)}}},
		{"cleanup without mask", engine.Request{Tool: "cleanup", Inputs: []engine.Input{in("image", good)}}},
		{"cleanup with an empty mask", engine.Request{Tool: "cleanup", Inputs: []engine.Input{in("image", good), in("mask", encPNG(t, maskImage(200, 150, image.Rectangle{})))}}},
		{"tryon without garment", engine.Request{Tool: "tryon", Inputs: []engine.Input{in("model", good)}}},
		{"tryon without model", engine.Request{Tool: "tryon", Inputs: []engine.Input{in("garment", good)}}},
		{"color-change without color", engine.Request{Tool: "color-change", Inputs: []engine.Input{in("image", good)}}},
		{"color-change bad color", engine.Request{Tool: "color-change", Params: map[string]string{"color": "green"}, Inputs: []engine.Input{in("image", good)}}},
		{"fit-adjust without fit", engine.Request{Tool: "fit-adjust", Inputs: []engine.Input{in("image", good)}}},
		{"fit-adjust bad fit", engine.Request{Tool: "fit-adjust", Params: map[string]string{"fit": "baggy"}, Inputs: []engine.Input{in("image", good)}}},
		{"reframe without aspect", engine.Request{Tool: "reframe", Inputs: []engine.Input{in("image", good)}}},
		{"reframe bad aspect", engine.Request{Tool: "reframe", Params: map[string]string{"aspect": "wide"}, Inputs: []engine.Input{in("image", good)}}},
		{"reframe bad fill", engine.Request{Tool: "reframe", Params: map[string]string{"aspect": "1:1", "fill": "mirror"}, Inputs: []engine.Input{in("image", good)}}},
		{"camera-lens bad lens", engine.Request{Tool: "camera-lens", Params: map[string]string{"lens": "fisheye"}, Inputs: []engine.Input{in("image", good)}}},
		{"packshot bg=image without background", engine.Request{Tool: "packshot", Params: map[string]string{"bg": "image"}, Inputs: []engine.Input{in("image", good)}}},
		{"packshot bad bg", engine.Request{Tool: "packshot", Params: map[string]string{"bg": "#12"}, Inputs: []engine.Input{in("image", good)}}},
		{"packshot without a plain backdrop", engine.Request{Tool: "packshot", Inputs: []engine.Input{in("image", encJPEG(t, gradientImage(150, 100)))}}},
		{"remove-background of a plain wall", engine.Request{Tool: "remove-background", Inputs: []engine.Input{in("image", encJPEG(t, maskImage(200, 200, image.Rectangle{})))}}},
		{"bad strength", engine.Request{Tool: "iron", Params: map[string]string{"strength": "2"}, Inputs: []engine.Input{in("image", good)}}},
		{"bad shape", engine.Request{Tool: "upscale", Shape: &engine.Shape{Width: 0, Height: 10}, Inputs: []engine.Input{in("image", good)}}},
	}
	l := local.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.r.Tier == "" {
				tt.r.Tier = ledger.Tier1K
			}
			_, err := l.Run(context.Background(), tt.r)
			if !engine.IsInput(err) {
				t.Fatalf("err = %v, want an input fault", err)
			}
			if engine.IsProvider(err) {
				t.Fatal("an input fault is also a provider fault")
			}
			e, _ := errors.AsType[*engine.Error](err)
			if e.Tool != tt.r.Tool || e.Reason == "" {
				t.Errorf("error %+v lacks its tool or reason", e)
			}
		})
	}
	t.Run("bad tier", func(t *testing.T) {
		_, err := l.Run(context.Background(), engine.Request{Tool: "upscale", Tier: "8k", Inputs: []engine.Input{in("image", good)}})
		if !engine.IsInput(err) {
			t.Fatalf("err = %v, want an input fault", err)
		}
	})
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := local.New().Run(ctx, engine.Request{Tool: "upscale", Tier: ledger.Tier1K,
		Inputs: []engine.Input{in("image", encJPEG(t, productImage(100, 100)))}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDeterministic(t *testing.T) {
	r := engine.Request{Tool: "cleanup", Tier: ledger.Tier1K, Inputs: []engine.Input{
		in("image", encJPEG(t, gradientImage(300, 200))), in("mask", encPNG(t, maskImage(300, 200, image.Rect(100, 50, 150, 120))))}}
	a, err := local.New().Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := local.New().Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Data) != string(b.Data) {
		t.Fatal("two runs of the same request differ")
	}
}

func TestTransparentInput(t *testing.T) {
	// A cut-out PNG uses its own alpha as the matte.
	img := image.NewNRGBA(image.Rect(0, 0, 300, 300))
	fill(img, image.Rect(100, 80, 200, 220), productRed)
	res, out := run(t, engine.Request{Tool: "remove-background", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", encPNG(t, img))}})
	if res.Mime != "image/png" {
		t.Fatal(res.Mime)
	}
	if a := color.NRGBAModel.Convert(out.At(10, 10)).(color.NRGBA).A; a != 0 {
		t.Errorf("corner alpha %d", a)
	}
	if a := color.NRGBAModel.Convert(out.At(512, 512)).(color.NRGBA).A; a != 255 {
		t.Errorf("centre alpha %d", a)
	}
	// Flattened onto white for JPEG tools.
	_, up := run(t, engine.Request{Tool: "upscale", Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", encPNG(t, img))}})
	if c := meanRGB(up, image.Rect(0, 0, 20, 20)); c[0] < 250 || c[1] < 250 {
		t.Errorf("transparent area became %v, want white", c)
	}
}

func TestChain(t *testing.T) {
	c := engine.Chain(stubEngine{}, local.New())
	if !c.Can("generate-character") || !c.Can("upscale") || c.Can("nope") {
		t.Fatal("Can does not union the engines")
	}
	if c.Name() != "stub+local" {
		t.Errorf("Name %q", c.Name())
	}
	tools := c.Tools()
	if !slices.IsSorted(tools) || !slices.Contains(tools, "generate-character") || !slices.Contains(tools, "tryon") {
		t.Errorf("Tools %v", tools)
	}
	res, err := c.Run(context.Background(), engine.Request{Tool: "generate-character"})
	if err != nil || res.Mime != "stub" {
		t.Errorf("Run went to %v, %v", res, err)
	}
	if _, err := c.Run(context.Background(), engine.Request{Tool: "nope"}); !errors.Is(err, engine.ErrUnsupported) {
		t.Errorf("err = %v", err)
	}
}

type stubEngine struct{}

func (stubEngine) Name() string         { return "stub" }
func (stubEngine) Tools() []string      { return []string{"generate-character"} }
func (stubEngine) Can(tool string) bool { return tool == "generate-character" }
func (stubEngine) Run(context.Context, engine.Request) (engine.Result, error) {
	return engine.Result{Mime: "stub"}, nil
}

func cloneImg(img *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	return out
}

func scaleTo(img image.Image, w, h int) image.Image {
	// Nearest is enough to compare smooth images region by region.
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			out.Set(x, y, img.At(b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h))
		}
	}
	return out
}

func meanAbsDiff(a, b image.Image, r image.Rectangle) float64 {
	var s, n float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA)
			cb := color.NRGBAModel.Convert(b.At(x, y)).(color.NRGBA)
			s += math.Abs(float64(ca.R)-float64(cb.R)) + math.Abs(float64(ca.G)-float64(cb.G)) + math.Abs(float64(ca.B)-float64(cb.B))
			n += 3
		}
	}
	return s / n
}

func hue(c [3]float64) float64 {
	r, g, b := c[0]/255, c[1]/255, c[2]/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if mx == mn {
		return 0
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-b)/(mx-mn), 6)
	case g:
		h = (b-r)/(mx-mn) + 2
	default:
		h = (r-g)/(mx-mn) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}

func angleDiff(a, b float64) float64 {
	d := math.Mod(a-b+540, 360) - 180
	return d
}

// TestTinyInputs runs every tool on images of a few pixels: each must work
// or refuse with an input fault, never fail inside the engine.
func TestTinyInputs(t *testing.T) {
	l := local.New()
	sizes := []image.Point{{1, 1}, {17, 5}}
	if raceEnabled {
		sizes = sizes[1:]
	}
	for _, size := range sizes {
		img := encPNG(t, productImage(size.X, size.Y))
		for _, tool := range l.Tools() {
			r := engine.Request{Tool: tool, Tier: ledger.Tier1K, Params: map[string]string{
				"aspect": "4:5", "color": "#336699", "fit": "loose", "lens": "35mm"}}
			for _, role := range []string{"image", "background", "mask", "model", "garment"} {
				r.Inputs = append(r.Inputs, in(role, img))
			}
			_, err := l.Run(context.Background(), r)
			if err != nil && !engine.IsInput(err) {
				t.Errorf("%s on %v: %v", tool, size, err)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
