package segment_test

import (
	"context"
	"path/filepath"
	"testing"

	"studio/internal/engine/segment"
	"studio/internal/engine/segment/segtest"
)

// TestBeyondCroppedCup: the calibration set's coffee cup cropped so that
// the frame cuts its saucer is cut (confidently) as the cup alone, the
// saucer given to the table; the cut with the bottom open finds the cup
// and the saucer running off the frame, and Beyond says how much it adds.
// The whole cup on its saucer adds nothing: its cut is the whole subject.
func TestBeyondCroppedCup(t *testing.T) {
	if raceEnabled {
		t.Skip("two graph cuts of real photographs: seconds each under the race detector")
	}
	dir := filepath.Join(segtest.PhotosDir(), "skimage")
	for _, c := range []struct {
		name string
		cut  bool // the frame cuts the product
	}{{"coffee-cropped", true}, {"coffee", false}} {
		img := segtest.Load(c.name+".jpg", []string{dir})
		if img == nil {
			t.Fatalf("%s: no photograph", c.name)
		}
		cut, err := segment.Separate(context.Background(), segtest.NRGBA(img), segment.Options{WorkEdge: 256})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: beyond %.2f, %v", c.name, cut.Beyond, cut.Confidence)
		if got := cut.Beyond >= 0.6; got != c.cut || !cut.Confidence.Confident() {
			t.Errorf("%s: beyond %.2f (%v); want the frame cutting it %v, a confident cut", c.name, cut.Beyond, cut.Confidence, c.cut)
		}
	}
}
