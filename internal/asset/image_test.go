package asset

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"studio/internal/errs"
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

// tiffWithOrientation is a TIFF block whose IFD0 holds the orientation,
// in the byte order bo, after a few other entries.
func tiffWithOrientation(bo binary.ByteOrder, orientation int) []byte {
	var b bytes.Buffer
	if bo == binary.LittleEndian {
		b.WriteString("II")
	} else {
		b.WriteString("MM")
	}
	w := func(v any) { _ = binary.Write(&b, bo, v) }
	w(uint16(42))
	w(uint32(8))
	w(uint16(2))
	w([]uint16{0x010F, 2}) // Make, ASCII
	w(uint32(4))
	b.WriteString("Ace\x00")
	w([]uint16{0x0112, 3})
	w(uint32(1))
	w([]uint16{uint16(orientation), 0})
	w(uint32(0))
	return b.Bytes()
}

func withJPEGExif(jpg, tiff []byte) []byte {
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	// An APP0 first, as cameras write, so the walk must skip a segment.
	app0 := []byte{0xFF, 0xE0, 0x00, 0x07, 'J', 'F', 'I', 'F', 0}
	out := append([]byte{}, jpg[:2]...)
	out = append(out, app0...)
	out = append(out, append(seg, payload...)...)
	return append(out, jpg[2:]...)
}

func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// withPNGExif puts an eXIf chunk right after IHDR.
func withPNGExif(p, tiff []byte) []byte {
	ihdrEnd := 8 + 8 + 13 + 4
	out := append([]byte{}, p[:ihdrEnd]...)
	out = append(out, pngChunk("eXIf", tiff)...)
	return append(out, p[ihdrEnd:]...)
}

var webpLossless, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")

// extendedWebP wraps the 1x1 lossless bitstream in a VP8X container with
// an EXIF chunk of odd length (so the padding rule is exercised).
func extendedWebP(tiff []byte) []byte {
	vp8l := webpLossless[12:] // the VP8L chunk, header included
	chunk := func(typ string, data []byte) []byte {
		c := append([]byte(typ), 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(c[4:], uint32(len(data)))
		c = append(c, data...)
		if len(data)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	vp8x := make([]byte, 10)
	vp8x[0] = 0x08 // EXIF present
	body := append([]byte("WEBP"), chunk("VP8X", vp8x)...)
	body = append(body, vp8l...)
	body = append(body, chunk("EXIF", append(tiff, 0))...)
	out := append([]byte("RIFF"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(body)))
	return append(out, body...)
}

func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"jpeg", encodeJPEG(t, 4, 4), MimeJPEG},
		{"png", encodePNG(t, 4, 4), MimePNG},
		{"webp", webpLossless, MimeWebP},
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
	jpg, pngb := encodeJPEG(t, 8, 4), encodePNG(t, 8, 4)
	for o := 1; o <= 8; o++ {
		for _, bo := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
			tiff := tiffWithOrientation(bo, o)
			for name, data := range map[string][]byte{
				"jpeg": withJPEGExif(jpg, tiff),
				"png":  withPNGExif(pngb, tiff),
				"webp": extendedWebP(tiff),
			} {
				if got := Orientation(data); got != o {
					t.Errorf("%s %v orientation %d: got %d", name, bo, o, got)
				}
			}
		}
	}
	for name, data := range map[string][]byte{
		"jpeg without exif": jpg, "png without exif": pngb, "webp without exif": webpLossless,
		"out of range": withJPEGExif(jpg, tiffWithOrientation(binary.BigEndian, 9)),
		"not tiff":     withJPEGExif(jpg, []byte("XX\x00\x2a\x00\x00\x00\x08")),
		"garbage":      []byte("hello"),
	} {
		if got := Orientation(data); got != 1 {
			t.Errorf("%s: got %d; want 1", name, got)
		}
	}
}

func TestInspect(t *testing.T) {
	rotated := withJPEGExif(encodeJPEG(t, 8, 4), tiffWithOrientation(binary.BigEndian, 6))
	webpRotated := extendedWebP(tiffWithOrientation(binary.LittleEndian, 8))
	huge := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", []byte{0, 0, 0x1f, 0x40, 0, 0, 0x1b, 0x58, 8, 2, 0, 0, 0})...)
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
		{"webp", webpLossless, Info{MimeWebP, 1, 1, 1}, "", ""},
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
	data := withJPEGExif(encodeJPEG(t, 1200, 600), tiffWithOrientation(binary.BigEndian, 6))
	img, err := Decode(MimeJPEG, data)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := Preview(img, Orientation(data), PreviewEdge)
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
	if _, err := Decode(MimeWebP, webpLossless); err != nil {
		t.Errorf("webp: %v", err)
	}
}

func TestUpright(t *testing.T) {
	src := testImage(3, 2)
	for o, want := range map[int][2]int{1: {3, 2}, 2: {3, 2}, 3: {3, 2}, 4: {3, 2}, 5: {2, 3}, 6: {2, 3}, 7: {2, 3}, 8: {2, 3}} {
		b := Upright(src, o).Bounds()
		if b.Dx() != want[0] || b.Dy() != want[1] {
			t.Errorf("orientation %d: %dx%d; want %dx%d", o, b.Dx(), b.Dy(), want[0], want[1])
		}
	}
	// Orientation 6: the stored image is turned 90° counter-clockwise; the
	// top-left pixel shown upright is the stored bottom-left.
	up := Upright(src, 6)
	if got, want := color.RGBAModel.Convert(up.At(0, 0)), color.RGBAModel.Convert(src.At(0, 1)); got != want {
		t.Errorf("orientation 6 top-left = %v; want %v", got, want)
	}
}

// FuzzInspect: no input makes the sniffer, the EXIF reader or the header
// checks panic, and whatever is accepted is sane.
func FuzzInspect(f *testing.F) {
	f.Add(encodeJPEG(f, 4, 4))
	f.Add(withJPEGExif(encodeJPEG(f, 4, 4), tiffWithOrientation(binary.BigEndian, 6)))
	f.Add(withPNGExif(encodePNG(f, 4, 4), tiffWithOrientation(binary.LittleEndian, 3)))
	f.Add(extendedWebP(tiffWithOrientation(binary.LittleEndian, 8)))
	f.Add(webpLossless)
	f.Add([]byte("GIF89a"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		o := Orientation(data)
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

// FuzzTIFF: the IFD walk never reads out of bounds.
func FuzzTIFF(f *testing.F) {
	f.Add(tiffWithOrientation(binary.BigEndian, 6))
	f.Add(tiffWithOrientation(binary.LittleEndian, 8))
	f.Add([]byte("MM\x00\x2a\xff\xff\xff\xff"))
	jpg := encodeJPEG(f, 1, 1)
	f.Fuzz(func(t *testing.T, tiff []byte) {
		if o := tiffOrientation(tiff); o < 0 || o > 0xFFFF {
			t.Fatalf("orientation %d", o)
		}
		if o := Orientation(withJPEGExif(jpg, tiff[:min(len(tiff), 60000)])); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

func TestInspectErrorsAreWireErrors(t *testing.T) {
	_, err := Inspect([]byte("nope"))
	if !errors.Is(err, errs.BadForm) {
		t.Errorf("got %v; want BAD_FORM", err)
	}
}
