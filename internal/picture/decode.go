package picture

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // registers the decoders of the accepted types
	_ "image/png"

	_ "golang.org/x/image/webp" // WebP is decoded, never encoded

	"studio/internal/imagemem"
)

// MaxPixels is the largest image decoded: DECISIONS §1 refuses images over
// 50 megapixels before decoding them.
const MaxPixels = 50_000_000

// Error is why some bytes are not a picture the studio reads: Reason is
// one plain sentence for whoever sent them, Err the decoder's own words.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "picture: " + e.Reason + ": " + e.Err.Error()
	}
	return "picture: " + e.Reason
}

func (e *Error) Unwrap() error { return e.Err }

// Probe reads an image's header without decoding its pixels: its media
// type and size. Only jpeg, png and webp are accepted, up to MaxPixels.
func Probe(data []byte) (mime string, width, height int, err error) {
	if len(data) == 0 {
		return "", 0, 0, &Error{Reason: "The image is empty."}
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", 0, 0, &Error{Reason: "The image could not be read as jpeg, png or webp.", Err: err}
	}
	switch format {
	case "jpeg", "png", "webp":
	default:
		return "", 0, 0, &Error{Reason: fmt.Sprintf("The image is %s; only jpeg, png and webp are accepted.", format)}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return "", 0, 0, &Error{Reason: "The image has no pixels."}
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return "", 0, 0, &Error{Reason: "The image is larger than 50 megapixels."}
	}
	return "image/" + format, cfg.Width, cfg.Height, nil
}

// Decode decodes an image Probe accepts into non-premultiplied RGBA at the
// origin, its EXIF orientation applied (Orientation: from a JPEG's APP1,
// a PNG's eXIf or a WebP's EXIF chunk, as the upload's Inspect reads it).
func Decode(data []byte) (*image.NRGBA, error) {
	if _, _, _, err := Probe(data); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{Reason: "The image could not be decoded.", Err: err}
	}
	img = Upright(img, Orientation(data))
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n, nil
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out, nil
}

// Cost is the memory decoding data takes: its decoded pixels as the
// standard decoders return them (imagemem.Decoded) and perPixel bytes more
// a pixel for the copies the caller works on (Decode's NRGBA copy is 4, an
// EXIF rotation 4 more). Bytes that do not read cost nothing: they fail at
// decode.
func Cost(data []byte, perPixel int64) int64 {
	w, h, size, err := imagemem.Decoded(data)
	if err != nil {
		return 0
	}
	return size + int64(w)*int64(h)*perPixel
}
