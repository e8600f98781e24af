package segment

import "image"

// LeftBehind measures what a separation left of its subject on the ground:
// alpha (img's size, row by row, 0 ground and 1 subject) is read at the
// working size, a ring of ground around the subject (up to 6% of the long
// edge away) is given, pixel by pixel, to whichever colour model explains
// it better (mixtures fitted to the subject and to the ground outside the
// ring), and the pieces of ring the subject's model wins that touch the
// subject, each at least 0.5% of the subject, are counted. It answers that
// count over the subject's area: an arm of the body's own blue that the
// cut gave to the ground is left behind; a table the subject shares no
// colour with is not. A greyscale picture is read the same way: its
// mixtures then tell only lightness apart.
func LeftBehind(img *image.NRGBA, alpha []float32, opt Options) float64 {
	w0, h0 := img.Rect.Dx(), img.Rect.Dy()
	if w0 < MinEdge || h0 < MinEdge || len(alpha) != w0*h0 {
		return 0
	}
	work := downsample(img, opt.workEdge())
	w, h := work.w, work.h
	fg := make([]bool, w*h)
	area := 0
	for y := range h {
		sy := min(h0-1, (2*y+1)*h0/(2*h))
		for x := range w {
			sx := min(w0-1, (2*x+1)*w0/(2*w))
			if alpha[sy*w0+sx] >= 0.5 {
				fg[y*w+x] = true
				area++
			}
		}
	}
	if area == 0 || area == w*h {
		return 0
	}
	reach := max(2, int(0.06*float64(max(w, h))))
	ring := near(fg, w, h, reach)
	subj := fitGMM(work.pix, func(i int) bool { return fg[i] })
	ground := fitGMM(work.pix, func(i int) bool { return !fg[i] && !ring[i] })
	if len(subj.comps) == 0 || len(ground.comps) == 0 {
		return 0
	}
	won := make([]bool, w*h)
	for i, in := range ring {
		if in {
			c := work.pix[i]
			won[i] = subj.logLik(c) > ground.logLik(c)+1
		}
	}
	label, sizes := Components(won, w, h)
	touching := make([]bool, len(sizes))
	for i, l := range label {
		if l == 0 {
			continue
		}
		x := i % w
		if (x > 0 && fg[i-1]) || (x < w-1 && fg[i+1]) || (i >= w && fg[i-w]) || (i+w < w*h && fg[i+w]) {
			touching[l-1] = true
		}
	}
	left, least := 0, max(4, area/200)
	for k, n := range sizes {
		if touching[k] && n >= least {
			left += n
		}
	}
	return float64(left) / float64(area)
}

// near marks the pixels outside mask within reach steps of it (8-neighbour
// steps, a breadth-first walk from the subject's outline).
func near(mask []bool, w, h, reach int) []bool {
	dist := make([]int32, w*h)
	queue := make([]int32, 0, w+h)
	for i, in := range mask {
		if in {
			dist[i] = 0
			queue = append(queue, int32(i))
		} else {
			dist[i] = -1
		}
	}
	out := make([]bool, w*h)
	for len(queue) > 0 {
		i := int(queue[0])
		queue = queue[1:]
		if int(dist[i]) >= reach {
			continue
		}
		x, y := i%w, i/w
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				nx, ny := x+dx, y+dy
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				j := ny*w + nx
				if dist[j] < 0 {
					dist[j] = dist[i] + 1
					out[j] = true
					queue = append(queue, int32(j))
				}
			}
		}
	}
	return out
}
