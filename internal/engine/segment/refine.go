package segment

import (
	"image"
	"math"
)

// guideRadius and guideEps are the guided filter's window radius (working
// pixels) and regulariser (squared 0..1 colour levels): a small window and
// a small eps let the alpha follow colour edges closely.
const (
	guideRadius = 2
	guideEps    = 0.002
)

// Matte returns the subject's alpha at the size of img, which must be the
// picture Separate was given (at any size). The working mask is upsampled
// with a fast guided filter (He and Sun 2015): at the working size each
// window fits alpha as a linear function of colour, and those coefficients,
// interpolated to full size, are applied to img's own pixels, so the edge
// follows the full-size picture and soft transitions (hair, fur, motion)
// become partial alpha. Memory beyond the result is a few working-size planes.
func (c *Cut) Matte(img *image.NRGBA) []float32 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	ww, wh := c.work.w, c.work.h
	n := ww * wh
	// Guide channels in 0..1 and the mask, softened by one pixel.
	var I [3][]float32
	for k := range 3 {
		I[k] = make([]float32, n)
	}
	p := make([]float32, n)
	for i, px := range c.work.pix {
		for k := range 3 {
			I[k][i] = px[k] / 255
		}
		if c.fg[i] {
			p[i] = 1
		}
	}
	r := guideRadius
	mp := boxMean(p, ww, wh, r)
	var mI, mIp [3][]float32
	for k := range 3 {
		mI[k] = boxMean(I[k], ww, wh, r)
		prod := make([]float32, n)
		for i := range prod {
			prod[i] = I[k][i] * p[i]
		}
		mIp[k] = boxMean(prod, ww, wh, r)
	}
	var mII [3][3][]float32
	for a := range 3 {
		for b := a; b < 3; b++ {
			prod := make([]float32, n)
			for i := range prod {
				prod[i] = I[a][i] * I[b][i]
			}
			mII[a][b] = boxMean(prod, ww, wh, r)
		}
	}
	// Per window: a = (Sigma + eps U)^-1 cov(I, p), b = mean(p) - a . mean(I).
	var A [3][]float32
	for k := range 3 {
		A[k] = make([]float32, n)
	}
	B := make([]float32, n)
	for i := range n {
		var s [3][3]float64
		for a := range 3 {
			for b := a; b < 3; b++ {
				s[a][b] = float64(mII[a][b][i]) - float64(mI[a][i])*float64(mI[b][i])
				s[b][a] = s[a][b]
			}
			s[a][a] += guideEps
		}
		inv, det := invert3(s)
		var cov [3]float64
		for k := range 3 {
			cov[k] = float64(mIp[k][i]) - float64(mI[k][i])*float64(mp[i])
		}
		b := float64(mp[i])
		for k := range 3 {
			ak := 0.0
			if det > 0 {
				ak = inv[k][0]*cov[0] + inv[k][1]*cov[1] + inv[k][2]*cov[2]
			}
			A[k][i] = float32(ak)
			b -= ak * float64(mI[k][i])
		}
		B[i] = float32(b)
	}
	for k := range 3 {
		A[k] = boxMean(A[k], ww, wh, r)
	}
	B = boxMean(B, ww, wh, r)

	out := make([]float32, w*h)
	sx := float64(ww) / float64(w)
	sy := float64(wh) / float64(h)
	parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			fy := math.Max(0, (float64(y)+0.5)*sy-0.5)
			j0 := min(wh-1, int(fy))
			j1 := min(wh-1, j0+1)
			ty := float32(fy - float64(j0))
			row := img.Pix[y*img.Stride:]
			for x := range w {
				fx := math.Max(0, (float64(x)+0.5)*sx-0.5)
				i0 := min(ww-1, int(fx))
				i1 := min(ww-1, i0+1)
				tx := float32(fx - float64(i0))
				lerp := func(v []float32) float32 {
					top := v[j0*ww+i0]*(1-tx) + v[j0*ww+i1]*tx
					bot := v[j1*ww+i0]*(1-tx) + v[j1*ww+i1]*tx
					return top*(1-ty) + bot*ty
				}
				px := row[x*4 : x*4+4]
				al := float32(px[3]) / 255
				q := lerp(B)
				for k := range 3 {
					// Seen on white, like the working copy.
					v := (al*float32(px[k]) + (1-al)*255) / 255
					q += lerp(A[k]) * v
				}
				out[y*w+x] = sharpen(q)
			}
		}
	})
	return out
}

