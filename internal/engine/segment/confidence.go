package segment

import (
	"fmt"
	"image"
	"math"
	"slices"
)

// Confidence measures how cleanly a mask separates a subject from its
// ground. Each measure has a margin from 0 (a failed separation) to 1 (a
// clean one) between two bounds; Score is the weakest margin and Problem
// names it.
type Confidence struct {
	Score       float64 // 0..1, the weakest margin; Confident at Threshold and above
	Coverage    float64 // share of the frame that is subject
	Largest     float64 // share of the subject in its largest part
	Parts       int     // parts of at least a fifth of the largest
	Debris      float64 // share of the subject in smaller parts
	Compactness float64 // boundary length over a disc's of the same area (1 for a disc)
	Edges       float64 // share of the boundary lying on an image edge
	Misfit      float64 // pixels whose colour fits the other side's model better, over the subject's area
	Press       float64 // largest share of a seeded side the subject presses against (runs off the frame)
	CutOff      float64 // largest share of a flat run along a seeded side that leads far inward to the subject
	Problem     string  // the weakest measure ("" when confident)

	pressBottom float64 // share of the bottom the subject presses against
}

// Threshold is the Score from which a separation is delivered.
const Threshold = 0.5

// Confident reports whether the separation is clean enough to deliver.
func (c Confidence) Confident() bool { return c.Score >= Threshold }

func (c Confidence) String() string {
	return fmt.Sprintf("score %.2f (coverage %.3f, largest %.2f, parts %d, debris %.2f, compactness %.2f, edges %.2f, misfit %.2f, press %.2f, cut off %.2f)%s",
		c.Score, c.Coverage, c.Largest, c.Parts, c.Debris, c.Compactness, c.Edges, c.Misfit, c.Press, c.CutOff, problem(c.Problem))
}

func problem(p string) string {
	if p == "" {
		return ""
	}
	return ": " + p
}

// The bounds of each margin: at bad the margin is 0, at good 1.
var bounds = []struct {
	name      string
	bad, good float64
	of        func(c *Confidence) float64
}{
	{"the subject is too small", 0.004, 0.02, func(c *Confidence) float64 { return c.Coverage }},
	{"the subject fills the frame", 0.93, 0.8, func(c *Confidence) float64 { return c.Coverage }},
	{"the subject is in pieces", 0.55, 0.85, func(c *Confidence) float64 { return c.Largest }},
	{"the subject is in many parts", 6, 3, func(c *Confidence) float64 { return float64(c.Parts) }},
	{"fragments of the ground came with the subject", 0.12, 0.03, func(c *Confidence) float64 { return c.Debris }},
	{"the outline is ragged", 7, 3.5, func(c *Confidence) float64 { return c.Compactness }},
	{"the outline does not follow the image's edges", 0.25, 0.55, func(c *Confidence) float64 { return c.Edges }},
	{"subject and ground share their colours", 0.35, 0.15, func(c *Confidence) float64 { return c.Misfit }},
	{"the subject runs off the frame", 0.4, 0.15, func(c *Confidence) float64 { return c.Press }},
	{"part of the subject was cut off at the frame's edge", cutOffBad, cutOffGood, func(c *Confidence) float64 { return c.CutOff }},
}

// The bounds of the cut-off margin: a run along a seeded side that leads
// to the subject at most at 60% of its positions is the ground's own (a
// path, a shadow), at 90% the subject's continuation.
const cutOffBad, cutOffGood = 0.9, 0.6

// onlyCutOff reports whether the cut-off margin is what keeps c from
// being confident: c would be confident without it.
func (c Confidence) onlyCutOff() bool {
	if ramp(c.CutOff, cutOffBad, cutOffGood) >= Threshold {
		return false
	}
	c.CutOff = 0
	c.score()
	return c.Confident()
}

func ramp(x, bad, good float64) float64 {
	return max(0, min(1, (x-bad)/(good-bad)))
}

func (c *Confidence) score() {
	c.Score, c.Problem = 1, ""
	for _, b := range bounds {
		if m := ramp(b.of(c), b.bad, b.good); m < c.Score {
			c.Score = m
			if m < Threshold {
				c.Problem = b.name
			}
		}
	}
}

// Assess measures a mask that came from elsewhere (another matting method):
// alpha has img's size, row by row, 0 ground and 1 subject.
func Assess(img *image.NRGBA, alpha []float32, opt Options) Confidence {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w < MinEdge || h < MinEdge || len(alpha) != w*h {
		return Confidence{Problem: "the image is too small"}
	}
	work := downsample(img, opt.workEdge())
	ww, wh := work.w, work.h
	fg := make([]bool, ww*wh)
	for y := range wh {
		sy := min(h-1, (2*y+1)*h/(2*wh))
		for x := range ww {
			sx := min(w-1, (2*x+1)*w/(2*ww))
			fg[y*ww+x] = alpha[sy*w+sx] >= 0.5
		}
	}
	return measure(work, fg, frame{band: max(2, int(math.Round(0.025*float64(min(ww, wh)))))})
}

