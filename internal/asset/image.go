package asset

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"studio/internal/errs"
	"studio/internal/picture"
)

// Limits on an uploaded image (SPEC §8, DECISIONS §1).
const (
	MaxMB     = 12
	MaxBytes  = MaxMB << 20       // 12 MiB
	MaxPixels = picture.MaxPixels // refused before decoding
)

// The image types an upload may be, by their sniffed bytes.
const (
	MimeJPEG = "image/jpeg"
	MimePNG  = "image/png"
	MimeWebP = "image/webp"
)

// Accepted lists the accepted image types, as BAD_FORM names them.
var Accepted = []string{MimeJPEG, MimePNG, MimeWebP}

// Sniff names the image type of data from its leading bytes
// (picture.Sniff), or "" when it is none of the accepted types. The
// declared type of a part is never trusted.
func Sniff(data []byte) string { return picture.Sniff(data) }

// otherType names a well-known image type that is not accepted, so the
// refusal can say what was sent.
func otherType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "GIF"
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		switch string(data[8:12]) {
		case "avif", "avis":
			return "AVIF"
		case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1":
			return "HEIC"
		}
	case bytes.HasPrefix(data, []byte("BM")):
		return "BMP"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "TIFF"
	}
	return ""
}

// Info is what an upload's bytes turned out to be.
type Info struct {
	Mime        string
	Width       int // as displayed, after EXIF orientation
	Height      int
	Orientation int // EXIF orientation 1-8; 1 when absent
}

// Inspect checks data is an accepted image of at most MaxBytes and
// MaxPixels and returns its type and displayed size. It reads only the
// header: the pixel count is refused before anything is decoded.
func Inspect(data []byte) (Info, error) {
	if len(data) == 0 {
		return Info{}, ErrEmptyImage
	}
	if len(data) > MaxBytes {
		return Info{}, ErrTooLarge
	}
	mime := Sniff(data)
	if mime == "" {
		if name := otherType(data); name != "" {
			return Info{}, errs.Msg(ErrNotAnImage, name+" is not accepted: the file must be a JPEG, PNG or WebP image.")
		}
		return Info{}, ErrNotAnImage
	}
	cfg, err := decodeConfig(mime, data)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, errs.Wrap(ErrUnreadable, err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return Info{}, errs.Msg(ErrTooLarge, "The image has more than 50 megapixels.")
	}
	in := Info{Mime: mime, Width: cfg.Width, Height: cfg.Height, Orientation: picture.Orientation(data)}
	if in.Orientation >= 5 {
		in.Width, in.Height = in.Height, in.Width
	}
	return in, nil
}

func decodeConfig(mime string, data []byte) (image.Config, error) {
	r := bytes.NewReader(data)
	switch mime {
	case MimeJPEG:
		return jpeg.DecodeConfig(r)
	case MimePNG:
		return png.DecodeConfig(r)
	case MimeWebP:
		return webp.DecodeConfig(r)
	}
	return image.Config{}, errors.New("asset: no decoder")
}

// Decode decodes an image Inspect accepted, as stored (no orientation applied).
func Decode(mime string, data []byte) (image.Image, error) {
	var r io.Reader = bytes.NewReader(data)
	switch mime {
	case MimeJPEG:
		return jpeg.Decode(r)
	case MimePNG:
		return png.Decode(r)
	case MimeWebP:
		return webp.Decode(r)
	}
	return nil, errors.New("asset: no decoder")
}
