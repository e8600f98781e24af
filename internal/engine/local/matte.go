package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/segment"
	"studio/internal/picture"
)

// analysisEdge is the long edge of the downscaled copy that mattes and other
// statistics are computed on; results are applied at full size.
const analysisEdge = 512

// maxBorderNoise is the largest border spread (colour distance, 0..255) that
// still counts as a plain backdrop; up to studioNoise it is a studio's.
const (
	maxBorderNoise = 14
	studioNoise    = 8
)

// minMatteEdge is the shortest side an image needs for a matte.
const minMatteEdge = 16

// reasonNoSubject is the input fault of a matte that finds no subject it can
// separate cleanly: a fragmented cut-out is never delivered.
const reasonNoSubject = "The subject could not be separated from this background cleanly; try a photo on a plainer ground."

// background is a smooth model of an image's backdrop, estimated from its
// border: four colour profiles (top, bottom, left, right) blended over the
// frame as a Coons patch, so gradients and light fall-off are followed.
type background struct {
	top, bottom, left, right [][3]float32 // profiles in 0..255, along x (top, bottom) and y (left, right)
	tl, tr, bl, br           [3]float32
	sigma                    float64 // robust spread of the border around the model
	t0, t1                   float64 // distance thresholds: below t0 is background, above t1 subject
}

// at returns the background colour at (u, v) in [0, 1]^2.
func (b *background) at(u, v float64, out *[3]float64) {
	fx := u * float64(len(b.top)-1)
	fy := v * float64(len(b.left)-1)
	top := lerpProfile(b.top, fx)
	bot := lerpProfile(b.bottom, fx)
	lef := lerpProfile(b.left, fy)
	rig := lerpProfile(b.right, fy)
	for c := range 3 {
		corner := (1-u)*(1-v)*float64(b.tl[c]) + u*(1-v)*float64(b.tr[c]) +
			(1-u)*v*float64(b.bl[c]) + u*v*float64(b.br[c])
		out[c] = (1-v)*top[c] + v*bot[c] + (1-u)*lef[c] + u*rig[c] - corner
	}
}

func lerpProfile(p [][3]float32, f float64) [3]float64 {
	i := int(f)
	if i >= len(p)-1 {
		l := p[len(p)-1]
		return [3]float64{float64(l[0]), float64(l[1]), float64(l[2])}
	}
	t := f - float64(i)
	a, b := p[i], p[i+1]
	return [3]float64{
		float64(a[0])*(1-t) + float64(b[0])*t,
		float64(a[1])*(1-t) + float64(b[1])*t,
		float64(a[2])*(1-t) + float64(b[2])*t,
	}
}

// colourDistance weighs chroma twice as much as luma, so a pale product on a
// white ground still stands out by its tint.
func colourDistance(r, g, b float64, bg *[3]float64) float64 {
	dr, dg, db := r-bg[0], g-bg[1], b-bg[2]
	dy := 0.299*dr + 0.587*dg + 0.114*db
	dcb := -0.168736*dr - 0.331264*dg + 0.5*db
	dcr := 0.5*dr - 0.418688*dg - 0.081312*db
	return math.Sqrt(dy*dy + 2*(dcb*dcb+dcr*dcr))
}

// estimateBackground reads the border band of a (an analysis-sized copy).
func estimateBackground(a *image.NRGBA) *background {
	w, h := a.Rect.Dx(), a.Rect.Dy()
	band := max(2, int(math.Round(0.03*float64(min(w, h)))))
	px := func(x, y int) [3]float32 {
		i := y*a.Stride + x*4
		return [3]float32{float32(a.Pix[i]), float32(a.Pix[i+1]), float32(a.Pix[i+2])}
	}
	side := func(n int, get func(i, k int) [3]float32) [][3]float32 {
		prof := make([][3]float32, n)
		vals := make([]float32, band)
		for i := range n {
			for c := range 3 {
				for k := range band {
					vals[k] = get(i, k)[c]
				}
				prof[i][c] = median(vals)
			}
		}
		return medianFilter(prof, max(5, n/3|1))
	}
	b := &background{
		top:    side(w, func(i, k int) [3]float32 { return px(i, k) }),
		bottom: side(w, func(i, k int) [3]float32 { return px(i, h-1-k) }),
		left:   side(h, func(i, k int) [3]float32 { return px(k, i) }),
		right:  side(h, func(i, k int) [3]float32 { return px(w-1-k, i) }),
	}
	b.replaceCutSides()
	avg := func(p, q [3]float32) [3]float32 {
		return [3]float32{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}
	}
	b.tl = avg(b.top[0], b.left[0])
	b.tr = avg(b.top[w-1], b.right[0])
	b.bl = avg(b.bottom[0], b.left[h-1])
	b.br = avg(b.bottom[w-1], b.right[h-1])

	// The noise of the ground: the spread of border pixels around the model.
	var res []float32
	var bg [3]float64
	add := func(x, y int) {
		b.at(float64(x)/float64(max(1, w-1)), float64(y)/float64(max(1, h-1)), &bg)
		p := px(x, y)
		res = append(res, float32(colourDistance(float64(p[0]), float64(p[1]), float64(p[2]), &bg)))
	}
	for x := 0; x < w; x += 2 {
		add(x, 0)
		add(x, h-1)
	}
	for y := 0; y < h; y += 2 {
		add(0, y)
		add(w-1, y)
	}
	b.sigma = 1.4826 * float64(median(res))
	b.t0 = math.Max(10, math.Min(60, 3*b.sigma+6))
	b.t1 = b.t0 + 18
	return b
}

