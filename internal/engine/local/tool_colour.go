package local

import (
	"context"
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// runHarmonize composites the subject of the image input onto the background
// input and matches its colour to the scene: Reinhard colour transfer in
// CIE Lab, moving the subject's per-channel mean towards the background's
// and its spread by the ratio of spreads (held within 0.8..1.25 for a and b,
// 0.7..1.4 for lightness, so a flat backdrop does not wash out the subject),
// at params.strength (default 0.6) for a and b and half that for lightness,
// so a light garment does not go dull. The subject (a cut of the product
// kind: whole, nothing left behind) is placed where the scene has room
// (placeSubject): at the largest plausible height, from 80% of the frame
// down to 42%, and the first position across it that leaves the scene's
// own subject uncovered, standing near the bottom (or on it when the source
// cut it off there), with a soft contact shadow and its edge choked so no
// halo of its old ground follows it. A scene with no such room is refused.
// The frame takes the shape's aspect, else the background's.
func runHarmonize(ctx context.Context, r engine.Request) (engine.Result, error) {
	subj, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	ground, err := decodeRole(r, "background")
	if err != nil {
		return engine.Result{}, err
	}
	picture.Flatten(ground)
	w, h, _, _ := workSize(ctx, r, ground.Rect.Dx(), ground.Rect.Dy())
	subj = picture.FitLong(subj, r.Tier.Pixels())
	m, err := findMatteOn(subj, r.Tool, need{kind: cutProduct})
	if err != nil {
		return engine.Result{}, engine.InRole(err, r.Tool, "image")
	}
	canvas := imaging.Clone(coverFill(ground, w, h))
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}

	pad := max(2, int(0.01*float64(max(m.box.Dx(), m.box.Dy()))))
	cut := cutout(subj, m, m.box.Inset(-pad))
	cutAlpha := alphaPlane(cut)
	from := statsOf(cut, cutAlpha)
	to := statsOf(canvas, nil)
	k := strengthParam(r, 0.6)
	kc := [3]float64{0.5 * k, k, k}
	transfer := buildLUT(33, func(rr, gg, bb float64) (float64, float64, float64) {
		lab := [3]float64{}
		lab[0], lab[1], lab[2] = picture.ToLab(rr, gg, bb)
		for c := range 3 {
			// The spread follows the scene's only so far: a flat backdrop must
			// not wash out the subject's own contrasts (skin against cloth).
			ratio := 1.0
			if from.std[c] > 1e-3 {
				lo, hi := 0.8, 1.25
				if c == 0 {
					lo, hi = 0.7, 1.4
				}
				ratio = math.Max(lo, math.Min(hi, to.std[c]/from.std[c]))
			}
			moved := to.mean[c] + (lab[c]-from.mean[c])*ratio
			lab[c] += (moved - lab[c]) * kc[c]
		}
		return picture.FromLab(lab[0], lab[1], lab[2])
	})
	applyLUT(cut, transfer, nil)

	choke(cut)
	touchesBottom := m.box.Max.Y >= subj.Rect.Dy()-2
	p, ok := placeSubject(canvas, cut, touchesBottom)
	if !ok {
		return engine.Result{}, engine.InputError(r.Tool, "The scene has no room for the subject: wherever it stands it would cover the scene's own subject; try a quieter background.", nil)
	}
	if checking(ctx) {
		return engine.Result{}, nil
	}
	placed := imaging.Resize(cut, p.w, p.h, imaging.Lanczos)
	if touchesBottom {
		p.y += int(float64(pad) * float64(p.h) / float64(cut.Rect.Dy()))
	} else {
		castShadow(canvas, placed, p.x, p.y, 0.7)
	}
	over(canvas, placed, p.x, p.y)
	return engine.EncodeJPEG(canvas)
}

// placement is where and how large the subject stands in the scene.
type placement struct{ x, y, w, h int }

// The subject's heights tried, as shares of the frame's, largest first,
// and the most of the scene's salient mass it may cover.
var (
	placeHeights = []float64{0.8, 0.7, 0.6, 0.5, 0.42}
	placeAcross  = []float64{0.5, 0.33, 0.67, 0.22, 0.78}
)

const placeCover = 0.12

