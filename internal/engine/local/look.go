package local

import (
	"context"
	"fmt"
	"image"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
)

// Lookbook is the local engine's lookbook tool, kept as its own engine so
// that it joins the local one by chaining (engine.Chain(New(),
// NewLookbook())) without changing it. It performs one tool, "lookbook":
//
//   - the lock stage composes the look: the ground (the background input
//     covering the frame, or a floor-lit paper sweep in params.tone), the
//     model matted and standing on it at 88% of the frame's height, the
//     hero piece (the first item) laid on the body as tryon lays a top, the
//     other pieces in a column of swatches at the frame's right edge, and
//     the aesthetic's grade over the whole;
//   - the variation stage re-frames the locked base (the base input) for
//     its key: a crop window per key (close-up on the head and shoulders,
//     detail on the middle, seated on the lower body...), then the grade.
//     It moves no limbs: posture keys keep the base's framing.
//
// The frame is composed for the output shape and developed at the tier's
// pixels on its long edge; params.restore=1 (a destination larger than the
// tier) develops it at twice that, capped at 8192.
type Lookbook struct{}

// NewLookbook returns the lookbook engine.
func NewLookbook() Lookbook { return Lookbook{} }

// Name is "lookbook".
func (Lookbook) Name() string { return "lookbook" }

// Tools is the one tool, "lookbook".
func (Lookbook) Tools() []string { return []string{"lookbook"} }

// Can reports whether tool is "lookbook".
func (Lookbook) Can(tool string) bool { return tool == "lookbook" }

