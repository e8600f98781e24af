package segment_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"studio/internal/engine/segment/segtest"
)

// The composites of the measured set (segtest.Photos) that were delivered
// flawed, looked at by eye: a bag with brick kept above it and inside its
// handle, a sneaker with gravel along its upper edge, a figure in a garage
// cut to its top. Each is now separated cleanly or refused, never
// delivered flawed. They need Debian's python3-skimage textures and are
// skipped without them (and under the race detector, for their size).
func TestPhotoCompositesAreSeparatedCleanlyOrRefused(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("full-size photographs")
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		modcache = filepath.Join(build.Default.GOPATH, "pkg", "mod")
	}
	want := []string{"bag-on-brick", "sneaker-on-gravel", "figure-in-garage"}
	found := 0
	for _, p := range segtest.Photos(segtest.Dirs(modcache)) {
		if !slices.Contains(want, p.Name) {
			continue
		}
		found++
		t.Run(p.Name, func(t *testing.T) {
			cut, m := separate(t, p.Img)
			iou := segtest.IoU(m, p.Truth)
			t.Logf("IoU %.3f, %v", iou, cut.Confidence)
			if cut.Confidence.Confident() && iou < 0.96 {
				t.Fatalf("delivered with IoU %.3f < 0.96: %v", iou, cut.Confidence)
			}
		})
	}
	if found == 0 {
		t.Skip("no sample textures: apt-get install python3-skimage")
	}
}
