package judge

import (
	"image"
	"image/color"
	"image/draw"
	"path/filepath"
	"testing"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// calibrationPhoto is a photograph of the calibration set, at 256 px on
// its long edge (the judge's measures read frames at 384 at most).
func calibrationPhoto(t *testing.T, name string) *image.NRGBA {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(segtest.PhotosDir(), "*", name+".jpg"))
	if len(paths) != 1 {
		t.Fatalf("no photograph %s", name)
	}
	img := segtest.Load(filepath.Base(paths[0]), []string{filepath.Dir(paths[0])})
	if img == nil {
		t.Fatalf("%s does not decode", paths[0])
	}
	return imaging.Fit(img, 256, 256, imaging.Box)
}

// The broken frames issue 32 found the local engine delivering, rebuilt
// as the old code made them, each scored 100 by the old judge: none may
// score 100 now, and the ones a person calls broken are flagged.
func TestBrokenFramesOfIssue32AreNotClean(t *testing.T) {
	portrait := calibrationPhoto(t, "astronaut-face")
	suit := calibrationPhoto(t, "astronaut")
	rocket := calibrationPhoto(t, "rocket")
	plush := calibrationPhoto(t, "gopher-plush")
	tee := garment(160)

	// iron smoothed the whole frame, face and hair included.
	ironed := imaging.Blur(portrait, 3)
	// color-change dyed the wrong region: the face and hair went blue.
	dyed := imaging.AdjustFunc(suit, func(c color.NRGBA) color.NRGBA { return color.NRGBA{R: c.B, G: c.G, B: c.R, A: c.A} })
	// harmonize pasted the tee in the middle of the scene, over the rocket.
	over := imaging.Clone(rocket)
	tw := over.Rect.Dx() * 45 / 100
	draw.Draw(over, image.Rect((over.Rect.Dx()-tw)/2, over.Rect.Dy()/10, (over.Rect.Dx()+tw)/2, over.Rect.Dy()*9/10),
		imaging.Resize(tee, tw, over.Rect.Dy()*8/10, imaging.Box), image.Point{}, draw.Src)
	// tryon laid a plush toy on the figure's chest: a composite.
	dressed := imaging.Clone(suit)
	draw.Draw(dressed, image.Rect(75, 75, 140, 158), imaging.Resize(plush, 65, 83, imaging.Box), image.Point{}, draw.Src)
	// A local look frame without its PROOF band.
	unmarked := imaging.Clone(portrait)

	note := "Composite: made by the local engine."
	// Each case names what the judge must see: a finding (code), or a
	// cap on the score (most). The frames are small (256 px), so each also
	// has the resolution's soft-focus: the test reads the new checks
	// themselves, not the score alone.
	cases := []struct {
		name string
		f    Frame
		code Code
		most int
	}{
		{"iron smoothed the face", Frame{Tool: "iron", Data: pngBytes(t, ironed), Source: pngBytes(t, portrait)}, FaceDrift, 0},
		{"color-change dyed the face", Frame{Tool: "color-change", Data: pngBytes(t, dyed), Source: pngBytes(t, suit),
			Params: map[string]string{"color": "#1f3a5f"}}, FaceDrift, 0},
		{"harmonize covered the rocket", Frame{Tool: "harmonize", Data: pngBytes(t, over), Source: pngBytes(t, tee),
			Scene: pngBytes(t, rocket), Note: note}, "", brokenCap},
		{"tryon laid a plush toy", Frame{Tool: "tryon", Data: pngBytes(t, dressed), Source: pngBytes(t, suit),
			Garment: pngBytes(t, plush), Note: note}, "", composedCap},
		{"tryon without the garment", Frame{Tool: "tryon", Data: pngBytes(t, suit), Source: pngBytes(t, suit),
			Garment: pngBytes(t, tee), Note: note}, GarmentDrift, composedCap},
		{"a look proof without its band", Frame{Tool: "lookbook", Data: pngBytes(t, unmarked), Note: "Layout proof."}, "", brokenCap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Tier = ledger.Tier1K
			v := look(t, c.f)
			if v.Score == nil || *v.Score >= 100 {
				t.Fatalf("scored %v, want under 100", v.Score)
			}
			if c.code != "" && !has(v, c.code, Sure) {
				t.Errorf("findings %+v, want %s", v.Findings, c.code)
			}
			if c.most > 0 && *v.Score > c.most {
				t.Errorf("scored %d, want at most %d", *v.Score, c.most)
			}
			if c.most == brokenCap && !v.Flagged {
				t.Errorf("scored %d, not flagged", *v.Score)
			}
		})
	}
}

// A local look frame with its band, a composite that stands clear of the
// scene's subject, and an iron that left the face alone: not flagged, and
// the face and the piece are not findings.
func TestSeenFramesThatAreRight(t *testing.T) {
	portrait := calibrationPhoto(t, "astronaut-face")
	if v := look(t, Frame{Tool: "iron", Tier: ledger.Tier1K, Data: pngBytes(t, portrait), Source: pngBytes(t, portrait)}); has(v, FaceDrift, Sure) {
		t.Errorf("an untouched face is face-drift: %+v", v.Findings)
	}
	marked := imaging.Clone(portrait)
	res, err := engine.Finish(marked, ledger.Tier1K, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if proofBand(marked) {
		t.Fatal("a portrait reads as marked")
	}
	img, err := picture.Decode(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	band := img.Rect.Dy() * 4 / 100
	draw.Draw(img, image.Rect(0, img.Rect.Dy()-band, img.Rect.Dx(), img.Rect.Dy()), image.NewUniform(color.NRGBA{R: 12, G: 12, B: 12, A: 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(20, img.Rect.Dy()-band*2/3, 220, img.Rect.Dy()-band/2), image.White, image.Point{}, draw.Src)
	v := look(t, Frame{Tool: "lookbook", Tier: ledger.Tier1K, Data: pngBytes(t, img), Note: "Layout proof."})
	if v.Score == nil || *v.Score != composedCap || v.Flagged {
		t.Errorf("a marked proof: %+v, want %d", v, composedCap)
	}
}
