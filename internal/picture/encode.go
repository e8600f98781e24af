package picture

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"

	"github.com/disintegration/imaging"
)

// JPEGQuality is the quality of every JPEG the studio writes as a result.
const JPEGQuality = 90

// EncodeJPEG writes img as a JPEG at JPEGQuality, composited over white
// where it is not opaque (JPEG has no alpha; img is not changed).
func EncodeJPEG(img *image.NRGBA) ([]byte, error) {
	img = Opaque(img)
	// An opaque NRGBA has the bytes of an RGBA, which the encoder converts fastest.
	rgba := &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
	var buf bytes.Buffer
	buf.Grow(img.Rect.Dx() * img.Rect.Dy() / 4)
	if err := jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodePNG writes img as a PNG with its alpha, at the fastest compression.
func EncodePNG(img *image.NRGBA) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Flatten composites img over white, in place, and returns it.
func Flatten(img *image.NRGBA) *image.NRGBA {
	p := img.Pix
	for i := 0; i+3 < len(p); i += 4 {
		a := uint32(p[i+3])
		if a == 255 {
			continue
		}
		p[i] = uint8((uint32(p[i])*a + 255*(255-a) + 127) / 255)
		p[i+1] = uint8((uint32(p[i+1])*a + 255*(255-a) + 127) / 255)
		p[i+2] = uint8((uint32(p[i+2])*a + 255*(255-a) + 127) / 255)
		p[i+3] = 255
	}
	return img
}

// Opaque returns img when it is opaque, else a copy of it composited over white.
func Opaque(img *image.NRGBA) *image.NRGBA {
	if !HasAlpha(img) {
		return img
	}
	return Flatten(imaging.Clone(img))
}

// HasAlpha reports whether img has any pixel that is not opaque.
func HasAlpha(img *image.NRGBA) bool {
	p := img.Pix
	for i := 3; i < len(p); i += 4 {
		if p[i] != 255 {
			return true
		}
	}
	return false
}
