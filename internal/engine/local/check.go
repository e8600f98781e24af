package local

import (
	"context"
	"errors"

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

// CodeLowConfidence is a preflight problem's code when the local engine's
// measures say it would refuse the inputs (a subject, garment or figure it
// cannot separate with confidence, no room in a scene...): the develop
// would fail with the problem's message, its hold voided.
const CodeLowConfidence = "LOW_CONFIDENCE"

// Preflight answers a preflight (engine.Preflighter, DECISIONS §11): the
// input fault Check finds, as one problem with the reason the develop
// would fail with, under the fault's own code or CodeLowConfidence; none
// when the engine expects to deliver. A failure of the engine itself is
// not foreseen (Check answers nil for it); a context that ended is an error.
func (l *Engine) Preflight(ctx context.Context, r engine.Request) ([]engine.Problem, error) {
	err := l.Check(ctx, r)
	if err == nil {
		return nil, nil
	}
	e, ok := errors.AsType[*engine.Error](err)
	if !ok || e.Fault != engine.FaultInput {
		return nil, err
	}
	code := e.Code
	if code == "" {
		code = CodeLowConfidence
	}
	return []engine.Problem{{Code: code, Message: e.Reason}}, nil
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
