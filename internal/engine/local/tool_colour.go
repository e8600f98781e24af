package local

import (
	"context"
	"image"
	"math"
	"slices"

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
// so a light garment does not go dull. The subject is placed
// centred, about 80% of the frame's height, standing near the bottom (or on
// it when the source cut it off there), with a soft contact shadow. The frame
// takes the shape's aspect, else the background's.
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
	w, h, _, _ := engine.FrameSize(r.Tier, r.Shape, ground.Rect.Dx(), ground.Rect.Dy())
	subj = picture.FitLong(subj, r.Tier.Pixels())
	m, err := findMatte(subj, r.Tool)
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

	touchesBottom := m.box.Max.Y >= subj.Rect.Dy()-2
	targetH := 0.80
	if touchesBottom {
		targetH = 0.86
	}
	s := math.Min(targetH*float64(h)/float64(cut.Rect.Dy()), 0.9*float64(w)/float64(cut.Rect.Dx()))
	pw := max(1, int(math.Round(float64(cut.Rect.Dx())*s)))
	ph := max(1, int(math.Round(float64(cut.Rect.Dy())*s)))
	placed := imaging.Resize(cut, pw, ph, imaging.Lanczos)
	ox := (w - pw) / 2
	oy := int(0.94*float64(h)) - ph
	if touchesBottom {
		oy = h - ph + int(float64(pad)*s)
	} else {
		castShadow(canvas, placed, ox, oy, 0.7)
	}
	over(canvas, placed, ox, oy)
	return engine.EncodeJPEG(canvas)
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
// mask input's white area when given; otherwise the garment is detected: the
// subject (findMatte), less skin tones, clustered in Lab (k-means, k = 3),
// and the largest cluster with its colour neighbourhood is the garment. The
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
	w, h, fw, fh := engine.FrameSize(r.Tier, r.Shape, iw, ih)
	work := picture.Resize(img, fw, fh)
	if work == img {
		work = imaging.Clone(img)
	}

	var region *plane
	if mdata, ok := r.Input("mask"); ok {
		mask, err := engine.DecodeInput(r.Tool, "mask", mdata)
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
		region = garmentRegion(work, m)
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

// maskPlane reads a mask image's luma (white = 1) at w x h.
func maskPlane(mask *image.NRGBA, w, h int) *plane {
	picture.Flatten(mask)
	m := imaging.Resize(mask, w, h, imaging.Linear)
	p := newPlane(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := range w {
				i := y*m.Stride + x*4
				p.p[y*w+x] = float32(luma(m.Pix[i], m.Pix[i+1], m.Pix[i+2]) / 255)
			}
		}
	})
	return p
}

// garmentRegion weighs each pixel of the subject by how much it belongs to
// the garment: the dominant non-skin colour cluster of the subject.
func garmentRegion(img *image.NRGBA, m *matte) *plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	small := picture.FitLong(img, 256)
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	sa := m.alpha.resized(sw, sh)
	var pts, all [][3]float64
	for y := range sh {
		for x := range sw {
			if sa.p[y*sw+x] < 0.6 {
				continue
			}
			i := y*small.Stride + x*4
			l, a, b := picture.ToLab(float64(small.Pix[i]), float64(small.Pix[i+1]), float64(small.Pix[i+2]))
			all = append(all, [3]float64{l, a, b})
			if !isSkin(small.Pix[i], small.Pix[i+1], small.Pix[i+2]) {
				pts = append(pts, [3]float64{l, a, b})
			}
		}
	}
	if len(pts) < len(all)/10 {
		pts = all
	}
	centre, spread := dominantCluster(pts)
	sigma := math.Max(12, 1.5*spread)
	member := buildLUT(33, func(rr, gg, bb float64) (float64, float64, float64) {
		l, a, b := picture.ToLab(rr, gg, bb)
		d2 := 0.25*(l-centre[0])*(l-centre[0]) + (a-centre[1])*(a-centre[1]) + (b-centre[2])*(b-centre[2])
		v := math.Exp(-d2 / (2 * sigma * sigma))
		return v, v, v
	})
	region := newPlane(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		var out [3]float64
		for y := y0; y < y1; y++ {
			for x := range w {
				a := m.alpha.p[y*w+x]
				if a <= 0.01 {
					continue
				}
				i := y*img.Stride + x*4
				r, g, b := img.Pix[i], img.Pix[i+1], img.Pix[i+2]
				member.at(r, g, b, &out)
				v := out[0]
				if isSkin(r, g, b) && len(pts) != len(all) {
					v *= 0.15
				}
				region.p[y*w+x] = a * float32(clamp01(v))
			}
		}
	})
	return region
}

// dominantCluster runs k-means (k = 3, deterministic start at lightness
// quantiles, lightness weighted 0.25) and returns the largest cluster's
// centre and its RMS spread.
func dominantCluster(pts [][3]float64) ([3]float64, float64) {
	if len(pts) == 0 {
		return [3]float64{50, 0, 0}, 10
	}
	sorted := slices.Clone(pts)
	slices.SortFunc(sorted, func(p, q [3]float64) int {
		switch {
		case p[0] < q[0]:
			return -1
		case p[0] > q[0]:
			return 1
		}
		return 0
	})
	const k = 3
	var cent [k][3]float64
	for i := range k {
		cent[i] = sorted[(2*i+1)*len(sorted)/(2*k)]
	}
	dist := func(p, c [3]float64) float64 {
		return 0.25*(p[0]-c[0])*(p[0]-c[0]) + (p[1]-c[1])*(p[1]-c[1]) + (p[2]-c[2])*(p[2]-c[2])
	}
	assign := make([]int, len(pts))
	var count [k]int
	for range 10 {
		var sum [k][3]float64
		count = [k]int{}
		for i, p := range pts {
			best := 0
			for j := 1; j < k; j++ {
				if dist(p, cent[j]) < dist(p, cent[best]) {
					best = j
				}
			}
			assign[i] = best
			count[best]++
			for c := range 3 {
				sum[best][c] += p[c]
			}
		}
		for j := range k {
			if count[j] > 0 {
				for c := range 3 {
					cent[j][c] = sum[j][c] / float64(count[j])
				}
			}
		}
	}
	best := 0
	for j := 1; j < k; j++ {
		if count[j] > count[best] {
			best = j
		}
	}
	var ss float64
	for i, p := range pts {
		if assign[i] == best {
			ss += dist(p, cent[best])
		}
	}
	return cent[best], math.Sqrt(ss / float64(max(1, count[best])))
}
