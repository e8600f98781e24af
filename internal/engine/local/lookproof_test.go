package local_test

import (
	"context"
	"errors"
	"go/build"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/disintegration/imaging"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// proofFigure is a standing figure on a studio sweep, w x h: skin for the
// head and neck (the top 20%), a blue top to half way, grey trousers.
func proofFigure(w, h int) *image.NRGBA {
	skin := segtest.Fill(color.NRGBA{R: 214, G: 160, B: 128, A: 255}, nil, 0, w, h)
	top := segtest.Fill(color.NRGBA{R: 30, G: 60, B: 140, A: 255}, nil, 0, w, h)
	legs := segtest.Fill(color.NRGBA{R: 70, G: 70, B: 76, A: 255}, nil, 0, w, h)
	fill := func(x, y int) [3]float64 {
		switch v := float64(y) / float64(h); {
		case v < 0.2:
			return skin(x, y)
		case v < 0.5:
			return top(x, y)
		}
		return legs(x, y)
	}
	return segtest.Composite(segtest.Plain(w, h), fill, segtest.Coverage(segtest.Figure, w, h), w, h, 0.15, 3)
}

// proofPiece is a T-shirt, s px square, woven in stripes 2 px wide that
// only its own full-resolution pixels show.
func proofPiece(s int, c color.NRGBA) *image.NRGBA {
	base := segtest.Fill(c, nil, 0, s, s)
	fill := func(x, y int) [3]float64 {
		p := base(x, y)
		if (y/2)%2 == 0 {
			for i := range p {
				p[i] *= 0.55
			}
		}
		return p
	}
	return segtest.Composite(segtest.Plain(s, s), fill, segtest.Coverage(segtest.TShirt, s, s), s, s, 0, 5)
}

// proofMaterial is a look's inputs, made once: the model, a striped red
// hero piece and a bag.
var proofMaterial = sync.OnceValue(func() []engine.Input {
	var model, hero, bag []byte
	t := &testing.T{}
	model = encJPEG(t, proofFigure(360, 720))
	hero = encJPEG(t, proofPiece(800, color.NRGBA{R: 200, G: 40, B: 52, A: 255}))
	bag = encJPEG(t, segtest.Composite(segtest.Plain(300, 300), segtest.Fill(color.NRGBA{R: 60, G: 120, B: 76, A: 255}, nil, 0, 300, 300),
		segtest.Coverage(segtest.Bag, 300, 300), 300, 300, 0.2, 7))
	return []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: hero}, {Role: "item", Data: bag}}
})

// proof develops a local look frame of the proof material at 1k, 4:5: the
// lock frame for key "", else the variation of key.
func proof(t testing.TB, key string) *image.NRGBA {
	t.Helper()
	return proofOf(t, proofMaterial(), key)
}

// proofOf develops a look frame of the material at 1k, 4:5.
func proofOf(t testing.TB, material []engine.Input, key string) *image.NRGBA {
	t.Helper()
	eng := engine.Chain(local.New(), local.NewLookbook())
	r := engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1080, Height: 1350},
		Inputs: append([]engine.Input{}, material...), Params: map[string]string{"tone": "#d8c4a4", "aesthetic": "studio", "stage": "lock"}}
	if key != "" {
		r.Inputs = append(r.Inputs, engine.Input{Role: "base", Data: material[0].Data}) // never read
		r.Params = map[string]string{"tone": "#d8c4a4", "aesthetic": "studio", "stage": "variation", "key": key}
		if strings.HasPrefix(key, "posture:") { // the look service writes the posture's words and controls
			r.Params["posture"] = "Leaning back against a wall, one shoulder on it, ankles crossed, hands in pockets"
			r.Params["control.energy"] = "relaxed"
		}
	}
	res, err := eng.Run(context.Background(), r)
	if err != nil {
		t.Fatalf("%q: %v", key, err)
	}
	return imaging.Clone(decodeResult(t, res.Data, "image/jpeg", 819, 1024))
}

// thumb is the frame above the mark's band, grey, 40 x 46.
func thumb(img *image.NRGBA) []float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	g := imaging.Resize(imaging.Crop(img, image.Rect(0, 0, w, h-h*5/100)), 40, 46, imaging.Box)
	out := make([]float64, 0, 40*46)
	for i := 0; i < len(g.Pix); i += 4 {
		out = append(out, (float64(g.Pix[i])+float64(g.Pix[i+1])+float64(g.Pix[i+2]))/3)
	}
	return out
}

