// Package segtest makes the pictures the subject separation is tested and
// measured on: garments, products and figures with known masks, composited
// on procedural grounds (wood, concrete, linen) or on real textures and
// photographs read from a folder of Debian's python3-skimage sample data,
// and the real photographs themselves. Everything is generated: the same
// bytes every run, nothing committed but this code. Tests only.
package segtest

import (
	"image"
	"image/color"
	"math"
)

// Shape is a subject's silhouette in unit coordinates (0..1 of the frame):
// inside reports whether a point belongs to it.
type Shape func(x, y float64) bool

// Polygon is the shape inside the closed polygon pts (x, y pairs), even-odd.
//
// A point outside the polygon's bounding box is answered without the edge
// loop: above, below or right of every vertex no edge counts, and left of
// every vertex each edge that straddles the row counts, an even number of
// them for a closed polygon (the same answer the loop gives; the margin
// covers the rounding of an edge's crossing). The test fixtures sample
// their shapes 16 times a pixel, and most samples fall outside.
func Polygon(pts ...float64) Shape {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i+1 < len(pts); i += 2 {
		x0, x1 = min(x0, pts[i]), max(x1, pts[i])
		y0, y1 = min(y0, pts[i+1]), max(y1, pts[i+1])
	}
	const margin = 1e-9
	x0, x1 = x0-margin, x1+margin
	return func(x, y float64) bool {
		if y < y0 || y >= y1 || x < x0 || x > x1 {
			return false
		}
		return evenOdd(pts, x, y)
	}
}