// replaceCutSides handles a subject that runs off one side of the frame (a
// figure cut at the knees): a side whose median colour is far from the other
// three is replaced by their common colour.
func (b *background) replaceCutSides() {
	sides := []*[][3]float32{&b.top, &b.bottom, &b.left, &b.right}
	meds := make([][3]float32, 4)
	for i, s := range sides {
		for c := range 3 {
			vals := make([]float32, len(*s))
			for k, v := range *s {
				vals[k] = v[c]
			}
			meds[i][c] = median(vals)
		}
	}
	for i, s := range sides {
		var others [3]float32
		var n float32
		far := 0
		for j := range sides {
			if j == i {
				continue
			}
			d := dist3(meds[i], meds[j])
			if d > 45 {
				far++
			}
			for c := range 3 {
				others[c] += meds[j][c]
			}
			n++
		}
		if far == 3 {
			for c := range 3 {
				others[c] /= n
			}
			for k := range *s {
				(*s)[k] = others
			}
		}
	}
}

func dist3(a, b [3]float32) float64 {
	d0, d1, d2 := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return math.Sqrt(d0*d0 + d1*d1 + d2*d2)
}

func median(v []float32) float32 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// medianFilter smooths a profile with a running median of the given window,
// which removes a subject's short contact with the border but keeps gradients.
func medianFilter(p [][3]float32, win int) [][3]float32 {
	n := len(p)
	out := make([][3]float32, n)
	r := win / 2
	// Beyond the ends the profile is mirrored through its end value
	// (2*p[0] - p[k]), which keeps a linear gradient linear to the end.
	at := func(k, c int) float32 {
		switch {
		case k < 0:
			return 2*p[0][c] - p[min(n-1, -k)][c]
		case k >= n:
			return 2*p[n-1][c] - p[max(0, 2*(n-1)-k)][c]
		}
		return p[k][c]
	}
	vals := make([]float32, 0, 2*r+1)
	for i := range n {
		for c := range 3 {
			vals = vals[:0]
			for k := i - r; k <= i+r; k++ {
				vals = append(vals, at(k, c))
			}
			slices.Sort(vals)
			out[i][c] = vals[len(vals)/2]
		}
	}
	return out
}

// matte is a subject separated from its background.
type matte struct {
	alpha  *plane          // full size, 0 = background, 1 = subject
	bg     *background     // the plain backdrop's model, or nil
	ground *segment.Ground // the ground behind a graph-cut subject, or nil
	box    image.Rectangle // bounds of alpha > 0.5
	// conf is segment's measure of the separation (zero for an input's
	// own transparency, which is taken as it is).
	conf segment.Confidence
	// plain is true when the ground was a studio backdrop (the plain
	// matte) or the input's own transparency.
	plain bool
	// beyond is, for a graph cut, the share of the subject's area that the
	// cut with the bottom open adds to it (segment.Cut.Beyond): a subject
	// that is one part of a larger one the frame cuts.
	beyond float64
}

// hasGround reports whether the matte knows the colour behind the subject
// (not when the alpha came from the input's own transparency).
func (m *matte) hasGround() bool { return m.bg != nil || m.ground != nil }

