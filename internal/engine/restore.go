package engine

import (
	"context"
	"fmt"
	"image"
)

// Enlarger is a real restoration model (fal's upscale model) that an
// engine whose provider answers below a frame's pixels (the image
// endpoint, at most 1536 px) sends its answer through, instead of
// resampling it (issue 27, item 5). The wiring hands one to the engine
// that can use it (imageapi.Engine.SetEnlarger), so that no engine
// imports another.
type Enlarger interface {
	// Enlarge sends img (the answer, decoded) through the restoration
	// model, at the model's whole scale (2 or 4) that takes its long edge
	// to long, and returns the restored picture, no larger than the frame
	// (RestoreSource). Before it sends, it tells r's record sent with the
	// pass added (Restoration), so the job shows the second request. Its
	// errors are the restoring provider's failures (its cancel sent when
	// the request fails after it was taken).
	Enlarge(ctx context.Context, r Request, sent Sent, img *image.NRGBA, long int) (*image.NRGBA, error)
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
// a long edge of have to want, or within the 3% a resample makes up.
func RestoreScale(have, want int) int {
	if !Undersized(2*have, want) {
		return 2
	}
	return 4
}

// RestoreSource is the long edge the restoration model is sent for an
// answer whose long edge is have, for a frame whose long edge is want,
// and the scale it is asked: the answer itself when its whole scale lands
// within 3% of the frame, else the answer resampled to want/scale, so
// that the restored picture is the frame's size. A 1536 px answer taken
// x4 to a 4096 px frame would decode to 6144 px, 2.25 frames, beyond
// the develop's memory cost (MemoryCost: WorkingFrames frames); sent at
// 1024 px it decodes to one frame.
func RestoreSource(have, want int) (long, scale int) {
	scale = RestoreScale(have, want)
	if have*scale*100 <= want*103 {
		return have, scale
	}
	return (want + scale - 1) / scale, scale
}

// RestoredMost is the largest long edge a restoration pass may answer
// for a frame whose long edge is want (RestoreSource's, within 3%): a
// larger answer is refused before it is decoded, so the pass stays in the
// develop's memory cost.
func RestoredMost(want int) int { return want * 103 / 100 }

// Restoration is the restoration pass as the record on the job keeps it
// beside the first request's pictures (Sent.Refs): the restoring model,
// the picture it was sent and the scale asked, so an operator sees the
// second request.
func Restoration(model string, w, h, scale int) SentRef {
	return SentRef{Role: "restoration", Label: model,
		Text: fmt.Sprintf("the %dx%d answer, enlarged x%d to %dx%d", w, h, scale, w*scale, h*scale)}
}
