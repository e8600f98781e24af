package local

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// garmentPiece is one matted garment ready to place.
type garmentPiece struct {
	cut  *image.NRGBA
	long bool // at least 1.6x taller than wide: a dress or trousers
}

// figure is the geometry of a standing model, measured from its matte.
type figure struct {
	top, height     float64 // first row and height of the figure
	shoulderY       float64
	shoulderW, axis float64 // width of the body at the shoulders and its centre
}

// runTryon is an honest composite, not a generative try-on: each garment
// input is matted (findMatte) and cut out, the model input (a figure on a
// plain backdrop only; any other is refused) is matted and
// measured (the figure's top and height, its width and axis at the shoulder
// line, 20% down the figure), and each garment is scaled to the body and laid
// on it: tops and dresses at 1.15x the shoulder width with their collar just
// above the shoulder line; long pieces are trousers when a top is also given,
// laid from 47% down at 0.95x the shoulder width. Bottoms go on first, tops
// over them, each with a soft shadow on the body. A top is made wide and
// long enough to hide the top the figure wears (figureTop); when some of
// that still shows around it, the try-on is refused rather than delivered
// as a sticker on a shirt. The model must be a figure (a cut of the figure
// kind) and each garment a garment (the garment kind): a plush toy is not.
func runTryon(ctx context.Context, r engine.Request) (engine.Result, error) {
	model, err := decodeRole(r, "model")
	if err != nil {
		return engine.Result{}, err
	}
	iw, ih := model.Rect.Dx(), model.Rect.Dy()
	w, h, fw, fh := workSize(ctx, r, iw, ih)
	work := picture.Resize(model, fw, fh)
	// The composite is honest only for a studio figure: a model on a real
	// ground is refused, however cleanly it could be cut out.
	mm, err := findMatteOn(work, r.Tool, need{plainOnly: true, kind: cutFigure})
	if err != nil {
		return engine.Result{}, engine.InputError(r.Tool, reasonNotFigure, err)
	}
	if work == model {
		work = cloneNRGBA(model)
	}
	picture.Flatten(work)
	fig := measureFigure(mm)
	// The figure's own top, which a top laid on it must cover whole, read
	// now, so that the figure's matte is gone before the garments are cut.
	ownTop, ownBox := figureTop(work, mm, fig)
	var own *coverage
	if ownTop != nil {
		own = coverageOf(ownTop)
	}

	var pieces []garmentPiece
	for i, data := range r.All("garment") {
		g, err := engine.DecodeInput(r.Tool, fmt.Sprintf("garment %d", i+1), data)
		if err != nil {
			return engine.Result{}, err
		}
		g = picture.FitLong(g, max(fw, fh))
		gm, err := findMatteOn(g, r.Tool, need{kind: cutGarment})
		if err != nil {
			return engine.Result{}, engine.InRole(err, r.Tool, fmt.Sprintf("garment %d", i+1))
		}
		cut := cutout(g, gm, gm.box)
		pieces = append(pieces, garmentPiece{cut: cut, long: float64(cut.Rect.Dy()) >= 1.6*float64(cut.Rect.Dx())})
		if err := alive(ctx); err != nil {
			return engine.Result{}, err
		}
	}
	hasTop := slices.ContainsFunc(pieces, func(p garmentPiece) bool { return !p.long })
	// Bottoms first, so tops lie over their waistband.
	slices.SortStableFunc(pieces, func(a, b garmentPiece) int {
		ab, bb := a.long && hasTop, b.long && hasTop
		switch {
		case ab && !bb:
			return -1
		case !ab && bb:
			return 1
		}
		return 0
	})
	cover := &coverage{w: work.Rect.Dx(), h: work.Rect.Dy(), on: make([]bool, work.Rect.Dx()*work.Rect.Dy())}
	for _, p := range pieces {
		width := 1.15 * fig.shoulderW
		top := fig.shoulderY - 0.035*fig.height
		isTop := !(p.long && hasTop)
		if !isTop {
			width = 0.95 * fig.shoulderW
			top = fig.top + 0.47*fig.height
		}
		s := width / float64(p.cut.Rect.Dx())
		if isTop && own != nil {
			// Wide and long enough to hide the top the figure wears.
			s = max(s, 1.06*float64(ownBox.Dx())/float64(p.cut.Rect.Dx()),
				(float64(ownBox.Max.Y)+0.01*fig.height-top)/float64(p.cut.Rect.Dy()))
		}
		oy := int(math.Round(top))
		lay := func(s float64) (*image.NRGBA, int) {
			pw := max(1, int(math.Round(float64(p.cut.Rect.Dx())*s)))
			ph := max(1, int(math.Round(float64(p.cut.Rect.Dy())*s)))
			return imaging.Resize(p.cut, pw, ph, imaging.Lanczos), int(math.Round(fig.axis - float64(pw)/2))
		}
		placed, ox := lay(s)
		if isTop && own != nil {
			// A top whose body is narrower than the figure's own top (its
			// sleeves set the width) is laid larger, up to 1.4 times,
			// until it hides it.
			for _, g := range topGrowth {
				if uncoveredWith(own, cover, placed, ox, oy) <= maxUncovered {
					break
				}
				placed, ox = lay(s * g)
			}
		}
		bodyShadow(work, placed, ox, oy)
		over(work, placed, ox, oy)
		stamp(cover, placed, ox, oy)
	}
	if own != nil {
		if u := uncovered(own, cover); u > maxUncovered {
			return engine.Result{}, engine.InputError(r.Tool, "The garment cannot cover the top the model wears (it would show around it); try a garment cut like the model's own, or a model in a plain close-fitting top.",
				fmt.Errorf("tryon: %.3f of the figure's own top uncovered", u))
		}
	}
	if err := alive(ctx); err != nil || checking(ctx) {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(picture.Conform(work, w, h, picture.FillAuto, false))
}

// measureFigure reads a standing figure's geometry from its matte.
func measureFigure(m *matte) figure {
	a := m.alpha
	box := m.box
	f := figure{top: float64(box.Min.Y), height: float64(box.Dy())}
	f.shoulderY = f.top + 0.20*f.height
	// The median span over the rows from 18% to 24% down is the shoulder width.
	var widths, centres []float64
	for y := int(f.top + 0.18*f.height); y <= int(f.top+0.24*f.height) && y < a.h; y++ {
		l, r := -1, -1
		for x := range a.w {
			if a.p[y*a.w+x] > 0.5 {
				if l < 0 {
					l = x
				}
				r = x
			}
		}
		if l >= 0 {
			widths = append(widths, float64(r-l+1))
			centres = append(centres, float64(l+r)/2)
		}
	}
	if len(widths) == 0 {
		f.shoulderW = 0.4 * float64(box.Dx())
		f.axis = float64(box.Min.X+box.Max.X) / 2
		return f
	}
	slices.Sort(widths)
	slices.Sort(centres)
	f.shoulderW = widths[len(widths)/2]
	f.axis = centres[len(centres)/2]
	return f
}

// bodyShadow darkens the body just around and under a garment about to be
// laid at (ox, oy): its alpha, blurred by 0.6% of the frame and moved down
// by half that, at 30% opacity.
func bodyShadow(dst, garment *image.NRGBA, ox, oy int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	const f = 2
	lw, lh := max(1, w/f), max(1, h/f)
	gw, gh := max(1, garment.Rect.Dx()/f), max(1, garment.Rect.Dy()/f)
	small := imaging.Resize(garment, gw, gh, imaging.Box)
	shift := int(0.003 * float64(h) / f)
	p := newPlane(lw, lh)
	for y := range gh {
		for x := range gw {
			tx, ty := ox/f+x, oy/f+y+shift
			if tx >= 0 && ty >= 0 && tx < lw && ty < lh {
				p.p[ty*lw+tx] = float32(small.Pix[y*small.Stride+x*4+3]) / 255
			}
		}
	}
	// The blurred plane is read at the frame's size as resized would give
	// it (bilinear, pixel centres aligned), never made at that size.
	p = p.gaussBlur(0.006 * float64(h) / f)
	x0s, x1s, fxs := taps(w, p.w)
	y0s, y1s, fys := taps(h, p.h)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			r0 := p.p[y0s[y]*p.w : (y0s[y]+1)*p.w]
			r1 := p.p[y1s[y]*p.w : (y1s[y]+1)*p.w]
			fy := fys[y]
			for x := range w {
				a := r0[x0s[x]] + (r0[x1s[x]]-r0[x0s[x]])*fxs[x]
				b := r1[x0s[x]] + (r1[x1s[x]]-r1[x0s[x]])*fxs[x]
				k := 1 - 0.3*float64(a+(b-a)*fy)
				if k >= 0.999 {
					continue
				}
				i := y*dst.Stride + x*4
				for c := range 3 {
					dst.Pix[i+c] = picture.Clamp8(float64(dst.Pix[i+c]) * k)
				}
			}
		}
	})
}