// Run validates r and composes or re-frames the look.
func (l Lookbook) Run(ctx context.Context, r engine.Request) (res engine.Result, err error) {
	if !l.Can(r.Tool) {
		return engine.Result{}, engine.Unsupported(l.Name(), r.Tool)
	}
	if err := engine.Validate(r); err != nil {
		return engine.Result{}, err
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	defer func() {
		if p := recover(); p != nil {
			res = engine.Result{}
			err = engine.ProviderError(r.Tool, "The local engine failed on this look.", fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	w, h := lookCanvas(r)
	var frame *image.NRGBA
	if _, ok := r.Input("base"); ok {
		frame, err = reframeLook(r, w, h)
	} else {
		frame, err = composeLook(ctx, r, w, h)
	}
	if err != nil {
		return engine.Result{}, err
	}
	gradeLook(frame, r.Param("aesthetic"))
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return encodeJPEG(frame)
}

// lookCanvas is the frame's size: the shape's aspect (the model's without
// one) at the tier's pixels, doubled by a restoration pass.
func lookCanvas(r engine.Request) (int, int) {
	a := engine.Aspect{W: 4, H: 5}
	if r.Shape != nil {
		a = r.Shape.Aspect()
	}
	w, h := engine.Canvas(r.Tier, a)
	if r.Param("restore") == "1" {
		s := math.Min(2, 8192/float64(max(w, h)))
		w, h = int(math.Round(float64(w)*s)), int(math.Round(float64(h)*s))
	}
	return w, h
}

// composeLook builds the lock frame.
func composeLook(ctx context.Context, r engine.Request, w, h int) (*image.NRGBA, error) {
	model, err := decodeRole(r, "model")
	if err != nil {
		return nil, err
	}
	var ground *image.NRGBA
	if _, ok := r.Input("background"); ok {
		bg, err := decodeRole(r, "background")
		if err != nil {
			return nil, err
		}
		ground = imaging.Fill(bg, w, h, imaging.Center, imaging.Lanczos)
	} else {
		ground = sweep(w, h, parseTone(r.Param("tone")))
	}
	// The model stands on the ground, 88% of the frame's height, centred.
	mh := int(0.88 * float64(h))
	mw := max(1, int(math.Round(float64(model.Rect.Dx())*float64(mh)/float64(model.Rect.Dy()))))
	if mw > int(0.9*float64(w)) {
		mw = int(0.9 * float64(w))
		mh = max(1, int(math.Round(float64(model.Rect.Dy())*float64(mw)/float64(model.Rect.Dx()))))
	}
	scaled := resize(model, mw, mh)
	figureCut := scaled
	var fig *figure
	if m, err := findMatte(scaled, r.Tool); err == nil {
		figureCut = cutout(scaled, m, scaled.Rect)
		f := measureFigure(m)
		fig = &f
	}
	ox, oy := (w-mw)/2, h-mh-int(0.04*float64(h))
	over(ground, figureCut, ox, oy)
	if err := alive(ctx); err != nil {
		return nil, err
	}
	items := r.All("item")
	for i, data := range items {
		piece, err := Decode(data)
		if err != nil {
			return nil, tagInput(err, r.Tool, fmt.Sprintf("item %d", i+1))
		}
		piece = fitLong(piece, max(w, h))
		cut := piece
		if m, err := findMatte(piece, r.Tool); err == nil {
			cut = cutout(piece, m, m.box)
		}
		if i == 0 && fig != nil {
			// The hero lies on the body as tryon lays a top.
			width := 1.15 * fig.shoulderW
			s := width / float64(cut.Rect.Dx())
			pw, ph := max(1, int(math.Round(width))), max(1, int(math.Round(float64(cut.Rect.Dy())*s)))
			placed := imaging.Resize(cut, pw, ph, imaging.Lanczos)
			px := ox + int(math.Round(fig.axis-float64(pw)/2))
			py := oy + int(math.Round(fig.shoulderY-0.035*fig.height))
			bodyShadow(ground, placed, px, py)
			over(ground, placed, px, py)
			continue
		}
		// Swatches down the right edge, each 16% of the frame's height.
		slot := i
		if fig == nil {
			slot = i + 1
		}
		sh := int(0.16 * float64(h))
		sw := max(1, int(math.Round(float64(cut.Rect.Dx())*float64(sh)/float64(cut.Rect.Dy()))))
		if sw > w/5 {
			sw = w / 5
			sh = max(1, int(math.Round(float64(cut.Rect.Dy())*float64(sw)/float64(cut.Rect.Dx()))))
		}
		over(ground, imaging.Resize(cut, sw, sh, imaging.Lanczos), w-sw-w/40, h/40+(slot-1)*(sh+h/60))
	}
	return ground, nil
}

// crops are the windows each variation key cuts from the base, as
// fractions of it: x, y, width, height.
var crops = map[string][4]float64{
	"front":         {0, 0, 1, 1},
	"back":          {0, 0, 1, 1},
	"side":          {0.15, 0, 0.7, 1},
	"three-quarter": {0.05, 0, 0.9, 0.85},
	"walking":       {0, 0.05, 1, 0.95},
	"seated":        {0, 0.4, 1, 0.6},
	"detail":        {0.28, 0.3, 0.44, 0.35},
	"close-up":      {0.25, 0.02, 0.5, 0.38},
}

// reframeLook cuts the key's window from the base and fills the frame
// with it; "back" mirrors the frame, as a turn would.
func reframeLook(r engine.Request, w, h int) (*image.NRGBA, error) {
	base, err := decodeRole(r, "base")
	if err != nil {
		return nil, err
	}
	key := r.Param("key")
	c, ok := crops[key]
	if !ok {
		c = crops["front"]
	}
	bw, bh := float64(base.Rect.Dx()), float64(base.Rect.Dy())
	win := image.Rect(int(c[0]*bw), int(c[1]*bh), int((c[0]+c[2])*bw), int((c[1]+c[3])*bh))
	out := imaging.Fill(imaging.Crop(base, win), w, h, imaging.Center, imaging.Lanczos)
	if key == "back" {
		out = imaging.FlipH(out)
	}
	return out, nil
}

// sweep is a paper sweep in colour c: the wall at the colour, the floor
// below 70% of the height darkening gently towards the camera.
func sweep(w, h int, c [3]uint8) *image.NRGBA {
	out := solidCanvas(w, h, c[0], c[1], c[2])
	horizon := int(0.7 * float64(h))
	for y := horizon; y < h; y++ {
		f := 1 - 0.12*float64(y-horizon)/float64(max(1, h-horizon))
		row := out.Pix[y*out.Stride : y*out.Stride+w*4]
		for x := 0; x < w; x++ {
			for k := range 3 {
				row[x*4+k] = clamp8(float64(c[k]) * f)
			}
		}
	}
	return out
}

// parseTone reads #rrggbb; a mid grey when it is not one.
func parseTone(s string) [3]uint8 {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) != 6 {
		return [3]uint8{128, 128, 128}
	}
	var out [3]uint8
	for i := range 3 {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return [3]uint8{128, 128, 128}
		}
		out[i] = uint8(v)
	}
	return out
}

// grades are the aesthetics' colour treatments: contrast around mid grey,
// saturation, warmth (red up, blue down) and lift of the blacks.
var grades = map[string]struct{ contrast, saturation, warmth, lift float64 }{
	"editorial": {1.12, 0.92, 0.02, 0},
	"minimal":   {0.94, 0.8, 0, 0.04},
	"street":    {1.18, 1.12, -0.02, 0},
	"studio":    {1, 1, 0, 0},
	"romantic":  {0.95, 0.9, 0.06, 0.05},
	"noir":      {1.3, 0, 0, 0},
}

// gradeLook applies the aesthetic's grade in place.
func gradeLook(img *image.NRGBA, aesthetic string) {
	g, ok := grades[aesthetic]
	if !ok || g == grades["studio"] {
		return
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+w*4]
			for x := 0; x < w; x++ {
				p := row[x*4 : x*4+3]
				r, gg, b := float64(p[0]), float64(p[1]), float64(p[2])
				l := luma(p[0], p[1], p[2])
				r, gg, b = l+(r-l)*g.saturation, l+(gg-l)*g.saturation, l+(b-l)*g.saturation
				r, gg, b = 128+(r-128)*g.contrast, 128+(gg-128)*g.contrast, 128+(b-128)*g.contrast
				r, b = r*(1+g.warmth), b*(1-g.warmth)
				lift := 255 * g.lift
				p[0] = clamp8(lift + r*(1-g.lift))
				p[1] = clamp8(lift + gg*(1-g.lift))
				p[2] = clamp8(lift + b*(1-g.lift))
			}
		}
	})
}