// bgAt is the estimated background colour at (x, y) of a w x h image.
func (m *matte) bgAt(x, y, w, h int, out *[3]float64) {
	switch {
	case m.ground != nil:
		m.ground.At((float64(x)+0.5)/float64(w), (float64(y)+0.5)/float64(h), out)
	case m.bg != nil:
		m.bg.at(float64(x)/float64(max(1, w-1)), float64(y)/float64(max(1, h-1)), out)
	default:
		*out = [3]float64{255, 255, 255}
	}
}

// need is what a tool asks of a matte.
type need struct {
	// plainOnly allows a plain backdrop only (try-on's figure: the composite
	// is honest only for a studio figure).
	plainOnly bool
	// score is the least confidence (segment.Confidence.Score) to deliver;
	// zero means segment.Threshold.
	score float64
	// kind is the kind of cut the tool needs (checkCut); zero asks only
	// for a clean separation.
	kind cutKind
}

func (n need) accepts(c segment.Confidence) bool {
	return c.Score >= max(n.score, segment.Threshold)
}

// assessOptions measures a plain matte on a copy 256 px long: the measures
// do not depend on the scale, and it is a quarter of the work at 512.
var assessOptions = segment.Options{WorkEdge: 256}

// findMatte separates the subject of img from its background, plain or
// real, at the usual confidence (findMatteOn with no special need).
func findMatte(img *image.NRGBA, tool string) (*matte, error) {
	return findMatteOn(img, tool, need{})
}

// findMatteOn separates the subject of img from its background. An image
// with real transparency uses its own alpha. Otherwise the border's spread
// decides the order: on a studio backdrop (up to studioNoise) plainMatte
// leads and the graph cut of package segment is the fallback; on a quiet
// real ground (up to maxBorderNoise) the graph cut leads and plainMatte is
// the fallback; on a busy ground only the graph cut can work. Either is
// delivered only when its mask passes the confidence measure of package
// segment (a plain matte's through segment.Assess), so a shredded subject is
// never delivered. n may ask for a plain backdrop only, or for a higher
// confidence. It returns an
// input fault with a plain reason when no clean subject is found.
func findMatteOn(img *image.NRGBA, tool string, n need) (*matte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w < minMatteEdge || h < minMatteEdge {
		return nil, engine.InputError(tool, "The image is too small to find a subject in.", nil)
	}
	if picture.HasAlpha(img) && transparentShare(img) > 0.01 {
		m := &matte{alpha: newPlane(w, h)}
		for y := range h {
			for x := range w {
				m.alpha.p[y*w+x] = float32(img.Pix[y*img.Stride+x*4+3]) / 255
			}
		}
		m.box = m.alpha.bounds(0.5)
		m.plain = true
		if m.box.Empty() {
			return nil, engine.InputError(tool, reasonNoSubject, nil)
		}
		if err := checkCut(img, m, n.kind, tool); err != nil {
			return nil, err
		}
		return m, nil
	}

	small := picture.FitLong(img, analysisEdge)
	if small == img {
		small = imaging.Clone(img)
	}
	picture.Flatten(small)
	bg := estimateBackground(small)
	plain := func() (*matte, error) {
		m, mask, err := plainMatte(img, small, bg, tool)
		if err != nil {
			return nil, fmt.Errorf("plain matte: %w", err)
		}
		conf := segment.Assess(small, mask, assessOptions)
		if !n.accepts(conf) {
			return nil, fmt.Errorf("plain matte: %v", conf)
		}
		m.conf, m.plain = conf, bg.sigma <= studioNoise
		return m, nil
	}
	cut := func() (*matte, error) {
		if n.plainOnly {
			return nil, errors.New("graph cut: the tool takes a plain backdrop only")
		}
		return cutMatte(img, n)
	}
	var order []func() (*matte, error)
	switch {
	case bg.sigma <= studioNoise:
		// A studio backdrop: the plain matte, tuned for it, leads.
		order = append(order, plain, cut)
	case bg.sigma <= maxBorderNoise:
		// A quiet real ground (a table, a wall): the graph cut models its
		// texture better; the plain matte is the fallback.
		order = append(order, cut, plain)
	default:
		// A busy ground: border statistics cannot tell subject from ground.
		order = append(order, cut)
	}
	causes := []error{fmt.Errorf("border spread %.1f", bg.sigma)}
	var refusal error // the first cut the kind's measure refused
	for _, f := range order {
		m, err := f()
		if err == nil {
			if err = checkCut(img, m, n.kind, tool); err == nil {
				return m, nil
			}
			if errors.Is(err, errFrameCuts) {
				// The product runs on past the frame: another matte of
				// the same picture would cut the same part of it.
				return nil, err
			}
			refusal = cmp.Or(refusal, err)
		}
		causes = append(causes, err)
	}
	if refusal != nil {
		// A clean separation that is not the kind of cut the tool needs
		// says so, rather than blaming the background.
		return nil, refusal
	}
	return nil, engine.InputError(tool, reasonNoSubject, errors.Join(causes...))
}

