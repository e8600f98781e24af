package local

import (
	"context"
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// runCleanup removes what the mask input paints white. The mask is stretched
// to the image, thresholded at half grey and grown by 0.3% of the long edge
// (to take the blotch's soft rim too); the work is done in a window around
// the marked area. The hole is filled by push-pull
// diffusion (Gortler et al.): known pixels are averaged down an image
// pyramid until no hole remains, then pulled back up, each level filling its
// holes from the smoother level below, with a few Jacobi (Laplace) steps per
// level so the fill is a smooth membrane over the surrounding colours. Grain
// measured in a ring around the hole is added back (deterministic noise) so
// the patch matches the photo's texture.
func runCleanup(ctx context.Context, r engine.Request) (engine.Result, error) {
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	mdata, ok := r.Input("mask")
	if !ok {
		return engine.Result{}, engine.InputError(r.Tool, "The cleanup tool needs an input in the mask role.", nil)
	}
	mask, err := engine.DecodeMask(r.Tool, "mask", mdata)
	if err != nil {
		return engine.Result{}, err
	}
	picture.Flatten(img)
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	w, h, fw, fh := engine.FrameSize(r.Tier, r.Shape, iw, ih)
	work := picture.Resize(img, fw, fh)
	if work == img {
		work = imaging.Clone(img)
	}
	mp := maskPlane(mask, fw, fh)
	for i, v := range mp.p {
		if v >= 0.5 {
			mp.p[i] = 1
		} else {
			mp.p[i] = 0
		}
	}
	marked := mp.bounds(0.5)
	if marked.Empty() {
		return engine.Result{}, engine.InputError(r.Tool, "The mask marks nothing to clean up; paint the area to remove white.", nil)
	}
	// Work in a window around the marked area: the fill only draws on its
	// surroundings, so the rest of the frame need not be touched.
	grow := max(1, int(math.Round(0.003*float64(max(fw, fh)))))
	margin := grow + 8 + max(marked.Dx(), marked.Dy())/2
	win := marked.Inset(-margin).Intersect(work.Rect)
	ww, wh := win.Dx(), win.Dy()
	sub := newPlane(ww, wh)
	for y := range wh {
		copy(sub.p[y*ww:(y+1)*ww], mp.p[(y+win.Min.Y)*fw+win.Min.X:(y+win.Min.Y)*fw+win.Max.X])
	}
	grown := sub.boxBlur(grow)
	hole := make([]bool, ww*wh)
	n := 0
	for i, v := range grown.p {
		if v > 0.001 {
			hole[i] = true
			n++
		}
	}
	if float64(n) > 0.9*float64(fw*fh) || n == ww*wh {
		return engine.Result{}, engine.InputError(r.Tool, "The mask covers almost the whole image; nothing is left to fill from.", nil)
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	patch := image.NewNRGBA(image.Rect(0, 0, ww, wh))
	for y := range wh {
		copy(patch.Pix[y*patch.Stride:(y+1)*patch.Stride], work.Pix[(y+win.Min.Y)*work.Stride+win.Min.X*4:(y+win.Min.Y)*work.Stride+win.Max.X*4])
	}
	grain := ringGrain(patch, hole, 3*grow+4)
	inpaint(patch, hole)
	if grain > 0.5 {
		addGrain(patch, hole, grain, win.Min)
	}
	for y := range wh {
		copy(work.Pix[(y+win.Min.Y)*work.Stride+win.Min.X*4:(y+win.Min.Y)*work.Stride+win.Max.X*4], patch.Pix[y*patch.Stride:(y+1)*patch.Stride])
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(picture.Conform(work, w, h, picture.FillAuto, false))
}

// level is one pyramid level: premultiplied colour and weight.
type level struct {
	w, h int
	c    [][3]float32
	wt   []float32
}

// inpaint fills the hole pixels of img by push-pull diffusion, in place.
func inpaint(img *image.NRGBA, hole []bool) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	base := &level{w: w, h: h, c: make([][3]float32, w*h), wt: make([]float32, w*h)}
	for y := range h {
		for x := range w {
			k := y*w + x
			if hole[k] {
				continue
			}
			i := y*img.Stride + x*4
			base.c[k] = [3]float32{float32(img.Pix[i]), float32(img.Pix[i+1]), float32(img.Pix[i+2])}
			base.wt[k] = 1
		}
	}
	levels := []*level{base}
	for cur := base; cur.w > 1 || cur.h > 1; {
		if !hasGap(cur) {
			break
		}
		cur = push(cur)
		levels = append(levels, cur)
	}
	for i := len(levels) - 2; i >= 0; i-- {
		pull(levels[i], levels[i+1])
	}
	for y := range h {
		for x := range w {
			k := y*w + x
			if !hole[k] {
				continue
			}
			i := y*img.Stride + x*4
			for c := range 3 {
				img.Pix[i+c] = picture.Clamp8(float64(base.c[k][c]))
			}
		}
	}
}

func hasGap(l *level) bool {
	for _, v := range l.wt {
		if v < 1 {
			return true
		}
	}
	return false
}

// push halves l: each coarse pixel averages its known children.
func push(l *level) *level {
	cw, ch := (l.w+1)/2, (l.h+1)/2
	c := &level{w: cw, h: ch, c: make([][3]float32, cw*ch), wt: make([]float32, cw*ch)}
	for y := range ch {
		for x := range cw {
			var s [3]float32
			var wt float32
			for dy := range 2 {
				for dx := range 2 {
					fx, fy := min(2*x+dx, l.w-1), min(2*y+dy, l.h-1)
					k := fy*l.w + fx
					v := l.wt[k]
					if v == 0 {
						continue
					}
					wt += v
					for ch := range 3 {
						s[ch] += l.c[k][ch] * v
					}
				}
			}
			k := y*cw + x
			if wt > 0 {
				for ch := range 3 {
					c.c[k][ch] = s[ch] / wt
				}
				c.wt[k] = min(1, wt)
			}
		}
	}
	return c
}

// pull fills l's unknown pixels from the coarser level (bilinear), then
// relaxes them with Jacobi steps of the Laplace equation.
func pull(l, coarse *level) {
	var gaps []int
	for k, v := range l.wt {
		if v >= 1 {
			continue
		}
		x, y := k%l.w, k/l.w
		cx := (float64(x)+0.5)/2 - 0.5
		cy := (float64(y)+0.5)/2 - 0.5
		up := sampleLevel(coarse, cx, cy)
		for c := range 3 {
			l.c[k][c] = l.c[k][c]*v + up[c]*(1-v)
		}
		if v == 0 {
			gaps = append(gaps, k)
		}
		l.wt[k] = 1
	}
	for range 6 {
		for _, k := range gaps {
			x, y := k%l.w, k/l.w
			var s [3]float32
			n := float32(0)
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= l.w || ny >= l.h {
					continue
				}
				j := ny*l.w + nx
				for c := range 3 {
					s[c] += l.c[j][c]
				}
				n++
			}
			for c := range 3 {
				l.c[k][c] = s[c] / n
			}
		}
	}
}

func sampleLevel(l *level, x, y float64) [3]float32 {
	x = math.Max(0, math.Min(float64(l.w-1), x))
	y = math.Max(0, math.Min(float64(l.h-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, l.w-1), min(y0+1, l.h-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	var out [3]float32
	for c := range 3 {
		a := l.c[y0*l.w+x0][c]*(1-fx) + l.c[y0*l.w+x1][c]*fx
		b := l.c[y1*l.w+x0][c]*(1-fx) + l.c[y1*l.w+x1][c]*fx
		out[c] = a*(1-fy) + b*fy
	}
	return out
}

// ringGrain is the standard deviation of the luma high-pass in a ring of the
// given width around the hole: the photo's grain.
func ringGrain(img *image.NRGBA, hole []bool, width int) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	hp := newPlane(w, h)
	hp2 := newPlane(w, h)
	for y := range h {
		for x := range w {
			i := y*img.Stride + x*4
			hp.p[y*w+x] = float32(luma(img.Pix[i], img.Pix[i+1], img.Pix[i+2]))
		}
	}
	mean := hp.boxBlur(1)
	hm := newPlane(w, h)
	for i, v := range hole {
		if v {
			hm.p[i] = 1
		}
		d := hp.p[i] - mean.p[i]
		hp2.p[i] = d * d
	}
	near := hm.boxBlur(width)
	var s, n float64
	for i, v := range near.p {
		if v > 0 && !hole[i] {
			s += float64(hp2.p[i])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	// The 3x3 high-pass keeps 8/9 of white noise's variance.
	return math.Sqrt(s / n * 9 / 8)
}

// addGrain adds deterministic luma noise of standard deviation sigma to the
// hole; at is the patch's place in the frame, which seeds the noise.
func addGrain(img *image.NRGBA, hole []bool, sigma float64, at image.Point) {
	w := img.Rect.Dx()
	amp := sigma * math.Sqrt(12) // hash01 is uniform with standard deviation 1/sqrt(12)
	for k, v := range hole {
		if !v {
			continue
		}
		x, y := k%w, k/w
		n := hash01(x+at.X, y+at.Y, 0) * amp
		i := y*img.Stride + x*4
		for c := range 3 {
			img.Pix[i+c] = picture.Clamp8(float64(img.Pix[i+c]) + n)
		}
	}
}
