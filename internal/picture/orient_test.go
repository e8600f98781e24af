package picture

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"studio/internal/picture/picturetest"
)

// gradient is a w x h picture whose pixels say where they are.
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: 200, A: 255})
		}
	}
	return img
}

func encoded(t testing.TB, w, h int) (jpg, pngb []byte) {
	t.Helper()
	var j, p bytes.Buffer
	if err := jpeg.Encode(&j, gradient(w, h), nil); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&p, gradient(w, h)); err != nil {
		t.Fatal(err)
	}
	return j.Bytes(), p.Bytes()
}

func TestSniff(t *testing.T) {
	jpg, pngb := encoded(t, 4, 4)
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"jpeg", jpg, "image/jpeg"},
		{"png", pngb, "image/png"},
		{"webp", picturetest.WebPLossless, "image/webp"},
		{"gif", []byte("GIF89a...."), ""},
		{"riff but not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"short", []byte{0xFF, 0xD8}, ""},
		{"empty", nil, ""},
	} {
		if got := Sniff(tt.data); got != tt.want {
			t.Errorf("%s: Sniff = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestOrientation(t *testing.T) {
	jpg, pngb := encoded(t, 8, 4)
	for o := 1; o <= 8; o++ {
		for _, bo := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
			tiff := picturetest.TIFF(bo, o)
			for name, data := range map[string][]byte{
				"jpeg": picturetest.WithJPEGExif(jpg, tiff),
				"png":  picturetest.WithPNGExif(pngb, tiff),
				"webp": picturetest.ExtendedWebP(tiff),
			} {
				if got := Orientation(data); got != o {
					t.Errorf("%s %v orientation %d: got %d", name, bo, o, got)
				}
			}
		}
	}
	for name, data := range map[string][]byte{
		"jpeg without exif": jpg, "png without exif": pngb, "webp without exif": picturetest.WebPLossless,
		"out of range": picturetest.WithJPEGExif(jpg, picturetest.TIFF(binary.BigEndian, 9)),
		"not tiff":     picturetest.WithJPEGExif(jpg, []byte("XX\x00\x2a\x00\x00\x00\x08")),
		"garbage":      []byte("hello"),
	} {
		if got := Orientation(data); got != 1 {
			t.Errorf("%s: got %d; want 1", name, got)
		}
	}
}

func TestUpright(t *testing.T) {
	src := gradient(3, 2)
	for o, want := range map[int][2]int{1: {3, 2}, 2: {3, 2}, 3: {3, 2}, 4: {3, 2}, 5: {2, 3}, 6: {2, 3}, 7: {2, 3}, 8: {2, 3}, 9: {3, 2}} {
		b := Upright(src, o).Bounds()
		if b.Dx() != want[0] || b.Dy() != want[1] {
			t.Errorf("orientation %d: %dx%d; want %dx%d", o, b.Dx(), b.Dy(), want[0], want[1])
		}
	}
	// Orientation 6: the stored image is turned 90° counter-clockwise; the
	// top-left pixel shown upright is the stored bottom-left.
	up := Upright(src, 6)
	if got, want := color.NRGBAModel.Convert(up.At(0, 0)), color.NRGBAModel.Convert(src.At(0, 1)); got != want {
		t.Errorf("orientation 6 top-left = %v; want %v", got, want)
	}
}

// TestDecodeReadsEveryContainersOrientation: a PNG's eXIf and a WebP's
// EXIF turn the decoded picture as a JPEG's APP1 does, so an input is
// developed as its upload's Info (width and height upright) says.
func TestDecodeReadsEveryContainersOrientation(t *testing.T) {
	jpg, pngb := encoded(t, 8, 4)
	for name, data := range map[string][]byte{
		"jpeg": picturetest.WithJPEGExif(jpg, picturetest.TIFF(binary.BigEndian, 6)),
		"png":  picturetest.WithPNGExif(pngb, picturetest.TIFF(binary.LittleEndian, 8)),
	} {
		img, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if img.Rect != image.Rect(0, 0, 4, 8) {
			t.Errorf("%s: decoded %v; want 4x8, turned upright", name, img.Rect)
		}
	}
	img, err := Decode(picturetest.ExtendedWebP(picturetest.TIFF(binary.LittleEndian, 5)))
	if err != nil || img.Rect != image.Rect(0, 0, 1, 1) {
		t.Errorf("webp: %v %v", img, err)
	}
}

// FuzzTIFF: the IFD walk never reads out of bounds.
func FuzzTIFF(f *testing.F) {
	f.Add(picturetest.TIFF(binary.BigEndian, 6))
	f.Add(picturetest.TIFF(binary.LittleEndian, 8))
	f.Add([]byte("MM\x00\x2a\xff\xff\xff\xff"))
	jpg, _ := encoded(f, 1, 1)
	f.Fuzz(func(t *testing.T, tiff []byte) {
		if o := tiffOrientation(tiff); o < 0 || o > 0xFFFF {
			t.Fatalf("orientation %d", o)
		}
		if o := Orientation(picturetest.WithJPEGExif(jpg, tiff[:min(len(tiff), 60000)])); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
