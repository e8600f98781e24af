package local

import (
	"errors"
	"fmt"
	"image"
	"math"

	"studio/internal/engine"
	"studio/internal/engine/segment"
	"studio/internal/picture"
)

// A cut is one of three kinds, and each kind has its own confidence
// measure (issue 32), on top of segment's measure of the separation
// itself (matte.conf), so that every tool that needs the same kind of cut
// answers the same picture the same way:
//
//   - product (packshot, remove-background, harmonize's subject): one whole
//     subject, cleanly separated (segment.Threshold), and nothing of it
//     left behind: no part of the ground next to the cut-out that has the
//     cut-out's own colours (an arm the cut lost), and no larger subject
//     around it that the frame cuts (a cup kept without the saucer that
//     runs off the frame: segment.Cut.Beyond).
//   - garment (iron, try-on's garment): a product that is a piece of
//     clothing on its own: on a plain ground or with its own transparency
//     (the local engine cannot tell fabric from a real ground), with hardly
//     any skin (a person is not a garment).
//   - figure (try-on's model, look frames): a person standing on a plain
//     ground: skin at the top of the cut (a face), the cut taller than it is
//     wide.
type cutKind uint8

const (
	cutProduct cutKind = iota + 1
	cutGarment
	cutFigure
)

func (k cutKind) String() string {
	switch k {
	case cutProduct:
		return "product"
	case cutGarment:
		return "garment"
	case cutFigure:
		return "figure"
	}
	return "cut"
}

// The bounds of the kinds' measures, set by looking at the calibration
// set (segtest.Calibration) and the tools' results on it.
const (
	// A garment's cut holds at most this share of skin tones.
	garmentSkin = 0.04
	// A figure's head: at least this share of the top band of the cut
	// (its top 15%) is skin.
	figureFace = 0.08
	// A figure's cut is at least this much taller than wide.
	figureAspect = 1.3
	// A product's cut left behind: the ground pixels beside the cut-out
	// that the cut-out's colours explain, as a share of the cut-out.
	leftBehindMax = 0.06
	// A product's cut inside a larger subject the frame cuts: the cut with
	// the frame's bottom open adds at least this share of its area
	// (segment.Cut.Beyond; the calibration set's cropped cup adds 1.9, the
	// products it accepts 0.2 at most).
	frameCutsMin = 0.6
)

// Plain reasons of the kinds' refusals.
const (
	reasonNotGarment   = "This picture is not a garment on a plain ground; the local engine works only on fabric it can separate (send a mask of the garment)."
	reasonNotFigure    = "No standing figure could be found on a plain background; the local engine dresses studio figures only."
	reasonLeftBehind   = "Part of the subject could not be separated from the background (the cut would lose it); try a photo on a plainer ground."
	reasonPersonGarmen = "This picture shows a person, not a garment on its own."
	reasonFrameCuts    = "The frame cuts the product: part of it runs on past the picture's edge, and the cut would keep only the rest; send a photo with the whole product in the frame."
)

// errFrameCuts is the cause of a product refused because the frame cuts
// it (reasonFrameCuts): no other matte of the picture can mend that.
var errFrameCuts = errors.New("the frame cuts the product")

// checkCut measures the matte m of img against what kind k needs, and
// returns an input fault with a plain reason when the cut is not one the
// tool can stand behind.
func checkCut(img *image.NRGBA, m *matte, k cutKind, tool string) error {
	switch k {
	case cutProduct:
		if m.plain && m.ground == nil && m.bg == nil {
			return nil // the input's own transparency
		}
		if m.beyond >= frameCutsMin {
			return engine.InputError(tool, reasonFrameCuts, fmt.Errorf("%s: %w (the open frame adds %.2f)", k, errFrameCuts, m.beyond))
		}
		if lb := segment.LeftBehind(img, m.alpha.p, segment.Options{}); lb > leftBehindMax {
			return engine.InputError(tool, reasonLeftBehind, fmt.Errorf("%s: left behind %.3f", k, lb))
		}
	case cutGarment:
		if !m.plain {
			return engine.InputError(tool, reasonNotGarment, fmt.Errorf("%s: not a plain ground (%v)", k, m.conf))
		}
		if s := skinShare(img, m, image.Rectangle{}); s > garmentSkin {
			return engine.InputError(tool, reasonPersonGarmen, fmt.Errorf("%s: skin %.3f", k, s))
		}
	case cutFigure:
		if !m.plain {
			return engine.InputError(tool, reasonNotFigure, fmt.Errorf("%s: not a plain ground", k))
		}
		b := m.box
		if float64(b.Dy()) < figureAspect*float64(b.Dx()) {
			return engine.InputError(tool, reasonNotFigure, fmt.Errorf("%s: %dx%d is not a standing figure", k, b.Dx(), b.Dy()))
		}
		head := image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+max(1, b.Dy()*15/100))
		if s := skinShare(img, m, head); s < figureFace {
			return engine.InputError(tool, reasonNotFigure, fmt.Errorf("%s: no face at the top (skin %.3f)", k, s))
		}
	}
	return nil
}

// skinShare is the share of the subject's pixels (alpha at least a half)
// within r (the whole frame when r is empty) that have a skin tone, read
// on a grid of at most 256 px.
func skinShare(img *image.NRGBA, m *matte, r image.Rectangle) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if r.Empty() {
		r = img.Rect
	}
	r = r.Intersect(img.Rect)
	step := max(1, max(w, h)/256)
	var n, skin int
	for y := r.Min.Y; y < r.Max.Y; y += step {
		for x := r.Min.X; x < r.Max.X; x += step {
			if m.alpha.p[y*w+x] < 0.5 {
				continue
			}
			n++
			i := y*img.Stride + x*4
			if isSkin(img.Pix[i], img.Pix[i+1], img.Pix[i+2]) {
				skin++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(skin) / float64(n)
}

// chroma is the mean a*b* magnitude of the subject (alpha at least a
// half) of img, read on a grid of at most 128 px: under greyChroma the
// picture has no colour to tell one piece from another.
func chroma(img *image.NRGBA, m *matte) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	step := max(1, max(w, h)/128)
	var sum float64
	n := 0
	for y := 0; y < h; y += step {
		for x := 0; x < w; x += step {
			if m.alpha.p[y*w+x] < 0.5 {
				continue
			}
			i := y*img.Stride + x*4
			_, a, b := picture.ToLab(float64(img.Pix[i]), float64(img.Pix[i+1]), float64(img.Pix[i+2]))
			sum += math.Hypot(a, b)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
