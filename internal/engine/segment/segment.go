package segment

import (
	"context"
	"errors"
	"image"
	"math"
	"slices"
)

// Options tune a separation. The zero value is the default.
type Options struct {
	// WorkEdge is the long edge, in pixels, of the working copy the final
	// cut and its confidence are computed on (default 512; 64 to 1024).
	WorkEdge int
	// CoarseEdge is the long edge of the smaller copy the colour models are
	// iterated on (default 256; at most WorkEdge).
	CoarseEdge int
	// Iterations is the most colour-model and cut rounds (default 5).
	Iterations int
}

func (o Options) workEdge() int {
	if o.WorkEdge <= 0 {
		return 512
	}
	return min(1024, max(64, o.WorkEdge))
}

func (o Options) coarseEdge() int {
	if o.CoarseEdge <= 0 {
		return min(256, o.workEdge())
	}
	return min(o.workEdge(), max(32, o.CoarseEdge))
}

func (o Options) iterations() int {
	if o.Iterations <= 0 {
		return 5
	}
	return min(12, o.Iterations)
}

// MinEdge is the shortest side an image needs to be separated.
const MinEdge = 16

// ErrTooSmall is returned for an image with a side under MinEdge pixels.
var ErrTooSmall = errors.New("segment: image too small")

// Cut is a subject separated from its ground at the working size. Its
// Confidence says whether the separation is clean enough to deliver; Matte
// turns it into an alpha at any size of the same picture.
type Cut struct {
	Confidence Confidence
	// OpenBottom is true when the subject was allowed to run off the
	// bottom edge (a figure cut at the knees, a portrait).
	OpenBottom bool
	// Beyond is, for a confident cut within the closed frame, the share
	// of its area that a cut with the bottom open adds to it, when that
	// cut is confident, keeps the subject and runs off the bottom: the
	// closed cut kept one part of a larger subject the frame cuts (a cup
	// whose saucer runs off the frame, the saucer given to the ground).
	// Zero otherwise.
	Beyond float64

	work *raster
	fg   []bool // the cleaned subject mask at the working size
}

// Size is the working size the cut was computed at.
func (c *Cut) Size() (int, int) { return c.work.w, c.work.h }

// Mask is the cleaned binary subject mask at the working size, row by row.
func (c *Cut) Mask() []bool { return slices.Clone(c.fg) }