// placeSubject finds where the cut-out stands in canvas: the largest
// height (80% of the frame down to 42%, a plausible scale) at which some
// position across the frame (centre, thirds, then nearer the edges) covers
// at most placeCover of the scene's salient mass (saliency), standing at
// 94% of the height (on the bottom when the source cut the subject off
// there). It reports false when every placement covers more: the subject
// would stand over the scene's own subject.
func placeSubject(canvas, cut *image.NRGBA, onBottom bool) (placement, bool) {
	w, h := canvas.Rect.Dx(), canvas.Rect.Dy()
	sal, gw, gh := saliency(canvas)
	total := 0.0
	for _, v := range sal {
		total += v
	}
	mask := alphaPlane(cut)
	for _, hh := range placeHeights {
		s := math.Min(hh*float64(h)/float64(cut.Rect.Dy()), 0.9*float64(w)/float64(cut.Rect.Dx()))
		pw := max(1, int(math.Round(float64(cut.Rect.Dx())*s)))
		ph := max(1, int(math.Round(float64(cut.Rect.Dy())*s)))
		oy := int(0.94*float64(h)) - ph
		if onBottom {
			oy = h - ph
		}
		for _, across := range placeAcross {
			ox := int(across*float64(w)) - pw/2
			ox = max(0, min(w-pw, ox))
			covered := 0.0
			for gy := range gh {
				for gx := range gw {
					// The cell's centre in the cut-out's pixels.
					cx := ((float64(gx)+0.5)*float64(w)/float64(gw) - float64(ox)) / s
					cy := ((float64(gy)+0.5)*float64(h)/float64(gh) - float64(oy)) / s
					if cx < 0 || cy < 0 || cx >= float64(mask.w) || cy >= float64(mask.h) {
						continue
					}
					if mask.p[int(cy)*mask.w+int(cx)] >= 0.5 {
						covered += sal[gy*gw+gx]
					}
				}
			}
			if total == 0 || covered <= placeCover*total {
				return placement{x: ox, y: oy, w: pw, h: ph}, true
			}
		}
	}
	return placement{}, false
}

// saliency maps, on a grid of 64 cells along the long edge, how much each
// cell stands out of the scene: its colour's distance from the scene's
// border (the ground a scene's subject stands against), beyond the
// border's own spread, plus its edges. A plain or evenly busy scene has
// little; a rocket against the night, a cup on a table, a lot.
func saliency(img *image.NRGBA) ([]float64, int, int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	gw, gh := 64, max(1, 64*h/w)
	if h > w {
		gw, gh = max(1, 64*w/h), 64
	}
	small := imaging.Resize(img, gw, gh, imaging.Box)
	lab := make([][3]float64, gw*gh)
	for y := range gh {
		for x := range gw {
			i := y*small.Stride + x*4
			l, a, b := picture.ToLab(float64(small.Pix[i]), float64(small.Pix[i+1]), float64(small.Pix[i+2]))
			lab[y*gw+x] = [3]float64{l, a, b}
		}
	}
	var border [][3]float64
	for x := range gw {
		border = append(border, lab[x], lab[(gh-1)*gw+x])
	}
	for y := range gh {
		border = append(border, lab[y*gw], lab[y*gw+gw-1])
	}
	near := func(c [3]float64) float64 { // distance to the nearest of the border's colours
		best := math.Inf(1)
		for _, b := range border {
			best = math.Min(best, (c[0]-b[0])*(c[0]-b[0])+(c[1]-b[1])*(c[1]-b[1])+(c[2]-b[2])*(c[2]-b[2]))
		}
		return math.Sqrt(best)
	}
	out := make([]float64, gw*gh)
	for y := range gh {
		for x := range gw {
			c := lab[y*gw+x]
			d := max(0, near(c)-8)
			var e float64
			if x+1 < gw && y+1 < gh {
				r, b := lab[y*gw+x+1], lab[(y+1)*gw+x]
				e = math.Abs(c[0]-r[0]) + math.Abs(c[0]-b[0])
			}
			out[y*gw+x] = d + 0.5*max(0, e-6)
		}
	}
	return out, gw, gh
}

// choke tightens a cut-out's edge: alpha under 0.2 goes, from 0.9 it is
// whole, so no rim of the old ground (a halo) follows the subject onto
// the new one.
func choke(img *image.NRGBA) {
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = picture.Clamp8(255 * picture.Smoothstep(0.2*255, 0.9*255, float64(img.Pix[i])))
	}
}