// maxUncovered is the most of the figure's own top a laid top may leave
// showing (a thin line at the seams).
const maxUncovered = 0.04

// topGrowth are the sizes, over the one the shoulders give, a top is tried
// at to hide the figure's own top.
var topGrowth = []float64{1.12, 1.25, 1.4}

// figureTop is the top the figure wears on its torso (findGarment with
// part top, on the figure's matte, within the shoulders' span: sleeves on
// the arms may show below a short-sleeved top) and its bounds, or nil when
// none can be told apart (a greyscale or one-colour figure: nothing to
// compare).
func figureTop(img *image.NRGBA, m *matte, fig figure) (*plane, image.Rectangle) {
	region, err := findGarment(img, m, "top", "", "")
	if err != nil {
		return nil, image.Rectangle{}
	}
	x0 := int(fig.axis - 0.42*fig.shoulderW)
	x1 := int(fig.axis + 0.42*fig.shoulderW)
	for y := range region.h {
		row := region.p[y*region.w : (y+1)*region.w]
		for x := range row {
			if x < x0 || x > x1 {
				row[x] = 0
			}
		}
	}
	box := region.bounds(0.5)
	if box.Empty() {
		return nil, image.Rectangle{}
	}
	return region, box
}

// coverage is which pixels of the frame are covered, at least half: the
// figure's own top, the garments laid (a byte a pixel, not a plane's four).
type coverage struct {
	w, h int
	on   []bool
}