// sharpen clips the filtered alpha and steepens its middle a little, so
// the interior is exactly 1 and the ground exactly 0.
func sharpen(q float32) float32 {
	const lo, hi = 0.04, 0.96
	switch {
	case q <= lo:
		return 0
	case q >= hi:
		return 1
	}
	return (q - lo) / (hi - lo)
}

// Ground returns the ground's colour around each working pixel: the
// picture where the mask is ground, and inside the subject the ground
// around it, diffused inwards (push-pull over a pyramid). Sample it with
// GroundAt to decontaminate edge colours.
func (c *Cut) Ground() *Ground {
	return &Ground{w: c.work.w, h: c.work.h, pix: fillGround(c.work, c.fg)}
}

// fillGround is work where fg is ground (a pixel within two of the subject
// left out: its colour may be mixed), and inside the subject the ground
// around it, diffused inwards by push-pull.
func fillGround(work *raster, fg []bool) [][3]float32 {
	w, h := work.w, work.h
	val := make([][4]float64, w*h) // premultiplied colour and weight
	for i, px := range work.pix {
		if !fg[i] && !nearSubject(fg, w, h, i) {
			val[i] = [4]float64{float64(px[0]), float64(px[1]), float64(px[2]), 1}
		}
	}
	filled := pushPull(val, w, h)
	out := make([][3]float32, w*h)
	for i, v := range filled {
		if v[3] > 0 {
			out[i] = [3]float32{float32(v[0] / v[3]), float32(v[1] / v[3]), float32(v[2] / v[3])}
		}
	}
	return out
}

// nearSubject reports whether pixel i is within two pixels of the subject:
// its colour may be mixed with the subject's.
func nearSubject(fg []bool, w, h, i int) bool {
	x, y := i%w, i/w
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			nx, ny := x+dx, y+dy
			if nx >= 0 && ny >= 0 && nx < w && ny < h && fg[ny*w+nx] {
				return true
			}
		}
	}
	return false
}

// pushPull fills the pixels of zero weight from their surroundings: the
// image is averaged down a pyramid until every cell has weight, then each
// level's holes take the coarser level's colour on the way up.
func pushPull(val [][4]float64, w, h int) [][4]float64 {
	if w <= 1 && h <= 1 {
		return val
	}
	cw, ch := (w+1)/2, (h+1)/2
	coarse := make([][4]float64, cw*ch)
	for y := range h {
		for x := range w {
			v := val[y*w+x]
			c := &coarse[(y/2)*cw+x/2]
			for k := range 4 {
				c[k] += v[k]
			}
		}
	}
	// Normalise each coarse cell to weight 1 where it has any.
	for i := range coarse {
		if wt := coarse[i][3]; wt > 0 {
			for k := range 4 {
				coarse[i][k] /= wt
			}
		}
	}
	coarse = pushPull(coarse, cw, ch)
	out := make([][4]float64, w*h)
	for y := range h {
		for x := range w {
			v := val[y*w+x]
			if v[3] > 0 {
				out[y*w+x] = [4]float64{v[0] / v[3], v[1] / v[3], v[2] / v[3], 1}
				continue
			}
			out[y*w+x] = coarse[(y/2)*cw+x/2]
		}
	}
	return out
}

// Ground is the estimated colour of the ground behind a subject, at the
// working size.
type Ground struct {
	w, h int
	pix  [][3]float32
}

// At returns the ground's colour at (u, v) in [0, 1]^2 of the picture,
// bilinearly interpolated, in 0..255.
func (g *Ground) At(u, v float64, out *[3]float64) {
	fx := math.Max(0, math.Min(float64(g.w-1), u*float64(g.w)-0.5))
	fy := math.Max(0, math.Min(float64(g.h-1), v*float64(g.h)-0.5))
	x0, y0 := int(fx), int(fy)
	x1, y1 := min(g.w-1, x0+1), min(g.h-1, y0+1)
	tx, ty := fx-float64(x0), fy-float64(y0)
	for k := range 3 {
		a := float64(g.pix[y0*g.w+x0][k])*(1-tx) + float64(g.pix[y0*g.w+x1][k])*tx
		b := float64(g.pix[y1*g.w+x0][k])*(1-tx) + float64(g.pix[y1*g.w+x1][k])*tx
		out[k] = a*(1-ty) + b*ty
	}
}
