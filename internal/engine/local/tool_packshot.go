package local

import (
	"context"
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// packshotMargin is the share of the canvas left free on each side of the product.
const packshotMargin = 0.08

// runPackshot isolates the product (a cut of the product kind, as
// remove-background's), crops it, and places it
// centred on a clean canvas with margins: white by default, params.bg
// "#rrggbb" for a colour, or params.bg "image" for the background input
// (scaled to cover). The canvas is square unless the shape or params.aspect
// (e.g. "4:5" for portrait) says otherwise. A soft shadow (a blurred, offset
// copy of the matte plus a contact ellipse at the base) grounds the product.
// params.shadow "off" leaves it out.
func runPackshot(ctx context.Context, r engine.Request) (engine.Result, error) {
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	a := engine.Aspect{W: 1, H: 1}
	if r.Shape != nil {
		a = r.Shape.Aspect()
	} else if s := r.Param("aspect"); s != "" {
		if a, err = engine.ParseAspect(s); err != nil {
			return engine.Result{}, engine.InputError(r.Tool, "The aspect option is not a ratio like 4:5.", err)
		}
	}
	w, h := engine.Canvas(r.Tier, a)

	img = picture.FitLong(img, r.Tier.Pixels())
	m, err := findMatteOn(img, r.Tool, need{kind: cutProduct})
	if err != nil || checking(ctx) {
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	pad := max(2, int(0.01*float64(max(m.box.Dx(), m.box.Dy()))))
	cut := cutout(img, m, m.box.Inset(-pad))

	canvas, err := packshotGround(r, w, h)
	if err != nil {
		return engine.Result{}, err
	}
	innerW := float64(w) * (1 - 2*packshotMargin)
	innerH := float64(h) * (1 - 2*packshotMargin)
	s := math.Min(innerW/float64(cut.Rect.Dx()), innerH/float64(cut.Rect.Dy()))
	pw := max(1, int(math.Round(float64(cut.Rect.Dx())*s)))
	ph := max(1, int(math.Round(float64(cut.Rect.Dy())*s)))
	product := imaging.Resize(cut, pw, ph, imaging.Lanczos)
	ox, oy := (w-pw)/2, (h-ph)/2
	if r.Param("shadow") != "off" {
		castShadow(canvas, product, ox, oy, 1)
	}
	over(canvas, product, ox, oy)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(canvas)
}

// packshotGround is the packshot's canvas: white, a colour, or the background input.
func packshotGround(r engine.Request, w, h int) (*image.NRGBA, error) {
	switch bg := r.Param("bg"); bg {
	case "", "white":
		return solidCanvas(w, h, 255, 255, 255), nil
	case "image":
		b, err := decodeRole(r, "background")
		if err != nil {
			return nil, err
		}
		return imaging.Clone(coverFill(picture.Flatten(b), w, h)), nil
	default:
		c, err := engine.ParseColor(bg)
		if err != nil {
			return nil, engine.InputError(r.Tool, "The bg option is white, image or a colour like #f4f1ea.", err)
		}
		return solidCanvas(w, h, c.R, c.G, c.B), nil
	}
}

// castShadow darkens dst under a subject about to be placed at (ox, oy): a
// drop shadow (the subject's alpha moved down 1.5% of the frame and blurred)
// and a contact shadow (a Gaussian ellipse at the subject's base). It works on
// a quarter-size grid, where a wide blur is cheap, and is upsampled.
func castShadow(dst, subject *image.NRGBA, ox, oy int, strength float64) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	const f = 4
	lw, lh := max(1, w/f), max(1, h/f)
	sw, sh := max(1, subject.Rect.Dx()/f), max(1, subject.Rect.Dy()/f)
	small := imaging.Resize(subject, sw, sh, imaging.Box)
	drop := newPlane(lw, lh)
	dy := int(0.015 * float64(h) / f)
	for y := range sh {
		for x := range sw {
			tx, ty := ox/f+x, oy/f+y+dy
			if tx >= 0 && ty >= 0 && tx < lw && ty < lh {
				drop.p[ty*lw+tx] = float32(small.Pix[y*small.Stride+x*4+3]) / 255
			}
		}
	}
	drop = drop.gaussBlur(0.02 * float64(h) / f)
	cx := float64(ox)/f + float64(sw)/2
	cy := float64(oy)/f + float64(sh)
	rx := math.Max(1, 0.42*float64(sw))
	ry := math.Max(1, 0.028*float64(h)/f)
	shadow := newPlane(lw, lh)
	for y := range lh {
		for x := range lw {
			ex, ey := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			contact := math.Exp(-(ex*ex + ey*ey) * 1.5)
			shadow.p[y*lw+x] = float32(math.Max(0.28*float64(drop.p[y*lw+x]), 0.38*contact) * strength)
		}
	}
	full := shadow.resized(w, h)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := range w {
				k := float64(1 - full.p[y*w+x])
				i := y*dst.Stride + x*4
				for c := range 3 {
					dst.Pix[i+c] = picture.Clamp8(float64(dst.Pix[i+c]) * k)
				}
			}
		}
	})
}

// runRemoveBackground mattes the subject (a cut of the product kind, as
// packshot's) and returns it at the output size as a PNG whose alpha is the
// matte, with edge colours decontaminated. A shape of another aspect extends the canvas transparently.
func runRemoveBackground(ctx context.Context, r engine.Request) (engine.Result, error) {
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	w, h, fw, fh := engine.FrameSize(r.Tier, r.Shape, img.Rect.Dx(), img.Rect.Dy())
	// The cut is packshot's: made on the input at its own size up to the
	// tier's, so that the two tools answer a picture alike; the cut-out is
	// then resized to the frame.
	work := picture.FitLong(img, r.Tier.Pixels())
	m, err := findMatteOn(work, r.Tool, need{kind: cutProduct})
	if err != nil || checking(ctx) {
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	out := cutout(work, m, work.Rect)
	if out.Rect.Dx() != fw || out.Rect.Dy() != fh {
		out = picture.Resize(out, fw, fh)
	}
	if fw != w || fh != h {
		out = picture.Extend(out, w, h, picture.FillAuto, true)
	}
	return engine.EncodePNG(out)
}
