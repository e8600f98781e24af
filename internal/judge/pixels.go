package judge

import (
	"image"
	"math"
)

// plane is one channel of an image as float32, row-major.
type plane struct {
	w, h int
	p    []float32
}

// lumaOf is the Rec. 601 luma of img, composited over white where it is
// transparent (a cut-out is looked at as it would be placed on a page).
func lumaOf(img *image.NRGBA) *plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	m := &plane{w: w, h: h, p: make([]float32, w*h)}
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			r, g, b, a := float32(row[4*x]), float32(row[4*x+1]), float32(row[4*x+2]), float32(row[4*x+3])/255
			l := 0.299*r + 0.587*g + 0.114*b
			m.p[y*w+x] = l*a + 255*(1-a)
		}
	}
	return m
}

// down2 halves the plane with a 2 x 2 box (an odd last row or column is
// dropped).
func (m *plane) down2() *plane {
	w, h := m.w/2, m.h/2
	out := &plane{w: w, h: h, p: make([]float32, w*h)}
	for y := range h {
		a, b := m.p[2*y*m.w:], m.p[(2*y+1)*m.w:]
		o := out.p[y*w:]
		for x := range w {
			o[x] = (a[2*x] + a[2*x+1] + b[2*x] + b[2*x+1]) / 4
		}
	}
	return out
}

// residual is the mean squared difference between m and coarse (m halved)
// brought back up bilinearly: the energy of the finest band of m, the detail
// that a plane half the size cannot hold.
func (m *plane) residual(coarse *plane) float64 {
	w, h := coarse.w*2, coarse.h*2
	// The fine pixel i's centre sits at i/2 - 0.25 in coarse pixels: its
	// two coarse neighbours and the weight of the second, per column and row.
	taps := func(n, limit int) (lo, hi []int, f []float32) {
		lo, hi, f = make([]int, n), make([]int, n), make([]float32, n)
		for i := range n {
			c := float64(i)/2 - 0.25
			i0 := int(math.Floor(c))
			f[i] = float32(c - float64(i0))
			lo[i], hi[i] = min(max(i0, 0), limit-1), min(max(i0+1, 0), limit-1)
		}
		return lo, hi, f
	}
	x0, x1, fx := taps(w, coarse.w)
	y0, y1, fy := taps(h, coarse.h)
	var sum float64
	for y := range h {
		top, bot := coarse.p[y0[y]*coarse.w:(y0[y]+1)*coarse.w], coarse.p[y1[y]*coarse.w:(y1[y]+1)*coarse.w]
		row := m.p[y*m.w : y*m.w+w]
		wy := fy[y]
		var acc float64
		for x := range row {
			a := top[x0[x]] + (top[x1[x]]-top[x0[x]])*fx[x]
			b := bot[x0[x]] + (bot[x1[x]]-bot[x0[x]])*fx[x]
			d := row[x] - (a + (b-a)*wy)
			acc += float64(d * d)
		}
		sum += acc
	}
	return sum / float64(w*h)
}

// bands are the energies of the Laplacian pyramid of m, finest first, down
// to a plane of about 32 pixels on its short side.
func bands(m *plane) []float64 {
	var out []float64
	for min(m.w, m.h) >= 64 {
		c := m.down2()
		out = append(out, m.residual(c))
		m = c
	}
	return out
}

// detail reads the pyramid's band energies: how many of the finest bands
// hold next to nothing (k, so the frame holds the detail of a frame 2^k
// times smaller) and the finest band's share of the strongest (s, 1 for a
// frame sharp at its own pixels). Energies are compared after dividing band
// i by 2^i: a step edge's energy doubles per coarser band, a natural
// texture's stays level, so a sharp frame of either kind peaks at band 0.
func detail(b []float64) (k int, s float64) {
	if len(b) == 0 {
		return 0, 1
	}
	norm := make([]float64, len(b))
	top := 0.0
	for i, v := range b {
		norm[i] = v / math.Exp2(float64(i))
		top = max(top, norm[i])
	}
	if top == 0 {
		return 0, 1 // a flat frame: nothing to be soft
	}
	for k < len(norm) && norm[k] < 0.25*top {
		k++
	}
	return k, norm[0] / top
}

// fragments is the share of a cut-out's foreground (alpha at least half)
// outside its largest 4-connected piece, read on a copy at most 512 px long.
func fragments(img *image.NRGBA) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	step := max(1, (max(w, h)+511)/512)
	gw, gh := (w+step-1)/step, (h+step-1)/step
	fg := make([]bool, gw*gh)
	total := 0
	for gy := range gh {
		for gx := range gw {
			if img.Pix[(gy*step)*img.Stride+4*(gx*step)+3] >= 128 {
				fg[gy*gw+gx] = true
				total++
			}
		}
	}
	if total == 0 {
		return 0
	}
	seen := make([]bool, len(fg))
	largest := 0
	stack := []int{}
	for i := range fg {
		if !fg[i] || seen[i] {
			continue
		}
		n := 0
		seen[i] = true
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			x, y := p%gw, p/gw
			for _, q := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if q[0] < 0 || q[1] < 0 || q[0] >= gw || q[1] >= gh {
					continue
				}
				j := q[1]*gw + q[0]
				if fg[j] && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		largest = max(largest, n)
	}
	return float64(total-largest) / float64(total)
}