// coverageOf is where p is at least a half.
func coverageOf(p *plane) *coverage {
	c := &coverage{w: p.w, h: p.h, on: make([]bool, len(p.p))}
	for i, v := range p.p {
		c.on[i] = v >= 0.5
	}
	return c
}

// laidOn reports whether src laid at (ox, oy) covers the pixel (x, y) of
// the frame: its alpha there at least a half.
func laidOn(src *image.NRGBA, ox, oy, x, y int) bool {
	x, y = x-ox, y-oy
	return x >= 0 && y >= 0 && x < src.Rect.Dx() && y < src.Rect.Dy() && float32(src.Pix[y*src.Stride+x*4+3])/255 >= 0.5
}

// stamp records in cover where src laid at (ox, oy) covers the frame.
func stamp(cover *coverage, src *image.NRGBA, ox, oy int) {
	for y := max(0, oy); y < min(cover.h, oy+src.Rect.Dy()); y++ {
		for x := max(0, ox); x < min(cover.w, ox+src.Rect.Dx()); x++ {
			if laidOn(src, ox, oy, x, y) {
				cover.on[y*cover.w+x] = true
			}
		}
	}
}

// uncoveredWith is uncovered(region, cover) once src laid at (ox, oy) is
// stamped on cover, without stamping it (no copy of cover per size tried).
func uncoveredWith(region, cover *coverage, src *image.NRGBA, ox, oy int) float64 {
	var in, open int
	for i, on := range region.on {
		if !on {
			continue
		}
		in++
		if !cover.on[i] && !laidOn(src, ox, oy, i%region.w, i/region.w) {
			open++
		}
	}
	if in == 0 {
		return 0
	}
	return float64(open) / float64(in)
}

// uncovered is the share of region that cover leaves showing.
func uncovered(region, cover *coverage) float64 {
	var in, open int
	for i, on := range region.on {
		if !on {
			continue
		}
		in++
		if !cover.on[i] {
			open++
		}
	}
	if in == 0 {
		return 0
	}
	return float64(open) / float64(in)
}