// evenOdd reports whether (x, y) is inside the closed polygon pts by the
// even-odd rule: the number of edges crossing the row to its right.
func evenOdd(pts []float64, x, y float64) bool {
	in := false
	n := len(pts) / 2
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		xi, yi, xj, yj := pts[2*i], pts[2*i+1], pts[2*j], pts[2*j+1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// Ellipse is the shape inside the ellipse centred at (cx, cy) with radii rx, ry.
func Ellipse(cx, cy, rx, ry float64) Shape {
	return func(x, y float64) bool {
		dx, dy := (x-cx)/rx, (y-cy)/ry
		return dx*dx+dy*dy <= 1
	}
}

// Union is the shape inside any of s.
func Union(s ...Shape) Shape {
	return func(x, y float64) bool {
		for _, f := range s {
			if f(x, y) {
				return true
			}
		}
		return false
	}
}

// Minus is the shape inside a and outside b.
func Minus(a, b Shape) Shape {
	return func(x, y float64) bool { return a(x, y) && !b(x, y) }
}

// The subjects, framed like their photographs: about the middle half of the
// frame, a figure full length.
var (
	TShirt = Polygon(0.36, 0.22, 0.44, 0.2, 0.5, 0.24, 0.56, 0.2, 0.64, 0.22, 0.76, 0.34, 0.7, 0.42,
		0.64, 0.37, 0.64, 0.8, 0.36, 0.8, 0.36, 0.37, 0.3, 0.42, 0.24, 0.34)
	Dress = Polygon(0.44, 0.12, 0.47, 0.12, 0.49, 0.2, 0.51, 0.2, 0.53, 0.12, 0.56, 0.12, 0.58, 0.3,
		0.56, 0.42, 0.7, 0.88, 0.3, 0.88, 0.44, 0.42, 0.42, 0.3)
	Trousers = Polygon(0.36, 0.12, 0.64, 0.12, 0.68, 0.88, 0.54, 0.88, 0.5, 0.36, 0.46, 0.88, 0.32, 0.88)
	Bottle   = Union(Polygon(0.4, 0.36, 0.6, 0.36, 0.61, 0.84, 0.39, 0.84), Polygon(0.46, 0.16, 0.54, 0.16, 0.55, 0.36, 0.45, 0.36),
		Ellipse(0.5, 0.36, 0.1, 0.06))
	Bag = Union(Polygon(0.3, 0.42, 0.7, 0.42, 0.74, 0.8, 0.26, 0.8),
		Minus(Ellipse(0.5, 0.42, 0.14, 0.2), Ellipse(0.5, 0.42, 0.1, 0.16)))
	Sneaker = Union(Polygon(0.22, 0.62, 0.3, 0.44, 0.44, 0.42, 0.52, 0.5, 0.74, 0.56, 0.8, 0.64, 0.78, 0.7, 0.22, 0.7))
	Figure  = Union(Ellipse(0.5, 0.11, 0.055, 0.065), Polygon(0.48, 0.16, 0.52, 0.16, 0.52, 0.2, 0.48, 0.2),
		Polygon(0.38, 0.2, 0.62, 0.2, 0.64, 0.5, 0.36, 0.5), Polygon(0.38, 0.21, 0.33, 0.47, 0.36, 0.48, 0.4, 0.3),
		Polygon(0.62, 0.21, 0.67, 0.47, 0.64, 0.48, 0.6, 0.3), Polygon(0.37, 0.5, 0.49, 0.5, 0.48, 0.95, 0.4, 0.95),
		Polygon(0.51, 0.5, 0.63, 0.5, 0.6, 0.95, 0.52, 0.95))
	// HalfFigure is a figure cut at the thighs by the bottom of the frame.
	HalfFigure = Union(Ellipse(0.5, 0.2, 0.09, 0.11), Polygon(0.47, 0.28, 0.53, 0.28, 0.53, 0.34, 0.47, 0.34),
		Polygon(0.3, 0.33, 0.7, 0.33, 0.72, 0.8, 0.28, 0.8), Polygon(0.3, 0.34, 0.22, 0.78, 0.27, 0.8, 0.33, 0.5),
		Polygon(0.7, 0.34, 0.78, 0.78, 0.73, 0.8, 0.67, 0.5), Polygon(0.29, 0.8, 0.71, 0.8, 0.7, 1.01, 0.3, 1.01))
)

// Coverage rasterises s at w x h with 4 x 4 samples a pixel: 0..1 per pixel.
func Coverage(s Shape, w, h int) []float32 {
	out := make([]float32, w*h)
	for y := range h {
		for x := range w {
			n := 0
			for sy := range 4 {
				for sx := range 4 {
					if s((float64(x)+(float64(sx)+0.5)/4)/float64(w), (float64(y)+(float64(sy)+0.5)/4)/float64(h)) {
						n++
					}
				}
			}
			out[y*w+x] = float32(n) / 16
		}
	}
	return out
}

// Mask is the binary ground truth of a coverage: at least half covered.
func Mask(cov []float32) []bool {
	m := make([]bool, len(cov))
	for i, v := range cov {
		m[i] = v >= 0.5
	}
	return m
}

// Texture is a colour at each pixel of a w x h frame.
type Texture func(x, y int) [3]float64

// Fill paints the subject: base colour, a texture's relief (amp of its
// luminance around mid grey), and soft folds (shading along x and y).
func Fill(base color.NRGBA, relief Texture, amp float64, w, h int) Texture {
	return func(x, y int) [3]float64 {
		k := 1.0
		if relief != nil {
			t := relief(x, y)
			k += amp * ((t[0]+t[1]+t[2])/3 - 128) / 128
		}
		u, v := float64(x)/float64(w), float64(y)/float64(h)
		k *= 0.92 + 0.08*math.Sin(u*31+2*math.Sin(v*9)) - 0.1*math.Abs(u-0.5)
		return [3]float64{float64(base.R) * k, float64(base.G) * k, float64(base.B) * k}
	}
}

// Composite lays the subject (coverage cov, painted by fill) on ground, with
// a soft shadow cast down and right of it, and sensor noise; it returns the
// picture. seed varies the noise.
func Composite(ground, fill Texture, cov []float32, w, h int, shadow float64, seed uint32) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	sh := shadowOf(cov, w, h)
	for y := range h {
		for x := range w {
			i := y*w + x
			g := ground(x, y)
			k := 1 - shadow*float64(sh[i])
			a := float64(cov[i])
			var f [3]float64
			if a > 0 {
				f = fill(x, y)
			}
			n := 3 * (noise(x, y, seed) - 0.5)
			p := img.Pix[y*img.Stride+x*4:]
			for c := range 3 {
				p[c] = clamp8(a*f[c] + (1-a)*g[c]*k + n)
			}
			p[3] = 255
		}
	}
	return img
}

// shadowOf is the subject's coverage moved down and right by 1.5% of the
// frame and blurred: where its shadow falls on the ground.
func shadowOf(cov []float32, w, h int) []float32 {
	dx, dy := w*15/1000, h*15/1000
	out := make([]float32, w*h)
	for y := range h {
		for x := range w {
			if sx, sy := x-dx, y-dy; sx >= 0 && sy >= 0 {
				out[y*w+x] = cov[sy*w+sx]
			}
		}
	}
	return blur(out, w, h, max(1, w/80))
}

func blur(p []float32, w, h, r int) []float32 {
	tmp := make([]float32, w*h)
	out := make([]float32, w*h)
	for pass := range 2 {
		src, dst := p, tmp
		if pass == 1 {
			src, dst = tmp, out
		}
		for y := range h {
			for x := range w {
				var s float32
				n := 0
				for k := -r; k <= r; k++ {
					xx, yy := x, y
					if pass == 0 {
						xx += k
					} else {
						yy += k
					}
					if xx >= 0 && yy >= 0 && xx < w && yy < h {
						s += src[yy*w+xx]
						n++
					}
				}
				dst[y*w+x] = s / float32(n)
			}
		}
	}
	return out
}

// noise is a deterministic hash of (x, y, seed) in [0, 1).
func noise(x, y int, seed uint32) float64 {
	h := uint32(x)*374761393 + uint32(y)*668265263 + seed*2246822519
	h = (h ^ (h >> 13)) * 1274126177
	h ^= h >> 16
	return float64(h&0xffffff) / float64(1<<24)
}

// valueNoise is smooth noise: the hash on a lattice of the given cell size,
// interpolated with a smoothstep.
func valueNoise(x, y float64, cell float64, seed uint32) float64 {
	fx, fy := x/cell, y/cell
	x0, y0 := math.Floor(fx), math.Floor(fy)
	tx, ty := fx-x0, fy-y0
	tx, ty = tx*tx*(3-2*tx), ty*ty*(3-2*ty)
	ix, iy := int(x0), int(y0)
	a := noise(ix, iy, seed)*(1-tx) + noise(ix+1, iy, seed)*tx
	b := noise(ix, iy+1, seed)*(1-tx) + noise(ix+1, iy+1, seed)*tx
	return a*(1-ty) + b*ty
}

// fbm is four octaves of value noise, in [0, 1).
func fbm(x, y, cell float64, seed uint32) float64 {
	s, amp, tot := 0.0, 1.0, 0.0
	for o := range 4 {
		s += amp * valueNoise(x, y, cell, seed+uint32(o))
		tot += amp
		amp /= 2
		cell /= 2
	}
	return s / tot
}

// Wood is a table top: warm brown planks with grain and knots.
func Wood(w, h int) Texture {
	return func(x, y int) [3]float64 {
		fx, fy := float64(x), float64(y)
		plank := math.Floor(fy / (float64(h) / 5))
		grain := math.Sin(fx*0.05 + 6*fbm(fx, fy, float64(w)/6, 7+uint32(plank)))
		k := 0.85 + 0.1*grain + 0.1*(fbm(fx, fy, 12, 3)-0.5) - 0.05*math.Mod(plank, 2)
		if int(fy)%(h/5) < 2 {
			k *= 0.6 // the joint between planks
		}
		return [3]float64{150 * k, 100 * k, 62 * k}
	}
}

// Concrete is a grey floor: blotchy low-frequency tone and fine grit.
func Concrete(w, h int) Texture {
	return func(x, y int) [3]float64 {
		fx, fy := float64(x), float64(y)
		k := 0.8 + 0.25*(fbm(fx, fy, float64(w)/4, 11)-0.5) + 0.12*(noise(x, y, 5)-0.5)
		return [3]float64{170 * k, 168 * k, 162 * k}
	}
}

// Linen is a woven cloth backdrop: a fine weave and slubs.
func Linen(w, h int) Texture {
	return func(x, y int) [3]float64 {
		fx, fy := float64(x), float64(y)
		weave := 0.04 * math.Sin(fx*1.3) * math.Sin(fy*1.3)
		slub := 0.06 * (fbm(fx, fy*0.2, 30, 21) - 0.5)
		k := 0.95 + weave + slub + 0.05*(noise(x, y, 9)-0.5)
		return [3]float64{222 * k, 212 * k, 192 * k}
	}
}

// Clutter is a busy scene with no subject: many overlapping shapes of many
// colours, like a shop shelf.
func Clutter(w, h int) Texture {
	return func(x, y int) [3]float64 {
		fx, fy := float64(x), float64(y)
		var c [3]float64
		cell := float64(min(w, h)) / 9
		for layer := range 3 {
			cx, cy := math.Floor(fx/cell+0.37*float64(layer)), math.Floor(fy/cell+0.61*float64(layer))
			n := noise(int(cx), int(cy), uint32(40+layer))
			if n < 0.45 && layer > 0 {
				continue
			}
			c = [3]float64{255 * noise(int(cx), int(cy), uint32(50+layer)), 255 * noise(int(cx), int(cy), uint32(60+layer)), 255 * noise(int(cx), int(cy), uint32(70+layer))}
		}
		k := 0.85 + 0.3*(fbm(fx, fy, cell/2, 3)-0.5)
		return [3]float64{c[0] * k, c[1] * k, c[2] * k}
	}
}

// Plain is a studio sweep: light grey falling off towards the floor.
func Plain(w, h int) Texture {
	return func(x, y int) [3]float64 {
		g := 240 - 14*float64(y)/float64(h)
		return [3]float64{g, g - 1, g - 4}
	}
}

// FromImage reads a texture from img, scaled to cover w x h, tinted: a
// grey image takes the tint's colour at its own lightness.
func FromImage(img image.Image, w, h int, tint *color.NRGBA) Texture {
	b := img.Bounds()
	s := math.Max(float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()))
	ox := (float64(b.Dx())*s - float64(w)) / 2
	oy := (float64(b.Dy())*s - float64(h)) / 2
	return func(x, y int) [3]float64 {
		sx := b.Min.X + min(b.Dx()-1, int((float64(x)+ox)/s))
		sy := b.Min.Y + min(b.Dy()-1, int((float64(y)+oy)/s))
		r, g, bb, _ := img.At(sx, sy).RGBA()
		c := [3]float64{float64(r >> 8), float64(g >> 8), float64(bb >> 8)}
		if tint != nil {
			l := (c[0] + c[1] + c[2]) / 3 / 128
			c = [3]float64{float64(tint.R) * l, float64(tint.G) * l, float64(tint.B) * l}
		}
		return c
	}
}

