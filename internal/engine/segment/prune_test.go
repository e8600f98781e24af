package segment

import (
	"image/color"
	"testing"

	"studio/internal/engine/segment/segtest"
)

// A bag on a grey brick wall whose cut kept a block of the wall above the
// bag and one inside its handle (as GrabCut does when the subject's colour
// model learns a grey component from them): pruning gives them back.
func TestPrunesFragmentsOfTheGroundTheSubjectModelLearned(t *testing.T) {
	w, h := 200, 150
	cov := segtest.Coverage(segtest.Bag, w, h)
	fill := segtest.Fill(color.NRGBA{R: 168, G: 116, B: 70, A: 255}, nil, 0, w, h)
	img := segtest.Composite(segtest.Brick(w, h), fill, cov, w, h, 0.3, 8)
	truth := segtest.Mask(cov)
	work := downsample(img, 512)
	if work.w != w || work.h != h {
		t.Fatalf("working size %dx%d", work.w, work.h)
	}
	fragment := segtest.Union(segtest.Polygon(0.3, 0.34, 0.38, 0.34, 0.38, 0.43, 0.3, 0.43), // on the bag's top edge
		segtest.Polygon(0.45, 0.3, 0.55, 0.3, 0.55, 0.43, 0.45, 0.43)) // inside the handle loop
	frag := segtest.Mask(segtest.Coverage(fragment, w, h))
	fg := make([]bool, w*h)
	for i := range fg {
		fg[i] = truth[i] || frag[i]
	}
	before := segtest.IoU(fg, truth)
	out := newSolver(work).pruneGround(fg, false)
	after := segtest.IoU(out, truth)
	if before > 0.95 || after < 0.97 {
		t.Fatalf("IoU before pruning %.3f (want a flawed cut), after %.3f (want 0.97)", before, after)
	}
	// A clean cut is left alone.
	if iou := segtest.IoU(newSolver(work).pruneGround(truth, false), truth); iou < 0.97 {
		t.Fatalf("pruning a clean cut: IoU %.3f", iou)
	}
}