// Separate finds the subject of img without being told where it is: an
// iterated colour-model graph cut (GrabCut, Rother et al. 2004). The border
// is the ground's first sample (hard background); the colours the border's
// model does not explain, inside a central ellipse, seed the subject's
// model; then each round fits a Gaussian mixture to each side and cuts the
// pixel graph (8-connected, contrast-sensitive) at its minimum. The rounds
// run on a copy opt.CoarseEdge pixels long; the final cut is made again on
// a copy opt.WorkEdge long, in a band around the coarse outline. When the
// subject presses against the bottom edge, or the cut is not confident, it
// is tried again with the bottom (and the lower sides) open, as for a
// figure cut at the knees, and the more confident answer is kept.
func Separate(ctx context.Context, img *image.NRGBA, opt Options) (*Cut, error) {
	if img.Rect.Dx() < MinEdge || img.Rect.Dy() < MinEdge {
		return nil, ErrTooSmall
	}
	work := downsample(img, opt.workEdge())
	key := work.key(opt)
	if c, ok := recent.get(key); ok {
		return c, nil
	}
	coarse := work.shrink(opt.coarseEdge())
	cs := newSolver(coarse)
	fs := cs
	if coarse != work {
		fs = newSolver(work)
	}
	try := func(open bool) (*result, error) {
		r, err := cs.run(ctx, open, opt.iterations())
		if err != nil || r.fg == nil {
			return r, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fg := fs.refine(r, coarse)
		fg = fs.pruneGround(fg, open)
		dropShadows(work, fg)
		conf := measure(work, fg, fs.frame(open))
		clean(fg, work.w, work.h)
		return &result{open: open, fg: fg, conf: conf}, nil
	}
	best, err := try(false)
	if err != nil {
		return nil, err
	}
	closed := best
	var open *result
	if best.conf.pressBottom > 0.03 || !best.conf.Confident() || fs.bottomDiffers(fs.unlikeSides()) {
		if open, err = try(true); err != nil {
			return nil, err
		}
		if best.fg != nil && best.conf.onlyCutOff() {
			// The closed cut, clean otherwise, left a part of the subject
			// that runs on to a seeded side to the ground: the open answer
			// is taken only when it is the closed one completed by that part.
			_, walked := cutOff(work, best.fg, fs.frame(false))
			if open.fg != nil && open.conf.Confident() && completes(best.fg, walked, open.fg) {
				best = open
			}
		} else if preferOpen(best, open) {
			best = open
		}
	}
	fg := best.fg
	if fg == nil {
		fg = make([]bool, work.w*work.h)
	}
	c := &Cut{Confidence: best.conf, OpenBottom: best.open, work: work, fg: fg}
	if best == closed && closed.fg != nil && closed.conf.Confident() {
		// The closed answer is kept: ask the open frame whether the
		// subject is part of a larger one that runs off the bottom.
		if open == nil {
			if open, err = try(true); err != nil {
				return nil, err
			}
		}
		c.Beyond = beyond(closed, open)
	}
	recent.put(key, c)
	return c, nil
}

// beyond is what the open answer adds to a confident closed one that it
// completes into a larger subject running off the frame's bottom: its
// area beyond the closed subject over the closed subject's, when it is
// confident, keeps 90% of the closed subject and presses against at least
// beyondBottom of the bottom; else 0.
func beyond(closed, open *result) float64 {
	if open == nil || open.fg == nil || !open.conf.Confident() || open.conf.pressBottom < beyondBottom {
		return 0
	}
	var nc, kept, added int
	for i, o := range open.fg {
		switch {
		case closed.fg[i]:
			nc++
			if o {
				kept++
			}
		case o:
			added++
		}
	}
	if nc == 0 || kept*10 < nc*9 {
		return 0
	}
	return float64(added) / float64(nc)
}

// beyondBottom is the least share of the bottom an open answer presses
// against to count as running off it (Cut.Beyond).
const beyondBottom = 0.25

// preferOpen decides between the closed and the open answer: the closed
// one while it is confident, else the more confident.
func preferOpen(closed, open *result) bool {
	if open.fg == nil {
		return false
	}
	if closed.fg != nil && closed.conf.Confident() {
		return false
	}
	return open.conf.Confident() || open.conf.Score > closed.conf.Score
}

// completes reports whether the open answer is the closed one with the
// part it cut off (walked, the ground the cut-off measure crossed) and
// little else: it keeps 90% of the closed subject and 80% of the walked
// ground, and adds at most 15% of itself beyond both.
func completes(closed, walked, open []bool) bool {
	if walked == nil {
		return false
	}
	var nc, keptC, nw, keptW, no, extra int
	for i, o := range open {
		if o {
			no++
		}
		switch {
		case closed[i]:
			nc++
			if o {
				keptC++
			}
		case walked[i]:
			nw++
			if o {
				keptW++
			}
		case o:
			extra++
		}
	}
	return keptC*10 >= nc*9 && keptW*10 >= nw*8 && extra*100 <= no*15
}

// unlikeSides marks the pixels whose colours the seeds of the top and the
// sides (above the bottom band) do not explain: beyond what 95% of those
// seeds themselves score.
func (s *solver) unlikeSides() []bool {
	w, h, b := s.work.w, s.work.h, s.band
	pix := s.work.pix
	f := frame{band: b}
	side := func(i int) bool {
		x, y := i%w, i/w
		return y < h-b && f.seed(x, y, w, h)
	}
	others := fitGMM(pix, side)
	nll := make([]float64, len(pix))
	var ref []float64
	for i := range pix {
		nll[i] = -others.logLik(pix[i])
		if side(i) {
			ref = append(ref, nll[i])
		}
	}
	out := make([]bool, len(pix))
	if len(ref) == 0 {
		return out
	}
	slices.Sort(ref)
	t := ref[len(ref)*95/100] + 1
	for i := range out {
		out[i] = nll[i] > t
	}
	return out
}

// bottomDiffers reports whether over 15% of the bottom band is unlike the
// other sides: something, perhaps the subject, runs off the bottom.
func (s *solver) bottomDiffers(unlike []bool) bool {
	w, h, b := s.work.w, s.work.h, s.band
	n := 0
	for i := (h - b) * w; i < w*h; i++ {
		if unlike[i] {
			n++
		}
	}
	return n*100 > b*w*15
}

// gamma weighs the smoothness term against the colour term (GrabCut's 50).
const gamma = 50

// flowScale turns the energy (in nats) into the integer capacities of the graph.
const flowScale = 16

// hardCap is the capacity of a hard constraint: more than any cut through
// the pixel's neighbours can cost.
const hardCap = 1 << 24

// solver holds what the rounds of one image share: the pixel graph's
// pairwise capacities and the geometry of the seeds.
type solver struct {
	work *raster
	g    *graph
	pair []int32 // capacity of each edge, in the order the graph's arcs were added
	band int     // border band width in pixels
	net  []int32 // each node's terminal capacity (source minus sink) as last set
	warm bool    // the graph holds the residual of a previous cut
}

func newSolver(work *raster) *solver {
	w, h := work.w, work.h
	s := &solver{work: work, band: max(2, int(math.Round(0.025*float64(min(w, h)))))}
	// beta is the inverse of twice the mean squared colour difference of
	// neighbours, so the smoothness term adapts to the image's contrast.
	type nb struct{ dx, dy int }
	nbs := [4]nb{{1, 0}, {0, 1}, {1, 1}, {-1, 1}}
	var sum float64
	var n int
	for y := range h {
		for x := range w {
			for _, d := range nbs {
				nx, ny := x+d.dx, y+d.dy
				if nx < 0 || nx >= w || ny >= h {
					continue
				}
				sum += sqDist(work.pix[y*w+x], work.pix[ny*w+nx])
				n++
			}
		}
	}
	beta := 0.0
	if sum > 0 {
		beta = float64(n) / (2 * sum)
	}
	s.g = newGraph(w*h, 4*w*h)
	s.pair = make([]int32, 0, 4*w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			for _, d := range nbs {
				nx, ny := x+d.dx, y+d.dy
				if nx < 0 || nx >= w || ny >= h {
					continue
				}
				j := ny*w + nx
				v := gamma * math.Exp(-beta*sqDist(work.pix[i], work.pix[j]))
				if d.dx != 0 && d.dy != 0 {
					v /= math.Sqrt2
				}
				c := int32(math.Round(v * flowScale))
				s.g.addEdge(int32(i), int32(j), c, c)
				s.pair = append(s.pair, c)
			}
		}
	}
	return s
}