// IoU is the intersection over union of two masks.
func IoU(a, b []bool) float64 {
	in, un := 0, 0
	for i := range a {
		if a[i] && b[i] {
			in++
		}
		if a[i] || b[i] {
			un++
		}
	}
	if un == 0 {
		return 1
	}
	return float64(in) / float64(un)
}

func clamp8(v float64) uint8 {
	return uint8(math.Max(0, math.Min(255, math.Round(v))))
}

// Brick is a wall of grey bricks in running bond: each brick its own shade
// with a mottled face, and pale mortar joints, like a painted brick wall.
func Brick(w, h int) Texture {
	bh := float64(min(w, h)) / 14
	bw := 3.2 * bh
	return func(x, y int) [3]float64 {
		fx, fy := float64(x), float64(y)
		row := math.Floor(fy / bh)
		off := 0.0
		if int(row)%2 == 1 {
			off = bw / 2
		}
		col := math.Floor((fx + off) / bw)
		u, v := math.Mod(fx+off, bw), math.Mod(fy, bh)
		if u < 3 || v < 3 {
			g := 200 + 20*(noise(x, y, 31)-0.5)
			return [3]float64{g, g, g - 2} // mortar
		}
		shade := 0.55 + 0.5*noise(int(col), int(row), 33)
		k := shade * (0.9 + 0.2*fbm(fx, fy, bh/2, 35))
		return [3]float64{150 * k, 150 * k, 148 * k}
	}
}