// alphaPlane is the alpha channel of img, 0..1.
func alphaPlane(img *image.NRGBA) *plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	p := newPlane(w, h)
	for y := range h {
		for x := range w {
			p.p[y*w+x] = float32(img.Pix[y*img.Stride+x*4+3]) / 255
		}
	}
	return p
}

// runColorChange recolours the garment to params.color. The region is the
// mask input's white area when given; otherwise the garment is found with a
// measured confidence (findGarment): the subject (findMatte), less skin
// tones, clustered in Lab, the one candidate piece and its colour
// neighbourhood; a greyscale photo, several rival pieces, a region that
// takes in skin or falls in pieces is refused, asking for a mask. The
// recolour works in Lab: lightness keeps the garment's shading around the
// target's lightness (compressed only as far as needed to stay in range),
// and a and b take the target's with a quarter of the original variation.
func runColorChange(ctx context.Context, r engine.Request) (engine.Result, error) {
	target, err := engine.ParseColor(r.Param("color"))
	if err != nil {
		return engine.Result{}, engine.InputError(r.Tool, "Color-change needs a color option like #1f3a5f.", err)
	}
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	w, h, fw, fh := workSize(ctx, r, iw, ih)
	work := picture.Resize(img, fw, fh)
	if work == img {
		work = imaging.Clone(img)
	}

	var region *plane
	if mdata, ok := r.Input("mask"); ok {
		mask, err := engine.DecodeMask(r.Tool, "mask", mdata)
		if err != nil {
			return engine.Result{}, err
		}
		region = maskPlane(mask, fw, fh).boxBlur(1)
		if region.mean() < 0.0005 {
			return engine.Result{}, engine.InputError(r.Tool, "The mask marks nothing to recolour; paint the garment white.", nil)
		}
	} else {
		m, err := findMatte(work, r.Tool)
		if err != nil {
			return engine.Result{}, engine.InputError(r.Tool, "No garment could be separated from its background cleanly; send a mask of the garment.", err)
		}
		picture.Flatten(work)
		if region, err = findGarment(work, m, "", r.Tool, "Send a mask of the garment."); err != nil {
			return engine.Result{}, err
		}
	}
	if checking(ctx) {
		return engine.Result{}, nil
	}
	picture.Flatten(work)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}

	st := statsOf(work, region)
	lt, at, bt := picture.ToLab(float64(target.R), float64(target.G), float64(target.B))
	// Keep the shading (L around its mean) but fit it in range at the target's lightness.
	room := math.Min(lt, 100-lt)
	s := math.Max(0.35, math.Min(1, room/(2.5*st.std[0]+1e-3)))
	recolour := buildLUT(33, func(rr, gg, bb float64) (float64, float64, float64) {
		l, a, b := picture.ToLab(rr, gg, bb)
		return picture.FromLab(lt+(l-st.mean[0])*s, at+(a-st.mean[1])*0.25, bt+(b-st.mean[2])*0.25)
	})
	applyLUT(work, recolour, region)
	return engine.EncodeJPEG(picture.Conform(work, w, h, picture.FillAuto, false))
}

// maskPlane reads a grey mask (white = 1) at w x h, resampled bilinearly
// with pixel centres aligned, straight into the plane (no colour copy of
// the mask at the frame's size).
func maskPlane(mask *image.Gray, w, h int) *plane {
	mw, mh := mask.Rect.Dx(), mask.Rect.Dy()
	p := newPlane(w, h)
	x0s, x1s, fxs := taps(w, mw)
	y0s, y1s, fys := taps(h, mh)
	picture.Parallel(h, func(ylo, yhi int) {
		for y := ylo; y < yhi; y++ {
			r0 := mask.Pix[y0s[y]*mask.Stride : y0s[y]*mask.Stride+mw]
			r1 := mask.Pix[y1s[y]*mask.Stride : y1s[y]*mask.Stride+mw]
			fy := fys[y]
			row := p.p[y*w : (y+1)*w]
			for x := range row {
				a := float32(r0[x0s[x]]) + (float32(r0[x1s[x]])-float32(r0[x0s[x]]))*fxs[x]
				b := float32(r1[x0s[x]]) + (float32(r1[x1s[x]])-float32(r1[x0s[x]]))*fxs[x]
				row[x] = (a + (b-a)*fy) / 255
			}
		}
	})
	return p
}
