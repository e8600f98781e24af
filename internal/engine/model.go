package engine

import "context"

// CodeNoFigure is the code of a picture without the figure a tool needs:
// extract-build's full-length figure, or the figure a look stands (its
// errorCode when a look frame fails on it, and the 422 a look's develop is
// refused with before any hold).
const CodeNoFigure = "NO_FIGURE"

// ModelChecker is an engine that can tell from a look's model photo alone
// whether it can stage the look's frames on it (the local lookbook: a
// standing figure it can separate from a plain ground, as try-on's model).
// CheckModel reads the photo's bytes and answers nil when it can, or the
// input fault a frame of the look would fail with (code CodeNoFigure when
// the photo holds no such figure).
type ModelChecker interface {
	CheckModel(ctx context.Context, model []byte) error
}

// CheckModel asks the engine within e that serves tool whether it can
// stage a look on the model photo model: nil for an engine that does not
// say (a generating provider draws any model it is sent).
func CheckModel(ctx context.Context, e Engine, tool string, model []byte) error {
	if c, ok := Serving(e, tool).(ModelChecker); ok {
		return c.CheckModel(ctx, model)
	}
	return nil
}
