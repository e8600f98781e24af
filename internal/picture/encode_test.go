package picture_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"studio/internal/picture"
)

func TestEncode(t *testing.T) {
	half := solid(8, 8, color.NRGBA{R: 0, G: 0, B: 0, A: 128}) // black at half alpha
	opaque := solid(8, 8, color.NRGBA{R: 30, G: 90, B: 200, A: 255})
	tests := []struct {
		name   string
		encode func(*image.NRGBA) ([]byte, error)
		img    *image.NRGBA
		decode func([]byte) (image.Image, error)
		want   color.NRGBA // the centre pixel, read back
		lossy  bool
	}{
		{"jpeg of an opaque picture", picture.EncodeJPEG, opaque, decodeJPEG, color.NRGBA{R: 30, G: 90, B: 200, A: 255}, true},
		// Black at half alpha over white is mid grey.
		{"jpeg flattens over white", picture.EncodeJPEG, half, decodeJPEG, color.NRGBA{R: 127, G: 127, B: 127, A: 255}, true},
		{"png keeps the alpha", picture.EncodePNG, half, decodePNG, color.NRGBA{A: 128}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]byte(nil), tt.img.Pix...)
			data, err := tt.encode(tt.img)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, tt.img.Pix) {
				t.Fatal("encoding changed the picture")
			}
			back, err := tt.decode(data)
			if err != nil {
				t.Fatal(err)
			}
			got := color.NRGBAModel.Convert(back.At(4, 4)).(color.NRGBA)
			if back.Bounds().Dx() != 8 || back.Bounds().Dy() != 8 || !near(got, tt.want, tt.lossy) {
				t.Fatalf("read back %v at %v; want %v", back.Bounds(), got, tt.want)
			}
		})
	}
}

func decodeJPEG(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }
func decodePNG(b []byte) (image.Image, error)  { return png.Decode(bytes.NewReader(b)) }

// near compares colours exactly, or within 4 a channel when lossy.
func near(a, b color.NRGBA, lossy bool) bool {
	if !lossy {
		return a == b
	}
	d := func(x, y uint8) bool { return int(x)-int(y) <= 4 && int(y)-int(x) <= 4 }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && a.A == b.A
}

func TestOpaque(t *testing.T) {
	opaque := solid(3, 3, color.NRGBA{R: 1, G: 2, B: 3, A: 255})
	if picture.Opaque(opaque) != opaque {
		t.Error("Opaque copied an opaque picture")
	}
	cut := solid(3, 3, color.NRGBA{R: 200, G: 0, B: 0, A: 0})
	flat := picture.Opaque(cut)
	if flat == cut || cut.Pix[3] != 0 {
		t.Fatal("Opaque changed the cut-out in place")
	}
	if got := flat.NRGBAAt(1, 1); got != (color.NRGBA{R: 255, G: 255, B: 255, A: 255}) {
		t.Errorf("a transparent pixel flattened to %v; want white", got)
	}
	if picture.HasAlpha(flat) || !picture.HasAlpha(cut) {
		t.Error("HasAlpha disagrees")
	}
}