// measure computes the confidence of the subject mask fg on work, cut
// within frame f. The image border is never part of the outline.
func measure(work *raster, fg []bool, f frame) Confidence {
	w, h := work.w, work.h
	var c Confidence
	area := 0
	for _, v := range fg {
		if v {
			area++
		}
	}
	c.Coverage = float64(area) / float64(w*h)
	if area == 0 {
		c.Problem = "nothing was separated"
		return c
	}
	_, sizes := Components(fg, w, h)
	largest := slices.Max(sizes)
	c.Largest = float64(largest) / float64(area)
	debris := 0
	for _, n := range sizes {
		if n*5 >= largest {
			c.Parts++
		} else {
			debris += n
		}
	}
	c.Debris = float64(debris) / float64(area)

	// The outline: subject pixels with a ground pixel beside them.
	grad := gradient(work)
	var along []float32
	for y := range h {
		for x := range w {
			i := y*w + x
			if !fg[i] {
				continue
			}
			edge := false
			g := grad[i]
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				if (j == i-1 && x == 0) || (j == i+1 && x == w-1) || j < 0 || j >= w*h {
					continue
				}
				if !fg[j] {
					edge = true
					g = max(g, grad[j])
				}
			}
			if edge {
				along = append(along, g)
			}
		}
	}
	c.Compactness = float64(len(along)) / (2 * math.Sqrt(math.Pi*float64(area)))
	// An edge is a gradient above most of the frame's own texture: the
	// larger of a fixed floor and the gradient's upper quartile.
	all := slices.Clone(grad)
	slices.Sort(all)
	tau := max(12, all[len(all)*3/4])
	on := 0
	for _, g := range along {
		if g >= tau {
			on++
		}
	}
	if len(along) > 0 {
		c.Edges = float64(on) / float64(len(along))
	} else {
		c.Edges = 1 // no outline inside the frame
	}
	c.Misfit = misfit(work, fg, area)
	c.Press, c.pressBottom = press(fg, w, h, f)
	if !f.open {
		// Only a closed frame seeds the bottom, where a subject runs on.
		c.CutOff, _ = cutOff(work, fg, f)
	}
	c.score()
	return c
}

// gradient is the colour gradient magnitude of work (Sobel on each
// channel, summed in quadrature), on a lightly smoothed copy.
func gradient(work *raster) []float32 {
	w, h := work.w, work.h
	out := make([]float32, w*h)
	at := func(x, y int) [3]float32 {
		x = max(0, min(w-1, x))
		y = max(0, min(h-1, y))
		return work.pix[y*w+x]
	}
	for y := range h {
		for x := range w {
			var s float64
			for c := range 3 {
				gx := float64(at(x+1, y-1)[c]+2*at(x+1, y)[c]+at(x+1, y+1)[c]) - float64(at(x-1, y-1)[c]+2*at(x-1, y)[c]+at(x-1, y+1)[c])
				gy := float64(at(x-1, y+1)[c]+2*at(x, y+1)[c]+at(x+1, y+1)[c]) - float64(at(x-1, y-1)[c]+2*at(x, y-1)[c]+at(x+1, y-1)[c])
				s += gx*gx + gy*gy
			}
			out[y*w+x] = float32(math.Sqrt(s) / 4)
		}
	}
	return out
}

// press measures how much of each seeded side of the frame the subject
// touches: the share of subject pixels on the line just inside the seed
// band. A subject that runs off the frame presses against it. It returns
// the largest share over the seeded sides and the bottom's share.
func press(fg []bool, w, h int, f frame) (float64, float64) {
	b := f.band
	if w <= 2*b+2 || h <= 2*b+2 {
		return 0, 0
	}
	share := func(n, total int) float64 { return float64(n) / float64(max(1, total)) }
	count := func(x0, y0, dx, dy, n int) int {
		c := 0
		for k := range n {
			if fg[(y0+k*dy)*w+x0+k*dx] {
				c++
			}
		}
		return c
	}
	top := share(count(b, b, 1, 0, w-2*b), w-2*b)
	bottom := share(count(b, h-1-b, 1, 0, w-2*b), w-2*b)
	side := h - 2*b
	if f.open {
		side = max(1, int(openFrom*float64(h))-b)
	}
	left := share(count(b, b, 0, 1, side), side)
	right := share(count(w-1-b, b, 0, 1, side), side)
	worst := max(top, left, right)
	if !f.open {
		worst = max(worst, bottom)
	}
	return worst, bottom
}

