package local

import (
	"context"
	"errors"
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// runIron reduces wrinkles with an edge-preserving smoothing of the fabric:
// a self-guided filter (He et al.) per channel, computed the fast way (the
// linear coefficients on a grid subsampled to about 768 px and upsampled),
// with a window radius of 3% of the long edge and eps set by params.strength
// (default 0.6). Broad shading ridges (wrinkles, variance near eps) flatten;
// seams and garment edges (variance far above eps) stay. The finest detail
// (a 3x3 high-pass: weave, grain) is added back where the filter smoothed,
// so the fabric does not turn plastic. Only fabric the engine has
// separated is ironed: the mask input's white area when one is sent, else
// a garment on a plain ground (a cut of the garment kind, checkCut). Any
// other picture is refused (a face, hair, a table are not fabric): the
// filter smooths whatever it is given.
func runIron(ctx context.Context, r engine.Request) (engine.Result, error) {
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
	region, err := fabricRegion(r, work)
	if err != nil || checking(ctx) {
		return engine.Result{}, err
	}
	picture.Flatten(work)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	strength := strengthParam(r, 0.6)
	eps := 0.0005 * math.Pow(60, strength)
	radius := max(2, int(math.Round(0.03*float64(max(fw, fh)))))
	out := guidedSmooth(work, radius, eps, region)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(picture.Conform(out, w, h, picture.FillAuto, false))
}

// guidedSmooth applies the fast self-guided filter to each channel of img,
// blended into img by region (nil = everywhere). Only the filter's
// coefficients are planes, on the subsampled grid; the full-size pass reads
// them bilinearly and the 3x3 high-pass from img as it writes each pixel,
// so a 4k frame holds img, region and the result and nothing else of its
// size (issue 32: a 4k iron peaked at 730 MB with six full-size planes).
func guidedSmooth(img *image.NRGBA, radius int, eps float64, region *plane) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sub := max(1, int(math.Round(float64(max(w, h))/768)))
	lw, lh := max(1, w/sub), max(1, h/sub)
	low := imaging.Resize(img, lw, lh, imaging.Box)
	lr := max(1, radius/sub)

	var meanA, meanB [3]*plane
	for c := range 3 {
		p := newPlane(lw, lh)
		for y := range lh {
			for x := range lw {
				p.p[y*lw+x] = float32(low.Pix[y*low.Stride+x*4+c]) / 255
			}
		}
		pp := newPlane(lw, lh)
		for i, v := range p.p {
			pp.p[i] = v * v
		}
		meanI := p.boxBlur(lr)
		meanII := pp.boxBlur(lr)
		a := newPlane(lw, lh)
		b := newPlane(lw, lh)
		for i := range a.p {
			m := float64(meanI.p[i])
			v := math.Max(0, float64(meanII.p[i])-m*m)
			ak := v / (v + eps)
			a.p[i] = float32(ak)
			b.p[i] = float32(m - ak*m)
		}
		meanA[c], meanB[c] = a.boxBlur(lr), b.boxBlur(lr)
	}
	x0s, x1s, fxs := taps(w, lw)
	y0s, y1s, fys := taps(h, lh)
	at := func(m *plane, x, y int) float32 {
		r0, r1 := m.p[y0s[y]*lw:], m.p[y1s[y]*lw:]
		a := r0[x0s[x]] + (r0[x1s[x]]-r0[x0s[x]])*fxs[x]
		b := r1[x0s[x]] + (r1[x1s[x]]-r1[x0s[x]])*fxs[x]
		return a + (b-a)*fys[y]
	}
	out := image.NewNRGBA(img.Rect)
	picture.Parallel(h, func(ylo, yhi int) {
		for y := ylo; y < yhi; y++ {
			ya, yb := max(0, y-1), min(h-1, y+1)
			for x := range w {
				xa, xb := max(0, x-1), min(w-1, x+1)
				n := float64((yb - ya + 1) * (xb - xa + 1))
				t := 1.0
				if region != nil {
					t = float64(region.p[y*w+x])
				}
				for c := range 3 {
					i := y*img.Stride + x*4 + c
					src := float64(img.Pix[i])
					var sum float64 // the 3x3 mean, the window clipped at the edges
					for yy := ya; yy <= yb; yy++ {
						for xx := xa; xx <= xb; xx++ {
							sum += float64(img.Pix[yy*img.Stride+xx*4+c])
						}
					}
					fine := float32(src) - float32(sum/n)
					av := float64(at(meanA[c], x, y))
					q := 255 * (av*src/255 + float64(at(meanB[c], x, y)))
					q += (1 - av) * 0.8 * float64(fine)
					out.Pix[i] = picture.Clamp8(src + (q-src)*t)
				}
				out.Pix[y*out.Stride+x*4+3] = 255
			}
		}
	})
	return out
}

// fabricRegion is where iron may work: the mask input's white area at the
// working size, or the matte of a garment on a plain ground.
func fabricRegion(r engine.Request, work *image.NRGBA) (*plane, error) {
	if mdata, ok := r.Input("mask"); ok {
		mask, err := engine.DecodeMask(r.Tool, "mask", mdata)
		if err != nil {
			return nil, err
		}
		region := maskPlane(mask, work.Rect.Dx(), work.Rect.Dy()).boxBlur(1)
		if region.mean() < 0.0005 {
			return nil, engine.InputError(r.Tool, "The mask marks nothing to iron; paint the garment white.", nil)
		}
		return region, nil
	}
	m, err := findMatteOn(work, r.Tool, need{kind: cutGarment})
	if e, ok := errors.AsType[*engine.Error](err); ok && e.Reason == reasonNoSubject {
		return nil, engine.InputError(r.Tool, reasonNotGarment, err)
	}
	if err != nil {
		return nil, err
	}
	return m.alpha, nil
}