func sqDist(a, b [3]float32) float64 {
	d0, d1, d2 := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return d0*d0 + d1*d1 + d2*d2
}

// result is one hypothesis's answer; fg is nil when nothing stood out.
type result struct {
	open             bool
	fg               []bool
	conf             Confidence
	fgModel, bgModel gmm
}

// frame says which border pixels are ground seeds: a band on every side,
// or with an open bottom, none along the bottom and the lower sides.
type frame struct {
	band int
	open bool
}

// openFrom is the height (share of the frame) below which an open frame's
// sides are not seeds: a portrait's shoulders reach the sides there.
const openFrom = 0.6

func (f frame) seed(x, y, w, h int) bool {
	b := f.band
	if !f.open {
		return x < b || y < b || x >= w-b || y >= h-b
	}
	if y < b {
		return true
	}
	return (x < b || x >= w-b) && float64(y) < openFrom*float64(h)
}

func (s *solver) frame(open bool) frame { return frame{band: s.band, open: open} }

// seeds marks the border pixels that are ground seeds.
func (s *solver) seeds(open bool) []bool {
	w, h := s.work.w, s.work.h
	f := s.frame(open)
	seed := make([]bool, w*h)
	for y := range h {
		for x := range w {
			seed[y*w+x] = f.seed(x, y, w, h)
		}
	}
	return seed
}

// run performs one hypothesis on the solver's (coarse) raster: seeds, the
// initial models, and rounds of refitting and cutting until the labels
// settle. It returns the labels and the last models, without confidence.
func (s *solver) run(ctx context.Context, open bool, rounds int) (*result, error) {
	w, h := s.work.w, s.work.h
	pix := s.work.pix
	seed := s.seeds(open)
	bgModel := fitGMM(pix, func(i int) bool { return seed[i] })

	// The subject's first sample: colours the border does not explain
	// (beyond what 95% of the border itself scores), in a central ellipse
	// (reaching down to the bottom when the bottom is open).
	nll := make([]float64, w*h)
	var border []float64
	for i := range pix {
		nll[i] = -bgModel.logLik(pix[i])
		if seed[i] {
			border = append(border, nll[i])
		}
	}
	slices.Sort(border)
	t := border[len(border)*95/100] + 1
	fg := make([]bool, w*h)
	n := 0
	for y := range h {
		for x := range w {
			i := y*w + x
			ex := (float64(x)/float64(w) - 0.5) / 0.42
			ey := (float64(y)/float64(h) - 0.5) / 0.45
			if open && ey > 0 {
				ey = 0
			}
			if !seed[i] && nll[i] > t && ex*ex+ey*ey <= 1 {
				fg[i] = true
				n++
			}
		}
	}
	if n < w*h/400 {
		return &result{open: open, conf: Confidence{Problem: "nothing stands out from the border"}}, nil
	}
	fgModel := fitGMM(pix, func(i int) bool { return fg[i] })
	bgModel = bgModel.refit(pix, func(i int) bool { return !fg[i] })

	prev := slices.Clone(fg)
	for round := range rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.cut(fgModel, bgModel, seed, nil, fg, round > 0)
		changed := 0
		for i := range fg {
			if fg[i] != prev[i] {
				changed++
			}
		}
		copy(prev, fg)
		fgModel = fgModel.refit(pix, func(i int) bool { return fg[i] })
		bgModel = bgModel.refit(pix, func(i int) bool { return !fg[i] })
		if round > 0 && changed < w*h/500 {
			break
		}
	}
	return &result{open: open, fg: fg, fgModel: fgModel, bgModel: bgModel}, nil
}

