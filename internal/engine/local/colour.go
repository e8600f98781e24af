package local

import (
	"image"
	"math"

	"studio/internal/picture"
)

// lut3 is a 3D lookup table of an RGB -> RGB function, sampled on an n^3
// grid and read trilinearly, so a per-pixel Lab transform costs a few
// multiplications at full size.
type lut3 struct {
	n int
	v []float32 // (r*n + g)*n + b -> 3 values
}

func buildLUT(n int, f func(r, g, b float64) (float64, float64, float64)) *lut3 {
	l := &lut3{n: n, v: make([]float32, n*n*n*3)}
	step := 255 / float64(n-1)
	picture.Parallel(n, func(r0, r1 int) {
		for ri := r0; ri < r1; ri++ {
			for gi := range n {
				for bi := range n {
					a, b, c := f(float64(ri)*step, float64(gi)*step, float64(bi)*step)
					k := ((ri*n+gi)*n + bi) * 3
					l.v[k], l.v[k+1], l.v[k+2] = float32(a), float32(b), float32(c)
				}
			}
		}
	})
	return l
}

// at reads the table at an 8-bit RGB triple.
func (l *lut3) at(r, g, b uint8, out *[3]float64) {
	s := float64(l.n-1) / 255
	fr, fg, fb := float64(r)*s, float64(g)*s, float64(b)*s
	r0, g0, b0 := min(int(fr), l.n-2), min(int(fg), l.n-2), min(int(fb), l.n-2)
	tr, tg, tb := fr-float64(r0), fg-float64(g0), fb-float64(b0)
	n := l.n
	for c := range 3 {
		v := func(i, j, k int) float64 { return float64(l.v[((i*n+j)*n+k)*3+c]) }
		c00 := v(r0, g0, b0)*(1-tb) + v(r0, g0, b0+1)*tb
		c01 := v(r0, g0+1, b0)*(1-tb) + v(r0, g0+1, b0+1)*tb
		c10 := v(r0+1, g0, b0)*(1-tb) + v(r0+1, g0, b0+1)*tb
		c11 := v(r0+1, g0+1, b0)*(1-tb) + v(r0+1, g0+1, b0+1)*tb
		c0 := c00*(1-tg) + c01*tg
		c1 := c10*(1-tg) + c11*tg
		out[c] = c0*(1-tr) + c1*tr
	}
}

// labStats are weighted means and standard deviations in Lab.
type labStats struct {
	mean, std [3]float64
	weight    float64
}

// statsOf measures img in Lab, each pixel weighted by weight(x, y) (nil = 1),
// on a copy whose long edge is at most analysisEdge.
func statsOf(img *image.NRGBA, weight *plane) labStats {
	small := picture.FitLong(img, analysisEdge/2)
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	var wp *plane
	if weight != nil {
		wp = weight.resized(sw, sh)
	}
	var s, ss [3]float64
	var n float64
	for y := range sh {
		for x := range sw {
			wt := 1.0
			if wp != nil {
				wt = float64(wp.p[y*sw+x])
			}
			if wt <= 0.01 {
				continue
			}
			i := y*small.Stride + x*4
			l, a, b := picture.ToLab(float64(small.Pix[i]), float64(small.Pix[i+1]), float64(small.Pix[i+2]))
			for c, v := range [3]float64{l, a, b} {
				s[c] += wt * v
				ss[c] += wt * v * v
			}
			n += wt
		}
	}
	var st labStats
	st.weight = n
	if n == 0 {
		return st
	}
	for c := range 3 {
		st.mean[c] = s[c] / n
		st.std[c] = math.Sqrt(math.Max(0, ss[c]/n-st.mean[c]*st.mean[c]))
	}
	return st
}

// isSkin is a classic YCbCr skin-tone test (Cb 77..127, Cr 133..173).
func isSkin(r, g, b uint8) bool {
	fr, fg, fb := float64(r), float64(g), float64(b)
	cb := 128 - 0.168736*fr - 0.331264*fg + 0.5*fb
	cr := 128 + 0.5*fr - 0.418688*fg - 0.081312*fb
	return cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173
}

// applyLUT maps each pixel of img through l, mixed by weight (nil = fully).
func applyLUT(img *image.NRGBA, l *lut3, weight *plane) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	picture.Parallel(h, func(y0, y1 int) {
		var out [3]float64
		for y := y0; y < y1; y++ {
			for x := range w {
				t := 1.0
				if weight != nil {
					t = float64(weight.p[y*w+x])
					if t <= 0.002 {
						continue
					}
				}
				i := y*img.Stride + x*4
				l.at(img.Pix[i], img.Pix[i+1], img.Pix[i+2], &out)
				for c := range 3 {
					v := float64(img.Pix[i+c])
					img.Pix[i+c] = picture.Clamp8(v + (out[c]-v)*t)
				}
			}
		}
	})
}