// misfit fits a colour model to each side of the mask and counts the
// pixels labelled against their colour (a subject pixel likelier ground, or
// a ground pixel likelier subject), over the subject's area. A clean
// separation has few: the outline was drawn by colour, not by smoothing
// over colours the two sides share.
func misfit(work *raster, fg []bool, area int) float64 {
	pix := work.pix
	isFG := func(i int) bool { return fg[i] }
	isBG := func(i int) bool { return !fg[i] }
	f, b := fitGMM(pix, isFG), fitGMM(pix, isBG)
	f, b = f.refit(pix, isFG), b.refit(pix, isBG)
	n := 0
	for i, c := range pix {
		if d := f.logLik(c) - b.logLik(c); (d < 0) == fg[i] && d != 0 {
			n++
		}
	}
	return float64(n) / float64(area)
}

// cutOff looks for a part of the subject the seeds cut off: a run of one
// flat colour along a seeded side (8% to 60% of it, a colour found on at
// most 15% of the rest of the seeded sides) that, walked inward
// through ground of that colour, leads to the subject, at least half of
// the way over a tenth of the frame or more: the subject runs on to the
// frame's edge in another colour (trousers below a top, cut off by the
// frame) and the seeds made that part ground. It returns the largest share
// of such a run's positions that lead to the subject, and the ground the
// walks of that run crossed.
func cutOff(work *raster, fg []bool, f frame) (float64, []bool) {
	w, h := work.w, work.h
	b := f.band
	if w <= 2*b+2 || h <= 2*b+2 {
		return 0, nil
	}
	type side struct{ x0, y0, dx, dy, ix, iy, n, depth int }
	sides := []side{{b, b, 1, 0, 0, 1, w - 2*b, h}}
	n := h - 2*b
	if f.open {
		n = max(1, int(openFrom*float64(h))-b)
	} else {
		sides = append(sides, side{b, h - 1 - b, 1, 0, 0, -1, w - 2*b, h})
	}
	sides = append(sides, side{b, b, 0, 1, 1, 0, n, w}, side{w - 1 - b, b, 0, 1, -1, 0, n, w})
	// The colours along all the seeded sides: a run whose colour is common
	// there is the ground's own (a plank, a plain backdrop).
	var line [][3]float32
	for _, s := range sides {
		for k := range s.n {
			line = append(line, work.pix[(s.y0+k*s.dy)*w+s.x0+k*s.dx])
		}
	}
	worst := 0.0
	var worstPath []int
	for _, s := range sides {
		at := func(k int) (int, int) { return s.x0 + k*s.dx, s.y0 + k*s.dy }
		for k := 0; k < s.n; {
			// The run: neighbours alike, all near the run's mean.
			x, y := at(k)
			mean := work.pix[y*w+x]
			e := k + 1
			for ; e < s.n; e++ {
				ex, ey := at(e)
				c := work.pix[ey*w+ex]
				px, py := at(e - 1)
				if sqDist(c, work.pix[py*w+px]) > 12*12 || sqDist(c, mean) > 20*20 {
					break
				}
				for j := range 3 {
					mean[j] += (c[j] - mean[j]) / float32(e-k+1)
				}
			}
			run := e - k
			if run*100 >= 8*s.n && run*100 <= 60*s.n && rare(line, mean, run) {
				reach, far := 0, 0
				var path []int
				for j := k; j < e; j++ {
					x, y := at(j)
					d := 0
					for x >= 0 && y >= 0 && x < w && y < h && !fg[y*w+x] && sqDist(work.pix[y*w+x], mean) <= 24*24 {
						path = append(path, y*w+x)
						x, y = x+s.ix, y+s.iy
						d++
					}
					// The walk ends on the subject, or next to it (past a
					// blended edge pixel or two).
					for range 3 {
						if x < 0 || y < 0 || x >= w || y >= h {
							break
						}
						if fg[y*w+x] {
							reach++
							if d*10 >= s.depth {
								far++
							}
							break
						}
						x, y = x+s.ix, y+s.iy
					}
				}
				if share := float64(reach) / float64(run); far*2 >= reach && share > worst {
					worst, worstPath = share, path
				}
			}
			k = e
		}
	}
	if worstPath == nil {
		return worst, nil
	}
	walked := make([]bool, w*h)
	for _, i := range worstPath {
		walked[i] = true
	}
	return worst, walked
}

// rare reports whether at most 15% of the line's colours other than the
// run's own (run of them) are within 24 levels of mean.
func rare(line [][3]float32, mean [3]float32, run int) bool {
	alike := 0
	for _, c := range line {
		if sqDist(c, mean) <= 24*24 {
			alike++
		}
	}
	return (alike-run)*100 <= 15*max(1, len(line)-run)
}
