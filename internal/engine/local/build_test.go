package local_test

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment/segtest"
	"studio/internal/picture"
)

// TestMeasureBuild: a drawn full-length figure's build is read from its
// silhouette (the fixture's head, legs and shoulders, in shares of its
// height); a product, the same figure cut at the thighs, and real
// photographs without a full-length figure (the coffee cup, the cameraman
// cut at the knees, a half-length portrait) are input faults.
func TestMeasureBuild(t *testing.T) {
	b, err := local.MeasureBuild(modelImage(300))
	if err != nil {
		t.Fatal(err)
	}
	// modelImage: crown at 6%, neck 17-21%, legs part at 52%, soles at 95%
	// of the frame; shoulders with the arms 34% wide, hips 24%.
	near := func(got, want, tol float64) bool { return got >= want-tol && got <= want+tol }
	if !near(b.HeadToHeight, 0.13, 0.03) || !near(b.LegToHeight, 0.48, 0.03) || !near(b.ShoulderToHip, 34.0/24, 0.1) ||
		b.Silhouette != "inverted-triangle" || b.Posture != "standing" || b.Confidence < 0.5 || b.Confidence > 1 {
		t.Errorf("build %+v; want head 0.13, legs 0.48, shoulders 1.42 of the hips, inverted-triangle, standing, confident", b)
	}
	half := imaging.Crop(modelImage(300), image.Rect(0, 0, 180, 220))
	refused := map[string]*image.NRGBA{"a product": productImage(240, 300), "a figure cut at the thighs": half}
	for _, name := range []string{"coffee", "cameraman-figure", "grace-hopper"} {
		paths, _ := filepath.Glob(filepath.Join(segtest.PhotosDir(), "*", name+".jpg"))
		if len(paths) != 1 {
			t.Fatalf("photo %s: %v", name, paths)
		}
		data, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := picture.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		refused[name] = picture.FitLong(img, 256)
	}
	for name, img := range refused {
		b, err := local.MeasureBuild(img)
		if !engine.IsInput(err) {
			t.Errorf("%s: build %+v, %v; want an input fault", name, b, err)
		}
	}
}
