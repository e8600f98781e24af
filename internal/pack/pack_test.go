package pack

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"studio/internal/imagemem"
	"studio/internal/picture/picturetest"
)

func TestFittedMatchesImaging(t *testing.T) {
	for _, c := range [][4]int{{40, 30, 32, 32}, {30, 40, 32, 32}, {40, 30, 100, 100}, {400, 300, 128, 128}, {1, 999, 10, 10}, {999, 1, 10, 10}, {7, 3, 5, 5}} {
		w, h := fitted(c[0], c[1], c[2], c[3])
		img := imaging.Fit(image.NewNRGBA(image.Rect(0, 0, c[0], c[1])), c[2], c[3], imaging.Box)
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("%v: fitted %dx%d; imaging %dx%d", c, w, h, b.Dx(), b.Dy())
		}
	}
}

func TestNames(t *testing.T) {
	n := namer{}
	got := []string{
		n.name("", baseName(Entry{ID: "a", Name: "Look"}), "jpg"),
		n.name("", baseName(Entry{ID: "b", Name: "look"}), "jpg"),
		n.name("", baseName(Entry{ID: "c", Name: "../../etc/passwd"}), "png"),
		n.name("", baseName(Entry{ID: "d", Name: "  \x00 "}), "webp"),
		n.name("thumb", baseName(Entry{ID: "a", Name: "Look"}), "jpg"),
	}
	want := []string{"Look.jpg", "look (2).jpg", "-..-etc-passwd.png", "d.webp", "thumb/Look.jpg"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("names %q; want %q", got, want)
	}
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	for in, want := range map[string]string{"Spring drop": "Spring-drop.zip", "": "pack-20261122-093000.zip", "été/..": "t.zip", "\"x\"": "x.zip"} {
		if got := filename(in, now); got != want {
			t.Errorf("filename(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestEstimateIsAnUpperBound(t *testing.T) {
	e := []Entry{{ID: "a", Size: 1000, Width: 4000, Height: 3000}}
	if got := Estimate(e, nil); got < 1000 {
		t.Errorf("estimate %d below the bytes", got)
	}
	if got := Estimate(e, []Size{{Name: "s", Width: 100, Height: 100}}); got < 1000+100*75*4 {
		t.Errorf("estimate %d below a raw rendition", got)
	}
}

// TestRenditionsAreUpright: a frame whose EXIF says it is turned (a JPEG's
// APP1 or a PNG's eXIf) gets renditions as it is meant to be seen.
func TestRenditionsAreUpright(t *testing.T) {
	stored := image.NewNRGBA(image.Rect(0, 0, 80, 40)) // landscape as stored
	var j, p bytes.Buffer
	if err := jpeg.Encode(&j, stored, nil); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&p, stored); err != nil {
		t.Fatal(err)
	}
	tiff := picturetest.TIFF(binary.BigEndian, 6) // turn 90° to view: portrait
	blobs := map[string][]byte{
		"a": picturetest.WithJPEGExif(j.Bytes(), tiff),
		"b": picturetest.WithPNGExif(p.Bytes(), tiff),
	}
	open := func(_ context.Context, key string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(blobs[key])), nil
	}
	entries := []Entry{{ID: "a", Name: "jpeg", Mime: "image/jpeg", BlobKey: "a"}, {ID: "b", Name: "png", Mime: "image/png", BlobKey: "b"}}
	var zipped bytes.Buffer
	if err := WriteArchive(context.Background(), &zipped, entries, []Size{{Name: "s", Width: 20, Height: 20}}, open, imagemem.New(0)); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped.Bytes()), int64(zipped.Len()))
	if err != nil {
		t.Fatal(err)
	}
	renditions := 0
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "s/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(rc)
		rc.Close()
		if err != nil || cfg.Width != 10 || cfg.Height != 20 {
			t.Errorf("%s: %dx%d (%v); want 10x20, upright", f.Name, cfg.Width, cfg.Height, err)
		}
		renditions++
	}
	if renditions != 2 {
		t.Fatalf("%d renditions; want 2", renditions)
	}
}
