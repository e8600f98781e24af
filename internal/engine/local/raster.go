package local

import (
	"image"
	"math"

	"studio/internal/picture"
)

// plane is a single float32 channel (a matte, a weight map, a depth map).
type plane struct {
	w, h int
	p    []float32
}

func newPlane(w, h int) *plane { return &plane{w: w, h: h, p: make([]float32, w*h)} }

// resized returns m resampled bilinearly to w x h (pixel centres aligned).
func (m *plane) resized(w, h int) *plane {
	if w == m.w && h == m.h {
		return m.clone()
	}
	out := newPlane(w, h)
	x0s, x1s, fxs := taps(w, m.w)
	y0s, y1s, fys := taps(h, m.h)
	picture.Parallel(h, func(ylo, yhi int) {
		for y := ylo; y < yhi; y++ {
			r0 := m.p[y0s[y]*m.w : (y0s[y]+1)*m.w]
			r1 := m.p[y1s[y]*m.w : (y1s[y]+1)*m.w]
			fy := fys[y]
			row := out.p[y*w : (y+1)*w]
			for x := range row {
				a := r0[x0s[x]] + (r0[x1s[x]]-r0[x0s[x]])*fxs[x]
				b := r1[x0s[x]] + (r1[x1s[x]]-r1[x0s[x]])*fxs[x]
				row[x] = a + (b-a)*fy
			}
		}
	})
	return out
}

// taps are, for each of n output samples over a source of size src, the two
// source indices and the weight of the second, with pixel centres aligned.
func taps(n, src int) (i0, i1 []int, f []float32) {
	i0, i1, f = make([]int, n), make([]int, n), make([]float32, n)
	s := float64(src) / float64(n)
	for i := range n {
		v := math.Max(0, math.Min(float64(src-1), (float64(i)+0.5)*s-0.5))
		i0[i] = int(v)
		i1[i] = min(i0[i]+1, src-1)
		f[i] = float32(v - float64(i0[i]))
	}
	return i0, i1, f
}

func (m *plane) clone() *plane {
	c := newPlane(m.w, m.h)
	copy(c.p, m.p)
	return c
}

// boxBlur is a separable box filter of radius r (window 2r+1), O(w*h) for any r.
func (m *plane) boxBlur(r int) *plane {
	if r <= 0 {
		return m.clone()
	}
	tmp := newPlane(m.w, m.h)
	picture.Parallel(m.h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			boxLine(m.p[y*m.w:(y+1)*m.w], tmp.p[y*m.w:(y+1)*m.w], r)
		}
	})
	out := newPlane(m.w, m.h)
	// The vertical pass keeps a running sum per column and walks rows in
	// order, so memory is read row by row.
	picture.Parallel(m.w, func(x0, x1 int) {
		sum := make([]float64, x1-x0)
		lo, hi := 0, -1
		for y := 0; y < m.h; y++ {
			for hi < min(m.h-1, y+r) {
				hi++
				row := tmp.p[hi*m.w+x0 : hi*m.w+x1]
				for i, v := range row {
					sum[i] += float64(v)
				}
			}
			for lo < y-r {
				row := tmp.p[lo*m.w+x0 : lo*m.w+x1]
				for i, v := range row {
					sum[i] -= float64(v)
				}
				lo++
			}
			inv := 1 / float64(hi-lo+1)
			dst := out.p[y*m.w+x0 : y*m.w+x1]
			for i := range dst {
				dst[i] = float32(sum[i] * inv)
			}
		}
	})
	return out
}

// boxLine averages src over a window of radius r into dst, with the window
// clipped at the ends (so edges are not darkened).
func boxLine(src, dst []float32, r int) {
	n := len(src)
	var sum float64
	lo, hi := 0, -1 // the window [lo, hi]
	for i := range n {
		for hi < min(n-1, i+r) {
			hi++
			sum += float64(src[hi])
		}
		for lo < i-r {
			sum -= float64(src[lo])
			lo++
		}
		dst[i] = float32(sum / float64(hi-lo+1))
	}
}

// gaussBlur approximates a Gaussian of the given sigma with three box passes.
func (m *plane) gaussBlur(sigma float64) *plane {
	if sigma < 0.5 {
		return m.clone()
	}
	// Three boxes of width 2r+1 have the variance of a Gaussian of sigma
	// when (2r+1)^2 = 4*sigma^2 + 1.
	r := max(1, int(math.Round((math.Sqrt(4*sigma*sigma+1)-1)/2)))
	return m.boxBlur(r).boxBlur(r).boxBlur(r)
}

// bounds is the bounding box of the pixels of m above t; empty when none.
func (m *plane) bounds(t float32) image.Rectangle {
	x0, y0, x1, y1 := m.w, m.h, -1, -1
	for y := 0; y < m.h; y++ {
		row := m.p[y*m.w : (y+1)*m.w]
		for x, v := range row {
			if v > t {
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return image.Rectangle{}
	}
	return image.Rect(x0, y0, x1+1, y1+1)
}

// mean is the average value of m.
func (m *plane) mean() float64 {
	var s float64
	for _, v := range m.p {
		s += float64(v)
	}
	return s / float64(len(m.p))
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// sampleRGBA reads img bilinearly at (x, y), clamped at the edges, into rgba (0..255).
func sampleRGBA(img *image.NRGBA, x, y float64, out *[4]float64) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x = math.Max(0, math.Min(float64(w-1), x))
	y = math.Max(0, math.Min(float64(h-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	i00 := y0*img.Stride + x0*4
	i10 := y0*img.Stride + x1*4
	i01 := y1*img.Stride + x0*4
	i11 := y1*img.Stride + x1*4
	p := img.Pix
	for c := range 4 {
		a := float64(p[i00+c])*(1-fx) + float64(p[i10+c])*fx
		b := float64(p[i01+c])*(1-fx) + float64(p[i11+c])*fx
		out[c] = a*(1-fy) + b*fy
	}
}

// luma is the Rec. 601 luma of an 8-bit RGB triple, 0..255.
func luma(r, g, b uint8) float64 {
	return 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)
}

// hash01 is a deterministic pseudo-random value in [-0.5, 0.5) for (x, y, c).
func hash01(x, y, c int) float64 {
	h := uint32(x)*0x8da6b343 ^ uint32(y)*0xd8163841 ^ uint32(c)*0xcb1ab31f
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	h *= 0x297a2d39
	h ^= h >> 15
	return float64(h)/4294967296.0 - 0.5
}
