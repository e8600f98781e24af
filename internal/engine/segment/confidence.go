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
	Problem     string  // the weakest measure ("" when confident)

	pressBottom float64 // share of the bottom the subject presses against
}

// Threshold is the Score from which a separation is delivered.
const Threshold = 0.5

// Confident reports whether the separation is clean enough to deliver.
func (c Confidence) Confident() bool { return c.Score >= Threshold }

func (c Confidence) String() string {
	return fmt.Sprintf("score %.2f (coverage %.3f, largest %.2f, parts %d, debris %.2f, compactness %.2f, edges %.2f, misfit %.2f, press %.2f)%s",
		c.Score, c.Coverage, c.Largest, c.Parts, c.Debris, c.Compactness, c.Edges, c.Misfit, c.Press, problem(c.Problem))
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
	_, sizes := components(fg, w, h)
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
