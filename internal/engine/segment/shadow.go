package segment

// Cast shadows: a product on a table or a garment laid on the floor darkens
// the ground beside it, and a colour model takes that darker ground for part
// of the subject (it is unlike the lit ground). dropShadows gives back to the
// ground the subject pixels next to the outline that look like the ground
// behind them in shadow, or like a bit of that lit ground the cut took
// along: the same chromaticity, 35% to 105% of its lightness,
// and the ground's texture still showing through (a shadow on gravel is
// gravel; a grey tripod leg on grass is smooth).

// shadowDepth is how far into the subject, as a share of the working long
// edge, a shadow is looked for; maxShadow is the largest share of the
// subject that may be given back (more, and the "shadow" is a dark subject
// of the ground's hue, which is kept).
const (
	shadowDepth = 0.08
	maxShadow   = 0.25
)

// dropShadows removes shadow-like pixels connected to the outline from fg,
// and reports how many it removed.
func dropShadows(work *raster, fg []bool) int {
	w, h := work.w, work.h
	if greyscale(work) {
		return 0 // chromaticity cannot tell a shadow from a grey subject
	}
	ground := fillGround(work, fg)
	grad := gradient(work)
	texture := fillPlane(grad, fg, w, h)
	shadowy := func(i int) bool {
		p, g := work.pix[i], ground[i]
		lp := float64(p[0]) + float64(p[1]) + float64(p[2])
		lg := float64(g[0]) + float64(g[1]) + float64(g[2])
		if lg < 60 || lp < 1 {
			return false
		}
		r := lp / lg
		if r < 0.35 || r > 1.05 {
			return false
		}
		if float64(grad[i]) < 0.5*r*float64(texture[i])-3 {
			return false
		}
		for c := range 3 {
			d := float64(p[c])/lp - float64(g[c])/lg
			if d > 0.03 || d < -0.03 {
				return false
			}
		}
		return true
	}
	area := 0
	for _, v := range fg {
		if v {
			area++
		}
	}
	depth := make([]int32, w*h)
	var queue []int
	for i := range fg {
		if !fg[i] || !shadowy(i) {
			continue
		}
		x, y := i%w, i/w
		if (x > 0 && !fg[i-1]) || (x < w-1 && !fg[i+1]) || (y > 0 && !fg[i-w]) || (y < h-1 && !fg[i+w]) {
			depth[i] = 1
			queue = append(queue, i)
		}
	}
	limit := int32(max(2, int(shadowDepth*float64(max(w, h)))))
	for k := 0; k < len(queue); k++ {
		i := queue[k]
		if depth[i] >= limit {
			continue
		}
		x := i % w
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if j < 0 || j >= w*h || (j == i-1 && x == 0) || (j == i+1 && x == w-1) {
				continue
			}
			if fg[j] && depth[j] == 0 && shadowy(j) {
				depth[j] = depth[i] + 1
				queue = append(queue, j)
			}
		}
	}
	if len(queue) == 0 || float64(len(queue)) > maxShadow*float64(area) {
		return 0
	}
	for _, i := range queue {
		fg[i] = false
	}
	return len(queue)
}

// fillPlane is v where fg is ground (away from the subject), and inside the
// subject the ground's values around it, diffused inwards by push-pull.
func fillPlane(v []float32, fg []bool, w, h int) []float32 {
	val := make([][4]float64, w*h)
	for i := range v {
		if !fg[i] && !nearSubject(fg, w, h, i) {
			val[i] = [4]float64{float64(v[i]), 0, 0, 1}
		}
	}
	out := make([]float32, w*h)
	for i, f := range pushPull(val, w, h) {
		if f[3] > 0 {
			out[i] = float32(f[0] / f[3])
		}
	}
	return out
}

// greyscale reports whether a picture has (almost) no colour: under 1% of
// its pixels differ between channels by more than 12 levels.
func greyscale(work *raster) bool {
	n := 0
	for _, p := range work.pix {
		if max(p[0], p[1], p[2])-min(p[0], p[1], p[2]) > 12 {
			n++
		}
	}
	return n*100 < len(work.pix)
}