// cutMatte separates the subject from a real ground with the graph cut of
// package segment, and refuses a cut below the confidence n asks for. Its
// errors are causes for the log; findMatteOn gives the plain reason.
func cutMatte(img *image.NRGBA, n need) (*matte, error) {
	flat := img
	if picture.HasAlpha(img) {
		flat = imaging.Clone(img)
		picture.Flatten(flat)
	}
	cut, err := segment.Separate(context.Background(), flat, segment.Options{})
	if err != nil {
		return nil, fmt.Errorf("graph cut: %w", err)
	}
	if !n.accepts(cut.Confidence) {
		return nil, fmt.Errorf("graph cut: %v", cut.Confidence)
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	m := &matte{alpha: &plane{w: w, h: h, p: cut.Matte(flat)}, ground: cut.Ground(), conf: cut.Confidence, beyond: cut.Beyond}
	m.box = m.alpha.bounds(0.5)
	if m.box.Empty() {
		return nil, errors.New("graph cut: an empty matte")
	}
	return m, nil
}

// plainMatte mattes a subject on a plain backdrop bg (modelled from the
// border of small, the analysis-sized copy of img): each pixel's colour
// distance to the backdrop becomes a soft alpha, and on small the binary mask
// is cleaned: enclosed holes are filled (a white label on a white shirt stays
// subject) and specks are dropped. The cleaned coarse matte is upsampled and
// its uncertain edge band is re-matted at full size, so edges stay crisp. It
// also returns the cleaned mask at small's size, for the confidence measure.
func plainMatte(img, small *image.NRGBA, bg *background, tool string) (*matte, []float32, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	coarse := softAlpha(small, bg)

	// Clean the binary mask on the coarse grid.
	fg := make([]bool, sw*sh)
	for i, v := range coarse.p {
		fg[i] = v >= 0.5
	}
	fillHoles(fg, sw, sh)
	keep := largeComponents(fg, sw, sh)
	n := 0
	for i := range fg {
		switch {
		case !keep[i]:
			coarse.p[i] = 0
		case fg[i] && coarse.p[i] < 0.5:
			coarse.p[i] = 1 // a filled hole
		}
		if keep[i] {
			n++
		}
	}
	if share := float64(n) / float64(sw*sh); share < 0.002 || share > 0.97 {
		return nil, nil, engine.InputError(tool, reasonNoSubject, nil)
	}
	mask := slices.Clone(coarse.p)
	coarse = coarse.boxBlur(1)

	// Upsample and refine the edge band at full size.
	full := coarse.resized(w, h)
	fine := newPlane(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		var bgc [3]float64
		v := 0.0
		for y := y0; y < y1; y++ {
			v = float64(y) / float64(max(1, h-1))
			for x := range w {
				i := y*w + x
				c := full.p[i]
				switch {
				case c <= 0.02:
					fine.p[i] = 0
				case c >= 0.98:
					fine.p[i] = 1
				default:
					bg.at(float64(x)/float64(max(1, w-1)), v, &bgc)
					j := y*img.Stride + x*4
					d := colourDistance(float64(img.Pix[j]), float64(img.Pix[j+1]), float64(img.Pix[j+2]), &bgc)
					a := picture.Smoothstep(bg.t0, bg.t1, d)
					// Stay near the cleaned coarse value: the fine alpha only moves the edge.
					fine.p[i] = float32(clamp01(0.35*float64(c) + 0.65*a))
				}
			}
		}
	})
	m := &matte{alpha: fine, bg: bg}
	m.box = fine.bounds(0.5)
	if m.box.Empty() {
		return nil, nil, engine.InputError(tool, reasonNoSubject, nil)
	}
	return m, mask, nil
}

