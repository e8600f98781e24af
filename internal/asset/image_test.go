package asset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"studio/internal/errs"
	"studio/internal/picture"
	"studio/internal/picture/picturetest"
)

func testImage(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x), uint8(y), 200, 255
		}
	}
	return img
}

func encodeJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestInspect(t *testing.T) {
	rotated := picturetest.WithJPEGExif(encodeJPEG(t, 8, 4), picturetest.TIFF(binary.BigEndian, 6))
	webpRotated := picturetest.ExtendedWebP(picturetest.TIFF(binary.LittleEndian, 8))
	huge := append([]byte("\x89PNG\r\n\x1a\n"), picturetest.PNGChunk("IHDR", []byte{0, 0, 0x1f, 0x40, 0, 0, 0x1b, 0x58, 8, 2, 0, 0, 0})...)
	for _, tt := range []struct {
		name        string
		data        []byte
		want        Info
		wantCode    string
		wantMessage string
	}{
		{"jpeg", encodeJPEG(t, 8, 4), Info{MimeJPEG, 8, 4, 1}, "", ""},
		{"rotated jpeg", rotated, Info{MimeJPEG, 4, 8, 6}, "", ""},
		{"png", encodePNG(t, 3, 5), Info{MimePNG, 3, 5, 1}, "", ""},
		{"webp", picturetest.WebPLossless, Info{MimeWebP, 1, 1, 1}, "", ""},
		{"rotated webp", webpRotated, Info{MimeWebP, 1, 1, 8}, "", ""},
		{"empty", nil, Info{}, "EMPTY_IMAGE", ""},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), Info{}, "BAD_FORM", "GIF is not accepted"},
		{"heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00"), Info{}, "BAD_FORM", "HEIC is not accepted"},
		{"avif", []byte("\x00\x00\x00\x18ftypavif\x00\x00\x00\x00"), Info{}, "BAD_FORM", "AVIF is not accepted"},
		{"text", []byte("hello"), Info{}, "BAD_FORM", "must be a JPEG, PNG or WebP"},
		{"broken header", []byte("\x89PNG\r\n\x1a\nbroken"), Info{}, "BAD_FORM", "could not be read"},
		{"8000x7000 (56 MP)", huge, Info{}, "IMAGE_TOO_LARGE", "50 megapixels"},
		{"over 12 MB", append(encodeJPEG(t, 2, 2), make([]byte, MaxBytes)...), Info{}, "IMAGE_TOO_LARGE", "12 MB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Inspect(tt.data)
			if tt.wantCode == "" {
				if err != nil || got != tt.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			e, ok := errs.As(err)
			if !ok || e.Code != tt.wantCode || !bytes.Contains([]byte(e.Message), []byte(tt.wantMessage)) {
				t.Errorf("got %v; want %s (%q)", err, tt.wantCode, tt.wantMessage)
			}
		})
	}
}

func TestDecodeAndPreview(t *testing.T) {
	data := picturetest.WithJPEGExif(encodeJPEG(t, 1200, 600), picturetest.TIFF(binary.BigEndian, 6))
	img, err := Decode(MimeJPEG, data)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := Preview(img, picture.Orientation(data), PreviewEdge)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(prev))
	if err != nil || cfg.Width != 512 || cfg.Height != 1024 {
		t.Errorf("preview %dx%d, %v; want 512x1024 (upright, long edge 1024)", cfg.Width, cfg.Height, err)
	}
	if _, err := Decode("image/gif", data); err == nil {
		t.Error("decoded a type that is not accepted")
	}
	if _, err := Decode(MimeWebP, picturetest.WebPLossless); err != nil {
		t.Errorf("webp: %v", err)
	}
}

// FuzzInspect: no input makes the sniffer, the EXIF reader or the header
// checks panic, and whatever is accepted is sane.
func FuzzInspect(f *testing.F) {
	f.Add(encodeJPEG(f, 4, 4))
	f.Add(picturetest.WithJPEGExif(encodeJPEG(f, 4, 4), picturetest.TIFF(binary.BigEndian, 6)))
	f.Add(picturetest.WithPNGExif(encodePNG(f, 4, 4), picturetest.TIFF(binary.LittleEndian, 3)))
	f.Add(picturetest.ExtendedWebP(picturetest.TIFF(binary.LittleEndian, 8)))
	f.Add(picturetest.WebPLossless)
	f.Add([]byte("GIF89a"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		o := picture.Orientation(data)
		if o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		in, err := Inspect(data)
		if err != nil {
			if _, ok := errs.As(err); !ok {
				t.Fatalf("Inspect error %v is not a wire error", err)
			}
			return
		}
		if in.Mime != Sniff(data) || in.Width <= 0 || in.Height <= 0 || int64(in.Width)*int64(in.Height) > MaxPixels {
			t.Fatalf("accepted %+v", in)
		}
	})
}

func TestInspectErrorsAreWireErrors(t *testing.T) {
	_, err := Inspect([]byte("nope"))
	if !errors.Is(err, errs.BadForm) {
		t.Errorf("got %v; want BAD_FORM", err)
	}
}
