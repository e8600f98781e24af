package local

import (
	"context"

	"studio/internal/engine"
)

// checkKey marks a develop that only checks (Check): each tool measures
// its inputs and what it would make of them, and stops before it renders.
type checkKey struct{}

// checking reports whether the develop under ctx only checks.
func checking(ctx context.Context) bool { return ctx.Value(checkKey{}) != nil }

// Check tells, without rendering or keeping anything, whether the local
// engine expects to deliver r: every tool that has to find something in
// its inputs (a subject, a garment, a figure, room in a scene) runs the
// same measures a develop runs before it renders, and answers the input
// fault the develop would fail with, or nil when it would deliver. The
// measures read the inputs at the frame's size, or at the input's own when
// that is smaller (upsampling adds nothing to measure). A failure of the
// engine itself is not the request's: Check answers nil for it. It is what
// a preflight asks of the local engine (DECISIONS §11) and what the
// calibration table measures (TestCalibration).
func (l *Engine) Check(ctx context.Context, r engine.Request) error {
	r.Record = nil
	_, err := l.Run(context.WithValue(ctx, checkKey{}, true), r)
	if engine.IsInput(err) {
		return err
	}
	if err != nil && ctx.Err() != nil {
		return err
	}
	return nil
}

// workSize is the size a tool works at on an iw x ih input: the frame's
// (engine.FrameSize: the canvas w x h and the fw x fh the input fills of
// it), or, when the develop only checks, scaled down so the input is never
// upsampled.
func workSize(ctx context.Context, r engine.Request, iw, ih int) (w, h, fw, fh int) {
	w, h, fw, fh = engine.FrameSize(r.Tier, r.Shape, iw, ih)
	if !checking(ctx) || (fw <= iw && fh <= ih) {
		return w, h, fw, fh
	}
	s := min(float64(iw)/float64(fw), float64(ih)/float64(fh))
	sc := func(v int) int { return max(1, int(float64(v)*s+0.5)) }
	return sc(w), sc(h), min(iw, sc(fw)), min(ih, sc(fh))
}
