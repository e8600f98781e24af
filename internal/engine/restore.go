package engine

import (
	"context"
	"image"
)

// Enlarger is a real restoration model (fal's upscale model) that an
// engine whose provider answers below a frame's pixels (the image
// endpoint, at most 1536 px) sends its answer through, instead of
// resampling it (issue 27, item 5). The wiring hands one to the engine
// that can use it (imageapi.Engine.SetEnlarger), so that no engine
// imports another.
type Enlarger interface {
	// Enlarge sends data (an encoded picture) through the restoration
	// model, enlarged by the model's whole scale (2 or 4) that takes its
	// long edge to long or past it, and returns the restored picture. Its
	// errors are the restoring provider's failures (its cancel sent when
	// the request fails after it was taken); tool names the develop.
	Enlarge(ctx context.Context, tool string, data []byte, long int) (*image.NRGBA, error)
}

// Restoring is an engine that sends an answer smaller than the frame
// through a restoration model (an Enlarger) for the tools Restores names:
// a develop of them is charged at the tier asked, not capped at the
// engine's native tier (tool.Tool.Native), and its note is the one that
// says so (tool.Tool.Restored).
type Restoring interface {
	Restores(tool string) bool
}

// Restores reports whether e, the engine serving tool, enlarges its
// answers through a restoration model (Restoring).
func Restores(e Engine, tool string) bool {
	r, ok := e.(Restoring)
	return ok && r.Restores(tool)
}

// Undersized reports whether an answer whose long edge is have falls
// short of a frame whose long edge is want, beyond the 3% a resample
// may make up: such an answer goes through the restoration pass.
func Undersized(have, want int) bool { return have*100 < want*97 }

// RestoreScale is the restoration model's whole scale (2 or 4) that takes
// a long edge of have to want or past it.
func RestoreScale(have, want int) int {
	if 2*have >= want {
		return 2
	}
	return 4
}