// softAlpha is the per-pixel alpha of img against bg.
func softAlpha(img *image.NRGBA, bg *background) *plane {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := newPlane(w, h)
	var bgc [3]float64
	for y := range h {
		v := float64(y) / float64(max(1, h-1))
		for x := range w {
			bg.at(float64(x)/float64(max(1, w-1)), v, &bgc)
			j := y*img.Stride + x*4
			d := colourDistance(float64(img.Pix[j]), float64(img.Pix[j+1]), float64(img.Pix[j+2]), &bgc)
			out.p[y*w+x] = float32(picture.Smoothstep(bg.t0, bg.t1, d))
		}
	}
	return out
}

func transparentShare(img *image.NRGBA) float64 {
	n := 0
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] < 128 {
			n++
		}
	}
	return float64(n) / float64(len(img.Pix)/4)
}

// fillHoles marks as foreground every background pixel that the border's
// background cannot reach (4-connected flood fill from the border).
func fillHoles(fg []bool, w, h int) {
	reach := make([]bool, w*h)
	stack := make([]int, 0, 2*(w+h))
	push := func(i int) {
		if !fg[i] && !reach[i] {
			reach[i] = true
			stack = append(stack, i)
		}
	}
	for x := range w {
		push(x)
		push((h-1)*w + x)
	}
	for y := range h {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	for i := range fg {
		if !reach[i] {
			fg[i] = true
		}
	}
}

// largeComponents keeps the 8-connected foreground components of at least
// 3% of the largest one's area (and 8 pixels): specks of noise drop out.
func largeComponents(fg []bool, w, h int) []bool {
	label, sizes := segment.Components(fg, w, h)
	largest := 0
	for _, s := range sizes {
		largest = max(largest, s)
	}
	minSize := max(8, largest*3/100)
	keep := make([]bool, w*h)
	for i, l := range label {
		keep[i] = l != 0 && sizes[l-1] >= minSize
	}
	return keep
}

// cutout returns the subject inside r as a transparent image whose colours
// are decontaminated: an edge pixel I = a*F + (1-a)*B is solved for F, so no
// halo of the old background follows the subject onto a new one.
func cutout(img *image.NRGBA, m *matte, r image.Rectangle) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	r = r.Intersect(img.Rect)
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	picture.Parallel(r.Dy(), func(y0, y1 int) {
		var bgc [3]float64
		for oy := y0; oy < y1; oy++ {
			y := oy + r.Min.Y
			for ox := range r.Dx() {
				x := ox + r.Min.X
				a := float64(m.alpha.p[y*w+x])
				j := y*img.Stride + x*4
				k := oy*out.Stride + ox*4
				if a <= 0.004 {
					continue
				}
				if a >= 0.95 || !m.hasGround() {
					copy(out.Pix[k:k+3], img.Pix[j:j+3])
				} else {
					m.bgAt(x, y, w, h, &bgc)
					aa := math.Max(a, 0.15)
					for c := range 3 {
						out.Pix[k+c] = picture.Clamp8((float64(img.Pix[j+c]) - (1-aa)*bgc[c]) / aa)
					}
				}
				out.Pix[k+3] = picture.Clamp8(255 * a)
			}
		}
	})
	return out
}

// over composites src (non-premultiplied, with alpha) onto dst at offset (ox, oy).
func over(dst, src *image.NRGBA, ox, oy int) {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	y0, y1 := max(0, -oy), min(sh, dh-oy)
	x0, x1 := max(0, -ox), min(sw, dw-ox)
	if y0 >= y1 || x0 >= x1 {
		return
	}
	picture.Parallel(y1-y0, func(lo, hi int) {
		for y := y0 + lo; y < y0+hi; y++ {
			for x := x0; x < x1; x++ {
				s := y*src.Stride + x*4
				a := uint32(src.Pix[s+3])
				if a == 0 {
					continue
				}
				d := (y+oy)*dst.Stride + (x+ox)*4
				if a == 255 {
					copy(dst.Pix[d:d+4], src.Pix[s:s+4])
					continue
				}
				da := uint32(dst.Pix[d+3])
				// Porter-Duff over, non-premultiplied.
				outA := a*255 + da*(255-a) // scaled by 255
				if outA == 0 {
					continue
				}
				for c := range 3 {
					v := uint32(src.Pix[s+c])*a*255 + uint32(dst.Pix[d+c])*da*(255-a)
					dst.Pix[d+c] = uint8((v + outA/2) / outA)
				}
				dst.Pix[d+3] = uint8((outA + 127) / 255)
			}
		}
	})
}