func TestLookProofs(t *testing.T) {
	keys := []string{"", "walking", "three-quarter", "seated", "close-up", "detail", "posture:lean-wall"}
	if raceEnabled { // a develop is some 20 s under the race detector: the mark and the detail's pixels
		keys = []string{"", "detail"}
	}
	frames := map[string]*image.NRGBA{}
	for _, k := range keys {
		frames[k] = proof(t, k)
	}
	for _, k := range keys {
		f := frames[k]
		w, h := f.Rect.Dx(), f.Rect.Dy()
		// The mark: a dark band across the bottom with white words in it.
		bright, dark := 0, 0
		for y := h - h*4/100 + 2; y < h-2; y++ {
			for x := range w {
				p := f.Pix[y*f.Stride+x*4:]
				switch l := (int(p[0]) + int(p[1]) + int(p[2])) / 3; {
				case l > 200:
					bright++
				case l < 60:
					dark++
				}
			}
		}
		if n := (h*4/100 - 4) * w; bright < n/50 || dark < n/2 {
			t.Errorf("%q: the mark's band has %d bright and %d dark of %d pixels; want the words on a dark band", k, bright, dark, n)
		}
	}
	// Each framing differs from every other.
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			ta, tb := thumb(frames[a]), thumb(frames[b])
			d := 0.0
			for j := range ta {
				d += math.Abs(ta[j] - tb[j])
			}
			if d /= float64(len(ta)); d < 8 {
				t.Errorf("%q and %q differ by %.1f grey levels on average; want distinct framings", a, b, d)
			}
		}
	}
	// The close-up is the head and shoulders: skin fills a large part of the frame.
	skin := func(f *image.NRGBA) float64 {
		n := 0
		for i := 0; i < len(f.Pix); i += 4 {
			r, g, b := int(f.Pix[i]), int(f.Pix[i+1]), int(f.Pix[i+2])
			if r-g > 38 && r-b > 60 && g > b { // skin's hue, not the sand's

				n++
			}
		}
		return float64(n) / float64(len(f.Pix)/4)
	}
	if _, ok := frames["close-up"]; ok && (skin(frames["close-up"]) < 0.05 || skin(frames["close-up"]) < 5*skin(frames[""])) {
		s, l := skin(frames["close-up"]), skin(frames[""])
		t.Errorf("skin covers %.3f of the close-up and %.3f of the lock frame; want the head and shoulders", s, l)
	}
	// The detail shows the hero piece's own 2-px weave: many light and dark
	// stripes down the middle of the frame (a piece laid on the body at a
	// tenth of its size shows none).
	for _, k := range []string{"detail", ""} {
		f := frames[k]
		x, flips, last := f.Rect.Dx()/2, 0, 0
		for y := range f.Rect.Dy() * 90 / 100 {
			p := f.Pix[y*f.Stride+x*4:]
			l := int(p[0])
			switch {
			case l > 150 && last != 1:
				flips, last = flips+1, 1
			case l < 110 && last != -1:
				flips, last = flips+1, -1
			}
		}
		if want := k == "detail"; (flips >= 40) != want {
			t.Errorf("%q: %d stripes down the middle; the detail wants the weave (>= 40), the lock frame none", k, flips)
		}
	}
}

