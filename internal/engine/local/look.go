package local

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/picture"
	"studio/internal/tool"
)

// Lookbook is the local engine's lookbook tool, kept as its own engine so
// that it joins the local one by chaining (engine.Chain(New(),
// NewLookbook())) without changing it. It performs one tool, "lookbook",
// and its frames are layout proofs, never generated looks: each carries
// the visible mark ProofMark with its framing, in a band at the bottom.
//
//   - the lock stage composes the look: the ground (the background input
//     covering the frame, or a floor-lit paper sweep in params.tone), the
//     model matted and standing on it at 88% of the frame's height, the
//     hero piece (the first item) laid on the body as tryon lays a top, the
//     other pieces in a column of swatches at the frame's right edge, and
//     the aesthetic's grade over the whole;
//   - the variation stage composes its key's framing again from the same
//     material (keyFramings), never from the locked frame: full length
//     (front, back mirrored, posture keys), full length wide (walking),
//     three-quarter length (side, three-quarter), half length (seated),
//     head and shoulders (close-up) resampled from the model photo's own
//     pixels, and for detail a window of the hero piece's own asset at its
//     full resolution. It moves no limbs: the mark names a posture key as
//     not rendered.
//
// The model photo must hold a standing figure on a plain ground, as
// try-on's model must (lookFigure): any other is refused with NO_FIGURE,
// never staged whole; CheckModel answers the same before a develop holds.
//
// The frame is composed for the output shape and developed at the tier's
// pixels on its long edge; params.restore=1 (a destination larger than the
// tier) develops it at twice that, capped at 8192.
type Lookbook struct{}

// NewLookbook returns the lookbook engine.
func NewLookbook() Lookbook { return Lookbook{} }

// Name is "lookbook".
func (Lookbook) Name() string { return tool.Lookbook }

// Tools lists the tools the registry says it serves: lookbook.
func (Lookbook) Tools() []string { return tool.ServedBy(tool.Lookbook) }

// Can reports whether it serves the tool.
func (Lookbook) Can(name string) bool { return tool.Serves(tool.Lookbook, name) }

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
	// A proof follows only the declared directions (Directions), named in
	// its band; it records what a generating provider would be sent: the
	// look's brief (package lookbrief).
	if b, err := lookbrief.Of(r); err == nil {
		r.Tell(b.Sent())
	} else {
		r.Tell(r.Composed())
	}
	defer func() {
		if p := recover(); p != nil {
			res = engine.Result{}
			err = engine.ProviderError(r.Tool, "The local engine failed on this look.", fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	w, h := lookCanvas(r)
	f, words := frameOf(r)
	var frame *image.NRGBA
	if f.piece {
		frame, err = pieceFrame(ctx, r, w, h)
	} else {
		frame, err = composeLook(ctx, r, w, h, f)
	}
	if err != nil {
		return engine.Result{}, err
	}
	gradeLook(frame, r.Param("aesthetic"))
	if dirs, ok := parseDirection(r.Direction()); ok {
		frame = followAll(frame, dirs, false)
		words += " · " + strings.Join(dirs, ", ")
	}
	if err := markProof(frame, words); err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "The local engine failed on this look.", err)
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(frame)
}

// lookCheckEdge is the long edge a look's model photo is measured at
// before anything is held (CheckModel) and again before a frame is
// composed: whether it holds a figure does not depend on the scale.
const lookCheckEdge = 512

// reasonLookNoFigure is why a look's frames are refused on a model photo
// without a figure the engine can separate.
const reasonLookNoFigure = "The look's model photo has no standing figure on a plain background that the local engine can separate " +
	"(a portrait, a figure before a real scene or a product is not one); its look frames stand studio figures only, as try-on does."

// noFigure is a look's refusal of its model photo, with cause.
func noFigure(cause error) error {
	return &engine.Error{Fault: engine.FaultInput, Tool: tool.Lookbook, Code: engine.CodeNoFigure, Reason: reasonLookNoFigure, Err: cause}
}

// lookFigure measures model at lookCheckEdge as try-on measures its model:
// a standing figure on a plain ground, or the refusal noFigure.
func lookFigure(ctx context.Context, model *image.NRGBA) error {
	if _, err := findMatteOn(picture.FitLong(model, lookCheckEdge), tool.Lookbook, need{plainOnly: true, kind: cutFigure}); err != nil {
		return noFigure(err)
	}
	return alive(ctx)
}

// CheckModel tells whether a look can stand on the model photo data
// (engine.ModelChecker): nil when it holds a standing figure the engine
// can separate, else the input fault every frame of the look would fail
// with (code NO_FIGURE, or the photo's own fault when it cannot be read).
// The look's develops ask it before anything is held.
func (Lookbook) CheckModel(ctx context.Context, data []byte) error {
	model, err := engine.DecodeInput(tool.Lookbook, "model", data)
	if err != nil {
		return err
	}
	return lookFigure(ctx, model)
}

// Preflight answers what CheckModel finds in r's model photo as one
// problem about the role model (engine.Preflighter); none when a look can
// stand on it.
func (l Lookbook) Preflight(ctx context.Context, r engine.Request) ([]engine.Problem, error) {
	data, ok := r.Input("model")
	if !ok {
		return nil, nil
	}
	err := l.CheckModel(ctx, data)
	e, isEngine := errors.AsType[*engine.Error](err)
	switch {
	case err == nil:
		return nil, nil
	case !isEngine || e.Fault != engine.FaultInput:
		return nil, err
	}
	code := e.Code
	if code == "" {
		code = CodeLowConfidence
	}
	return []engine.Problem{{Code: code, Message: e.Reason, Role: "model"}}, nil
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

// composeLook builds a frame of the figure in framing f: the ground (the
// background input covering the frame, or a floor-lit paper sweep in
// params.tone), the dressed model standing in it, mirrored for f.mirror,
// and the other pieces as swatches when f has them.
func composeLook(ctx context.Context, r engine.Request, w, h int, f framing) (*image.NRGBA, error) {
	d, err := dressModel(ctx, r)
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
		// A figure cut above the feet stands before the wall alone.
		ground = sweep(w, h, parseTone(r.Param("tone")), f.bottom >= 1)
	}
	stage(ground, d, f)
	if f.mirror {
		ground = imaging.FlipH(ground)
	}
	if f.swatches {
		swatches(ground, d)
	}
	if f.card {
		if err := poseCard(ground, r); err != nil {
			return nil, engine.ProviderError(r.Tool, "The local engine failed on this look.", err)
		}
	}
	return ground, alive(ctx)
}

// sweep is a paper sweep in colour c: the wall at the colour and, with
// floor, the floor below 70% of the height darkening gently towards the
// camera.
func sweep(w, h int, c [3]uint8, floor bool) *image.NRGBA {
	out := solidCanvas(w, h, c[0], c[1], c[2])
	horizon := int(0.7 * float64(h))
	if !floor {
		horizon = h
	}
	for y := horizon; y < h; y++ {
		f := 1 - 0.12*float64(y-horizon)/float64(max(1, h-horizon))
		row := out.Pix[y*out.Stride : y*out.Stride+w*4]
		for x := 0; x < w; x++ {
			for k := range 3 {
				row[x*4+k] = picture.Clamp8(float64(c[k]) * f)
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
	picture.Parallel(h, func(y0, y1 int) {
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
				p[0] = picture.Clamp8(lift + r*(1-g.lift))
				p[1] = picture.Clamp8(lift + gg*(1-g.lift))
				p[2] = picture.Clamp8(lift + b*(1-g.lift))
			}
		}
	})
}