// refine cuts the solver's (working-size) raster again around the outline
// of the coarse result r: pixels whose coarse neighbourhood is all one label
// keep it (hard), the band between is cut with r's models refitted to the
// working pixels. It returns the working-size labels.
func (s *solver) refine(r *result, coarse *raster) []bool {
	w, h := s.work.w, s.work.h
	cw, ch := coarse.w, coarse.h
	fixed := make([]int8, w*h)
	up := make([]bool, w*h)
	for y := range h {
		cy := min(ch-1, (2*y+1)*ch/(2*h))
		for x := range w {
			cx := min(cw-1, (2*x+1)*cw/(2*w))
			l := r.fg[cy*cw+cx]
			up[y*w+x] = l
			same := true
			for dy := -1; dy <= 1 && same; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := cx+dx, cy+dy
					if nx >= 0 && ny >= 0 && nx < cw && ny < ch && r.fg[ny*cw+nx] != l {
						same = false
						break
					}
				}
			}
			if same {
				fixed[y*w+x] = -1
				if l {
					fixed[y*w+x] = 1
				}
			}
		}
	}
	pix := s.work.pix
	fgModel := r.fgModel.refit(pix, func(i int) bool { return up[i] })
	bgModel := r.bgModel.refit(pix, func(i int) bool { return !up[i] })
	fg := make([]bool, w*h)
	s.cut(fgModel, bgModel, s.seeds(r.open), fixed, fg, false)
	return fg
}

// cut sets the terminal capacities from the two colour models (seeds are
// hard ground; fixed, when given, holds hard labels: 1 subject, -1 ground),
// computes the minimum cut and writes the labels into fg. With reuse, the
// flow of the previous cut on the same graph is kept and only the change of
// each terminal capacity is added to its residual (the pairwise capacities
// never change), so a round that moves a few labels costs little.
func (s *solver) cut(fgModel, bgModel gmm, seed []bool, fixed []int8, fg []bool, reuse bool) {
	g := s.g
	reuse = reuse && s.warm
	if !reuse {
		g.reset()
		for k, c := range s.pair {
			g.rCap[2*k] = c
			g.rCap[2*k+1] = c
		}
		if s.net == nil {
			s.net = make([]int32, len(s.work.pix))
		}
	}
	const maxNats = 40
	parallel(len(s.work.pix), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var d int32
			switch {
			case seed[i] || (fixed != nil && fixed[i] < 0):
				d = -hardCap
			case fixed != nil && fixed[i] > 0:
				d = hardCap
			default:
				// Positive: the colour is likelier subject than ground.
				c := s.work.pix[i]
				n := max(-maxNats, min(maxNats, fgModel.logLik(c)-bgModel.logLik(c)))
				d = int32(math.Round(n * flowScale))
			}
			if reuse {
				g.trCap[i] += d - s.net[i]
			} else {
				g.trCap[i] = d
			}
			s.net[i] = d
		}
	})
	g.maxflow()
	s.warm = true
	for i := range fg {
		fg[i] = g.inSource(int32(i))
	}
}

// clean drops specks (parts under 1% of the largest) and fills pinholes
// (enclosed ground under 0.2% of the subject) of a cut.
func clean(fg []bool, w, h int) {
	label, sizes := Components(fg, w, h)
	largest, area := 0, 0
	for _, n := range sizes {
		largest = max(largest, n)
		area += n
	}
	for i, l := range label {
		if l != 0 && sizes[l-1]*100 < largest {
			fg[i] = false
		}
	}
	hl, hs := holes(fg, w, h)
	for i, l := range hl {
		if l != 0 && hs[l-1] >= 0 && hs[l-1]*500 < area {
			fg[i] = true
		}
	}
}
