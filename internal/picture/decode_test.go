package picture_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"studio/internal/picture"
	"studio/internal/picture/picturetest"
)

// solid is a w x h picture of one colour.
func solid(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func encJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngHeader is a PNG that claims w x h pixels in its IHDR and has nothing behind it.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n\x00\x00\x00\r")
	chunk := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	chunk = binary.BigEndian.AppendUint32(chunk, h)
	chunk = append(chunk, 8, 2, 0, 0, 0)
	b.Write(chunk)
	b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(chunk)))
	return b.Bytes()
}

// withOrientation puts an EXIF orientation into a JPEG.
func withOrientation(jpg []byte, o int) []byte {
	return picturetest.WithJPEGExif(jpg, picturetest.TIFF(binary.BigEndian, o))
}

func TestProbe(t *testing.T) {
	var g bytes.Buffer
	if err := gif.Encode(&g, solid(2, 2, color.NRGBA{A: 255}), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		data       []byte
		mime       string
		w, h       int
		wantReason string // "" for no fault
	}{
		{"jpeg", encJPEG(t, solid(40, 30, color.NRGBA{R: 200, A: 255})), "image/jpeg", 40, 30, ""},
		{"png", encPNG(t, solid(3, 7, color.NRGBA{G: 90, A: 128})), "image/png", 3, 7, ""},
		{"webp", picturetest.WebPLossless, "image/webp", 1, 1, ""},
		{"50 megapixels exactly", pngHeader(10_000, 5_000), "image/png", 10_000, 5_000, ""},
		{"empty", nil, "", 0, 0, "The image is empty."},
		{"not an image", []byte("hello, world"), "", 0, 0, "The image could not be read as jpeg, png or webp."},
		{"gif", g.Bytes(), "", 0, 0, "The image is gif; only jpeg, png and webp are accepted."},
		{"over 50 megapixels", pngHeader(10_000, 10_000), "", 0, 0, "The image is larger than 50 megapixels."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mime, w, h, err := picture.Probe(tt.data)
			if tt.wantReason != "" {
				pe, ok := errors.AsType[*picture.Error](err)
				if !ok || pe.Reason != tt.wantReason {
					t.Fatalf("err = %v; want a picture.Error saying %q", err, tt.wantReason)
				}
				return
			}
			if err != nil || mime != tt.mime || w != tt.w || h != tt.h {
				t.Fatalf("Probe = %q %dx%d %v; want %q %dx%d", mime, w, h, err, tt.mime, tt.w, tt.h)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	red, blue := color.NRGBA{R: 220, G: 20, B: 20, A: 255}, color.NRGBA{R: 20, G: 20, B: 220, A: 255}
	// Stored 32 x 16: the left half red, the right half blue.
	halves := solid(32, 16, blue)
	for y := range 16 {
		for x := range 16 {
			halves.SetNRGBA(x, y, red)
		}
	}
	stored := encJPEG(t, halves)
	translucent := solid(5, 4, color.NRGBA{R: 10, G: 200, B: 30, A: 100})
	tests := []struct {
		name     string
		data     []byte
		w, h     int
		at       image.Point // a pixel to check
		want     color.NRGBA
		tolerant bool // lossy: within 12 a channel
	}{
		{"jpeg as stored", stored, 32, 16, image.Pt(4, 8), red, true},
		{"orientation 1", withOrientation(stored, 1), 32, 16, image.Pt(28, 8), blue, true},
		// 6: turn 90° clockwise to view, so the stored left half is on top.
		{"orientation 6", withOrientation(stored, 6), 16, 32, image.Pt(8, 4), red, true},
		{"orientation 6, bottom", withOrientation(stored, 6), 16, 32, image.Pt(8, 28), blue, true},
		// 3: turn half round, so the stored left half is on the right.
		{"orientation 3", withOrientation(stored, 3), 32, 16, image.Pt(28, 8), red, true},
		// 8: turn 90° anticlockwise, so the stored left half is at the bottom.
		{"orientation 8", withOrientation(stored, 8), 16, 32, image.Pt(8, 28), red, true},
		{"png keeps its alpha, not premultiplied", encPNG(t, translucent), 5, 4, image.Pt(2, 2), color.NRGBA{R: 10, G: 200, B: 30, A: 100}, false},
		{"webp", picturetest.WebPLossless, 1, 1, image.Pt(0, 0), color.NRGBA{A: 255}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := picture.Decode(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if img.Rect != image.Rect(0, 0, tt.w, tt.h) {
				t.Fatalf("bounds %v; want %dx%d at the origin", img.Rect, tt.w, tt.h)
			}
			got := img.NRGBAAt(tt.at.X, tt.at.Y)
			if tt.name == "webp" {
				return // the fixture's colour is the decoder's business; it decoded
			}
			if tt.tolerant {
				for c, v := range []uint8{got.R, got.G, got.B} {
					w := []uint8{tt.want.R, tt.want.G, tt.want.B}[c]
					if d := int(v) - int(w); d < -12 || d > 12 {
						t.Fatalf("pixel %v = %v; want about %v", tt.at, got, tt.want)
					}
				}
				return
			}
			if got != tt.want {
				t.Fatalf("pixel %v = %v; want %v", tt.at, got, tt.want)
			}
		})
	}
}

func TestDecodeRefusesHugeBeforeDecoding(t *testing.T) {
	_, err := picture.Decode(pngHeader(10_000, 10_000)) // nothing behind the header to decode
	pe, ok := errors.AsType[*picture.Error](err)
	if !ok || !strings.Contains(pe.Reason, "50 megapixels") {
		t.Fatalf("err = %v, want the 50 megapixel fault", err)
	}
}

func TestCost(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		perPixel int64
		want     int64
	}{
		{"8-bit RGBA png, nothing beside", encPNG(t, solid(10, 20, color.NRGBA{A: 100})), 0, 10 * 20 * 4},
		{"8-bit RGBA png, two copies", encPNG(t, solid(10, 20, color.NRGBA{A: 100})), 8, 10*20*4 + 10*20*8},
		{"jpeg counts its YCbCr 4:2:0 planes", encJPEG(t, solid(16, 16, color.NRGBA{R: 9, A: 255})), 4, 16*16*3/2 + 16*16*4},
		{"a header alone costs what it claims (8-bit RGB decodes to RGBA)", pngHeader(1000, 500), 8, 1000*500*4 + 1000*500*8},
		{"unreadable costs nothing", []byte("nope"), 8, 0},
		{"empty costs nothing", nil, 12, 0},
	}
	for _, tt := range tests {
		if got := picture.Cost(tt.data, tt.perPixel); got != tt.want {
			t.Errorf("%s: Cost = %d; want %d", tt.name, got, tt.want)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic,
// must refuse with a *picture.Error, and what it accepts must be a real,
// bounded image at the origin whose size Probe agrees with (up to an EXIF
// quarter turn).
func FuzzDecode(f *testing.F) {
	f.Add(encJPEG(f, solid(16, 12, color.NRGBA{R: 200, G: 40, B: 40, A: 255})))
	f.Add(withOrientation(encJPEG(f, solid(16, 12, color.NRGBA{R: 200, A: 255})), 6))
	f.Add(encPNG(f, solid(16, 16, color.NRGBA{G: 200, A: 90})))
	f.Add(encPNG(f, image.NewNRGBA(image.Rect(0, 0, 3, 2))))
	f.Add(picturetest.WebPLossless)
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add(pngHeader(1, 1))
	f.Add(pngHeader(10_000, 10_000))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, pw, ph, perr := picture.Probe(data)
		img, err := picture.Decode(data)
		if err != nil {
			if _, ok := errors.AsType[*picture.Error](err); !ok {
				t.Fatalf("Decode error %v is not a *picture.Error", err)
			}
			return
		}
		if perr != nil {
			t.Fatalf("Decode accepted what Probe refused: %v", perr)
		}
		b := img.Bounds()
		if b.Empty() || b.Min != (image.Point{}) || b.Dx()*b.Dy() > picture.MaxPixels {
			t.Fatalf("decoded bounds %v", b)
		}
		if !(b.Dx() == pw && b.Dy() == ph) && !(b.Dx() == ph && b.Dy() == pw) {
			t.Fatalf("decoded %v, probed %dx%d", b.Size(), pw, ph)
		}
	})
}

// TestDecodeGray: a mask decodes to the luma of its colours over white,
// whatever the decoder gives (NRGBA, premultiplied RGBA, JPEG's YCbCr,
// grey), and the EXIF orientation is applied as Decode applies it.
func TestDecodeGray(t *testing.T) {
	want := func(c color.NRGBA) uint8 {
		over := func(v uint8) float64 { return (float64(v)*float64(c.A) + 255*float64(255-c.A)) / 255 }
		return uint8(0.299*over(c.R) + 0.587*over(c.G) + 0.114*over(c.B) + 0.5)
	}
	for _, c := range []color.NRGBA{{R: 255, G: 255, B: 255, A: 255}, {R: 200, G: 40, B: 10, A: 255}, {R: 200, G: 40, B: 10, A: 128}, {A: 0}} {
		g, err := picture.DecodeGray(encPNG(t, solid(6, 4, c)))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.GrayAt(2, 1).Y; g.Rect.Dx() != 6 || g.Rect.Dy() != 4 || absDiff(got, want(c)) > 1 {
			t.Errorf("%v: %v grey %d; want 6x4 grey %d", c, g.Rect, got, want(c))
		}
	}
	g, err := picture.DecodeGray(encJPEG(t, solid(16, 8, color.NRGBA{R: 255, G: 255, B: 255, A: 255})))
	if err != nil || g.Rect.Dx() != 16 || g.GrayAt(3, 3).Y < 250 {
		t.Errorf("a white JPEG: %v, %v; want white", g, err)
	}
	if _, err := picture.DecodeGray([]byte("nope")); err == nil {
		t.Error("garbage decoded")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
