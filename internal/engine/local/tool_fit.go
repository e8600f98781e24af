package local

import (
	"context"
	"image"
	"math"

	"studio/internal/engine"
	"studio/internal/picture"
)

// runFitAdjust changes how loose the garment looks with a horizontal warp
// (params.fit: fitted 0.90x, regular 1x, loose 1.10x, oversized 1.22x). The
// garment is found as in color-change: the subject (findMatte), its largest
// non-skin colour cluster, so on a figure the head, hands and other pieces
// stay as they are. Per row, the garment's span gives a centre c and a
// half-width hw; a pixel at distance d from c moves to s*d inside the
// garment, and a band of 0.6*hw (or more, when widening needs it) outside it
// blends back to no motion, so the map is continuous and monotonic and the
// frame's edges never move. Rows the garment only grazes are weighted down,
// and centre, width and weight are smoothed vertically so the silhouette
// stays clean.
func runFitAdjust(ctx context.Context, r engine.Request) (engine.Result, error) {
	fit, err := engine.ParseFit(r.Param("fit"))
	if err != nil {
		return engine.Result{}, engine.InputError(r.Tool, "Fit-adjust needs a fit option: fitted, regular, loose or oversized.", err)
	}
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	w, h, fw, fh := workSize(ctx, r, iw, ih)
	work := picture.Resize(img, fw, fh)
	m, err := findMatte(work, r.Tool)
	if err != nil {
		return engine.Result{}, engine.InputError(r.Tool, "No garment could be separated from its background cleanly; try a photo on a plainer ground.", err)
	}
	if work == img {
		work = cloneNRGBA(img)
	}
	picture.Flatten(work)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	region, err := findGarment(work, m, r.Param("part"), r.Tool, "Say which piece with the part option: top, bottom or dress.")
	if err != nil || checking(ctx) {
		return engine.Result{}, err
	}
	out := work
	if s := fit.Scale(); s != 1 {
		out = warpRows(work, garmentRows(region), s)
	}
	return engine.EncodeJPEG(picture.Conform(out, w, h, picture.FillAuto, false))
}

// rowSpan is the garment's extent on one row; weight 0 means the row is not warped.
type rowSpan struct {
	centre, half, weight float64
}

// garmentRows measures the garment's span on every row of its region.
func garmentRows(region *plane) []rowSpan {
	a := region
	spans := make([]rowSpan, a.h)
	for y := range a.h {
		row := a.p[y*a.w : (y+1)*a.w]
		l, r, n := -1, -1, 0
		for x, v := range row {
			if v > 0.5 {
				if l < 0 {
					l = x
				}
				r = x
				n++
			}
		}
		if l >= 0 {
			cover := float64(n) / float64(r-l+1)
			spans[y] = rowSpan{centre: float64(l+r) / 2, half: float64(r-l+1) / 2, weight: picture.Smoothstep(0.3, 0.6, cover)}
		}
	}
	// Smooth centre, half-width and weight over a window of 3% of the height.
	win := max(1, a.h*3/100)
	out := make([]rowSpan, a.h)
	for y := range a.h {
		var c, hw, wt, n float64
		lo, hi := max(0, y-win), min(a.h-1, y+win)
		for k := lo; k <= hi; k++ {
			if spans[k].half > 0 {
				c += spans[k].centre
				hw += spans[k].half
				n++
			}
			wt += spans[k].weight
		}
		if n > 0 {
			out[y] = rowSpan{centre: c / n, half: hw / n, weight: wt / float64(hi-lo+1)}
		}
	}
	return out
}

// warpRows scales each row horizontally about its garment centre.
func warpRows(img *image.NRGBA, rows []rowSpan, scale float64) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewNRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	picture.Parallel(h, func(y0, y1 int) {
		var px [4]float64
		for y := y0; y < y1; y++ {
			sp := rows[y]
			s := 1 + (scale-1)*sp.weight
			if sp.half < 1 || math.Abs(s-1) < 1e-3 {
				continue
			}
			hw := sp.half
			band := hw * math.Max(0.6, 2*(s-1))
			for x := range w {
				d := float64(x) - sp.centre
				ad := math.Abs(d)
				var src float64
				switch {
				case ad <= s*hw:
					src = ad / s
				case ad <= hw+band:
					// Linear from (s*hw -> hw) to (hw+band -> hw+band).
					src = hw + (ad-s*hw)*band/(hw+band-s*hw)
				default:
					continue
				}
				sx := sp.centre + math.Copysign(src, d)
				sampleRGBA(img, sx, float64(y), &px)
				i := y*out.Stride + x*4
				out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = picture.Clamp8(px[0]), picture.Clamp8(px[1]), picture.Clamp8(px[2]), 255
			}
		}
	})
	return out
}

func cloneNRGBA(img *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	return out
}
