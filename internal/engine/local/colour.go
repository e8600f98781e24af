package local

import (
	"image"
	"math"
)

// srgbLinear maps an 8-bit sRGB value to linear light.
var srgbLinear = func() (t [256]float64) {
	for i := range t {
		v := float64(i) / 255
		if v <= 0.04045 {
			t[i] = v / 12.92
		} else {
			t[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return t
}()

// D65 white point.
const (
	whiteX = 0.95047
	whiteY = 1.0
	whiteZ = 1.08883
)

// toLab converts sRGB (0..255, fractional allowed) to CIE L*a*b* (D65).
func toLab(r, g, b float64) (float64, float64, float64) {
	lr, lg, lb := linearOf(r), linearOf(g), linearOf(b)
	x := (0.4124564*lr + 0.3575761*lg + 0.1804375*lb) / whiteX
	y := (0.2126729*lr + 0.7151522*lg + 0.0721750*lb) / whiteY
	z := (0.0193339*lr + 0.1191920*lg + 0.9503041*lb) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

func linearOf(v float64) float64 {
	if v == math.Trunc(v) && v >= 0 && v <= 255 {
		return srgbLinear[int(v)]
	}
	v = math.Max(0, math.Min(255, v)) / 255
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func labF(t float64) float64 {
	if t > 216.0/24389 {
		return math.Cbrt(t)
	}
	return (24389.0/27*t + 16) / 116
}

func labFInv(t float64) float64 {
	if t3 := t * t * t; t3 > 216.0/24389 {
		return t3
	}
	return (116*t - 16) / (24389.0 / 27)
}

// fromLab converts CIE L*a*b* (D65) to sRGB, 0..255, clamped.
func fromLab(l, a, b float64) (float64, float64, float64) {
	fy := (l + 16) / 116
	fx := fy + a/500
	fz := fy - b/200
	x, y, z := labFInv(fx)*whiteX, labFInv(fy)*whiteY, labFInv(fz)*whiteZ
	lr := 3.2404542*x - 1.5371385*y - 0.4985314*z
	lg := -0.9692660*x + 1.8760108*y + 0.0415560*z
	lb := 0.0556434*x - 0.2040259*y + 1.0572252*z
	return gammaOf(lr), gammaOf(lg), gammaOf(lb)
}

func gammaOf(v float64) float64 {
	v = math.Max(0, math.Min(1, v))
	if v <= 0.0031308 {
		return 255 * 12.92 * v
	}
	return 255 * (1.055*math.Pow(v, 1/2.4) - 0.055)
}

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
	parallel(n, func(r0, r1 int) {
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
	small := fitLong(img, analysisEdge/2)
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
			l, a, b := toLab(float64(small.Pix[i]), float64(small.Pix[i+1]), float64(small.Pix[i+2]))
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
	parallel(h, func(y0, y1 int) {
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
					img.Pix[i+c] = clamp8(v + (out[c]-v)*t)
				}
			}
		}
	})
}
