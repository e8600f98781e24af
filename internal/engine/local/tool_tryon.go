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
// over them, each with a soft shadow on the body.
func runTryon(ctx context.Context, r engine.Request) (engine.Result, error) {
	model, err := decodeRole(r, "model")
	if err != nil {
		return engine.Result{}, err
	}
	iw, ih := model.Rect.Dx(), model.Rect.Dy()
	w, h, fw, fh := engine.FrameSize(r.Tier, r.Shape, iw, ih)
	work := picture.Resize(model, fw, fh)
	// The composite is honest only for a studio figure: a model on a real
	// ground is refused, however cleanly it could be cut out.
	mm, err := findMatteOn(work, r.Tool, need{plainOnly: true})
	if err != nil {
		return engine.Result{}, engine.InputError(r.Tool, "No model figure could be found on a plain background; the local try-on composes garments on studio figures only.", err)
	}
	if work == model {
		work = cloneNRGBA(model)
	}
	picture.Flatten(work)
	fig := measureFigure(mm)

	var pieces []garmentPiece
	for i, data := range r.All("garment") {
		g, err := engine.DecodeInput(r.Tool, fmt.Sprintf("garment %d", i+1), data)
		if err != nil {
			return engine.Result{}, err
		}
		g = picture.FitLong(g, max(fw, fh))
		gm, err := findMatte(g, r.Tool)
		if err != nil {
			return engine.Result{}, engine.InputError(r.Tool, fmt.Sprintf("Garment %d could not be separated from its background cleanly; try a photo on a plainer ground.", i+1), err)
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
	for _, p := range pieces {
		width := 1.15 * fig.shoulderW
		top := fig.shoulderY - 0.035*fig.height
		if p.long && hasTop {
			width = 0.95 * fig.shoulderW
			top = fig.top + 0.47*fig.height
		}
		s := width / float64(p.cut.Rect.Dx())
		pw := max(1, int(math.Round(width)))
		ph := max(1, int(math.Round(float64(p.cut.Rect.Dy())*s)))
		placed := imaging.Resize(p.cut, pw, ph, imaging.Lanczos)
		ox := int(math.Round(fig.axis - float64(pw)/2))
		oy := int(math.Round(top))
		bodyShadow(work, placed, ox, oy)
		over(work, placed, ox, oy)
	}
	if err := alive(ctx); err != nil {
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
	p = p.gaussBlur(0.006*float64(h)/f).resized(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := range w {
				k := 1 - 0.3*float64(p.p[y*w+x])
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