// TestLookProofSheet writes a sheet of the local look proofs (the lock
// frame and every variation key) of the proof material:
//
//	STUDIO_PROOF_SHEET=/tmp/proofs go test -run TestLookProofSheet -v ./internal/engine/local/
//
// It is skipped without STUDIO_PROOF_SHEET; it judges nothing.
func TestLookProofSheet(t *testing.T) {
	out := os.Getenv("STUDIO_PROOF_SHEET")
	if out == "" {
		t.Skip("STUDIO_PROOF_SHEET names the folder for the sheet")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var cells []*image.NRGBA
	for _, k := range []string{"", "front", "back", "side", "three-quarter", "walking", "seated", "close-up", "detail", "posture:lean-wall"} {
		f := proof(t, k)
		name := k
		if k == "" {
			name = "lock"
		}
		writePNG(t, filepath.Join(out, strings.ReplaceAll(name, ":", "-")+".png"), f)
		cells = append(cells, frameCell(f, name))
	}
	writePNG(t, filepath.Join(out, "sheet.png"), sheet(cells, 5))
	// Real photographs as the model (python3-skimage): the cameraman on his
	// field and the astronaut's portrait are refused (no standing figure
	// on a plain ground); a refused photo has no cell.
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		modcache = filepath.Join(build.Default.GOPATH, "pkg", "mod")
	}
	cells = nil
	for _, name := range []string{"camera.png", "astronaut.png"} {
		img := segtest.Load(name, segtest.Dirs(modcache))
		if img == nil {
			continue
		}
		material := append([]engine.Input{{Role: "model", Data: encPNG(t, img)}}, proofMaterial()[1:]...)
		if local.NewLookbook().CheckModel(context.Background(), material[0].Data) != nil {
			continue
		}
		for _, k := range []string{"", "walking", "three-quarter", "close-up", "detail"} {
			cells = append(cells, frameCell(proofOf(t, material, k), strings.TrimSuffix(name, ".png")+" "+k))
		}
	}
	if len(cells) > 0 {
		writePNG(t, filepath.Join(out, "photos.png"), sheet(cells, 5))
	}
}

// frameCell is a frame at 320 px high with its name under it.
func frameCell(f *image.NRGBA, name string) *image.NRGBA {
	th := imaging.Resize(f, 0, 320, imaging.Lanczos)
	c := image.NewNRGBA(image.Rect(0, 0, th.Rect.Dx(), th.Rect.Dy()+18))
	draw.Draw(c, c.Rect, image.NewUniform(color.NRGBA{R: 40, G: 40, B: 40, A: 255}), image.Point{}, draw.Src)
	draw.Draw(c, th.Rect, th, image.Point{}, draw.Src)
	d := font.Drawer{Dst: c, Src: image.NewUniform(color.White), Face: basicfont.Face7x13, Dot: fixed.P(4, th.Rect.Dy()+14)}
	d.DrawString(name)
	return c
}

// TestLookOnPortrait: a look whose model photo is a real portrait (Grace
// Hopper at half length before a flag) is refused:
// the look's develop asks CheckModel before it holds anything, a frame
// composed anyway fails as an input fault (its hold voided), and the
// lookbook engine's preflight says why, all under NO_FIGURE with the same
// plain reason. (TestLookbookTool's figure stands.)
func TestLookOnPortrait(t *testing.T) {
	lb := local.NewLookbook()
	ctx := context.Background()
	piece := encJPEG(t, garmentImage(96))
	for _, name := range []string{"grace-hopper"} {
		paths, _ := filepath.Glob(filepath.Join(segtest.PhotosDir(), "*", name+".jpg"))
		if len(paths) != 1 {
			t.Fatalf("photo %s: %v", name, paths)
		}
		photo, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := picture.Decode(photo)
		if err != nil {
			t.Fatal(err)
		}
		data := encJPEG(t, picture.FitLong(img, 256)) // the measure's answer at a quarter of the pixels
		noFigure := func(what string, err error) {
			t.Helper()
			e, ok := errors.AsType[*engine.Error](err)
			if !ok || e.Fault != engine.FaultInput || e.Code != engine.CodeNoFigure || !strings.Contains(e.Reason, "no standing figure") {
				t.Errorf("%s, %s: %v; want an input fault NO_FIGURE saying there is no standing figure", name, what, err)
			}
		}
		noFigure("CheckModel", lb.CheckModel(ctx, data))
		material := []engine.Input{{Role: "model", Data: data}, {Role: "item", Data: piece}}
		_, err = engine.Chain(local.New(), lb).Run(ctx, engine.Request{Tool: "lookbook", Tier: ledger.Tier1K,
			Inputs: material, Params: map[string]string{"aesthetic": "studio", "stage": "lock"}})
		noFigure("the lock frame", err)
		problems, err := lb.Preflight(ctx, engine.Request{Tool: "lookbook", Tier: ledger.Tier1K, Inputs: material})
		if err != nil || len(problems) != 1 || problems[0].Code != engine.CodeNoFigure || problems[0].Role != "model" || problems[0].Message == "" {
			t.Errorf("%s, preflight: %+v, %v; want one NO_FIGURE problem about the model", name, problems, err)
		}
	}
}
