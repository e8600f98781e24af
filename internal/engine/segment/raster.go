package segment

import (
	"image"
	"runtime"
	"sync"
)

// raster is a working copy of an image: RGB in 0..255 as float32, row by row.
type raster struct {
	w, h int
	pix  [][3]float32
}

// downsample averages img over boxes to fit its long edge within edge (an
// image already small enough keeps its size). Transparent pixels are seen
// on white, as the engine flattens them.
func downsample(img *image.NRGBA, edge int) *raster {
	sw, sh := img.Rect.Dx(), img.Rect.Dy()
	w, h := fitLong(sw, sh, edge)
	r := &raster{w: w, h: h, pix: make([][3]float32, w*h)}
	parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			sy0, sy1 := y*sh/h, max(y*sh/h+1, (y+1)*sh/h)
			for x := range w {
				sx0, sx1 := x*sw/w, max(x*sw/w+1, (x+1)*sw/w)
				var acc [3]float64
				n := 0.0
				for sy := sy0; sy < sy1; sy++ {
					row := img.Pix[sy*img.Stride:]
					for sx := sx0; sx < sx1; sx++ {
						p := row[sx*4 : sx*4+4]
						a := float64(p[3]) / 255
						for c := range 3 {
							acc[c] += a*float64(p[c]) + (1-a)*255
						}
						n++
					}
				}
				r.pix[y*w+x] = [3]float32{float32(acc[0] / n), float32(acc[1] / n), float32(acc[2] / n)}
			}
		}
	})
	return r
}

// shrink averages r over boxes to fit its long edge within edge.
func (r *raster) shrink(edge int) *raster {
	w, h := fitLong(r.w, r.h, edge)
	if w == r.w && h == r.h {
		return r
	}
	out := &raster{w: w, h: h, pix: make([][3]float32, w*h)}
	for y := range h {
		sy0, sy1 := y*r.h/h, max(y*r.h/h+1, (y+1)*r.h/h)
		for x := range w {
			sx0, sx1 := x*r.w/w, max(x*r.w/w+1, (x+1)*r.w/w)
			var acc [3]float64
			for sy := sy0; sy < sy1; sy++ {
				for sx := sx0; sx < sx1; sx++ {
					p := r.pix[sy*r.w+sx]
					acc[0] += float64(p[0])
					acc[1] += float64(p[1])
					acc[2] += float64(p[2])
				}
			}
			n := float64((sy1 - sy0) * (sx1 - sx0))
			out.pix[y*w+x] = [3]float32{float32(acc[0] / n), float32(acc[1] / n), float32(acc[2] / n)}
		}
	}
	return out
}

// fitLong is the size of a w x h image scaled down to a long edge of at
// most edge, keeping the aspect.
func fitLong(w, h, edge int) (int, int) {
	if max(w, h) <= edge {
		return w, h
	}
	if w >= h {
		return edge, max(1, (h*edge+w/2)/w)
	}
	return max(1, (w*edge+h/2)/h), edge
}

// parallel splits [0, n) into row bands, one per CPU, and runs f on each.
func parallel(n int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/16))
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		wg.Go(func() { f(lo, min(n, lo+step)) })
	}
	wg.Wait()
}

// boxMean averages src over a (2r+1)^2 window clipped to the image, with
// running sums: O(1) per pixel whatever r.
func boxMean(src []float32, w, h, r int) []float32 {
	tmp := make([]float32, w*h)
	out := make([]float32, w*h)
	for y := range h {
		row := src[y*w : (y+1)*w]
		var s float64
		for x := 0; x <= min(r, w-1); x++ {
			s += float64(row[x])
		}
		for x := range w {
			lo, hi := max(0, x-r), min(w-1, x+r)
			tmp[y*w+x] = float32(s / float64(hi-lo+1))
			if x+r+1 < w {
				s += float64(row[x+r+1])
			}
			if x-r >= 0 {
				s -= float64(row[x-r])
			}
		}
	}
	for x := range w {
		var s float64
		for y := 0; y <= min(r, h-1); y++ {
			s += float64(tmp[y*w+x])
		}
		for y := range h {
			lo, hi := max(0, y-r), min(h-1, y+r)
			out[y*w+x] = float32(s / float64(hi-lo+1))
			if y+r+1 < h {
				s += float64(tmp[(y+r+1)*w+x])
			}
			if y-r >= 0 {
				s -= float64(tmp[(y-r)*w+x])
			}
		}
	}
	return out
}

// Components labels the 8-connected parts of mask (1-based; 0 outside) and
// returns their sizes (sizes[l-1] for label l).
func Components(mask []bool, w, h int) ([]int32, []int) {
	label := make([]int32, w*h)
	var sizes []int
	stack := make([]int, 0, 256)
	for s := range mask {
		if !mask[s] || label[s] != 0 {
			continue
		}
		id := int32(len(sizes) + 1)
		label[s] = id
		size := 0
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			x, y := i%w, i/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					if j := ny*w + nx; mask[j] && label[j] == 0 {
						label[j] = id
						stack = append(stack, j)
					}
				}
			}
		}
		sizes = append(sizes, size)
	}
	return label, sizes
}

// holes labels the 4-connected parts of the background (!mask) that do not
// reach the image border, and returns their sizes like Components.
func holes(mask []bool, w, h int) ([]int32, []int) {
	label := make([]int32, w*h)
	var sizes []int
	stack := make([]int, 0, 256)
	for s := range mask {
		if mask[s] || label[s] != 0 {
			continue
		}
		id := int32(len(sizes) + 1)
		label[s] = id
		size, open := 0, false
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			x, y := i%w, i/w
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				open = true
			}
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				if j < 0 || j >= w*h || (j == i-1 && x == 0) || (j == i+1 && x == w-1) {
					continue
				}
				if !mask[j] && label[j] == 0 {
					label[j] = id
					stack = append(stack, j)
				}
			}
		}
		if open {
			size = -1 // reaches the border: not a hole
		}
		sizes = append(sizes, size)
	}
	return label, sizes
}
