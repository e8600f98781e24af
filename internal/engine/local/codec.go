package local

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp" // registers the WebP decoder; WebP is never encoded here

	"studio/internal/engine"
	"studio/internal/ledger"
)

// MaxInputPixels is the largest input decoded: DECISIONS §1 refuses images
// over 50 megapixels before decoding them.
const MaxInputPixels = 50_000_000

// JPEGQuality is the quality of every JPEG result.
const JPEGQuality = 90

// Probe reads an input's header without decoding its pixels: its media type
// and size. Only jpeg, png and webp are accepted, up to MaxInputPixels.
// Its errors are input faults.
func Probe(data []byte) (mime string, width, height int, err error) {
	if len(data) == 0 {
		return "", 0, 0, engine.InputError("", "The image is empty.", nil)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", 0, 0, engine.InputError("", "The image could not be read as jpeg, png or webp.", err)
	}
	switch format {
	case "jpeg", "png", "webp":
	default:
		return "", 0, 0, engine.InputError("", fmt.Sprintf("The image is %s; only jpeg, png and webp are accepted.", format), nil)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return "", 0, 0, engine.InputError("", "The image has no pixels.", nil)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxInputPixels {
		return "", 0, 0, engine.InputError("", "The image is larger than 50 megapixels.", nil)
	}
	return "image/" + format, cfg.Width, cfg.Height, nil
}

// Decode decodes an input (jpeg, png or webp, EXIF orientation applied) into
// non-premultiplied RGBA. Its errors are input faults.
func Decode(data []byte) (*image.NRGBA, error) {
	if _, _, _, err := Probe(data); err != nil {
		return nil, err
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return nil, engine.InputError("", "The image could not be decoded.", err)
	}
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n, nil
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out, nil
}

// decodeRole decodes the first input in role, tagging errors with the tool and role.
func decodeRole(r engine.Request, role string) (*image.NRGBA, error) {
	data, ok := r.Input(role)
	if !ok {
		return nil, engine.InputError(r.Tool, fmt.Sprintf("The %s tool needs an input in the %s role.", r.Tool, role), nil)
	}
	img, err := Decode(data)
	if err != nil {
		return nil, tagInput(err, r.Tool, role)
	}
	return img, nil
}

// tagInput names the tool and the role in an input fault from Decode.
func tagInput(err error, tool, role string) error {
	if e, ok := errors.AsType[*engine.Error](err); ok {
		c := *e
		c.Tool = tool
		c.Reason = "The " + role + " input: " + lowerFirst(c.Reason)
		return &c
	}
	return err
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// frameSize is the size rule of every frame: the canvas (w x h) has the
// tier's pixels on its long edge and the shape's aspect (the image's own
// without a shape), and an iw x ih image fills fw x fh of it (fitCanvas).
// Every tool sizes its work by it, and Finish by it conforms every result.
func frameSize(t ledger.Tier, s *engine.Shape, iw, ih int) (w, h, fw, fh int) {
	w, h = engine.Canvas(t, frameAspect(s, iw, ih))
	fw, fh = fitCanvas(iw, ih, w, h)
	return w, h, fw, fh
}

// fitCanvas is the size an iw x ih image takes in a w x h canvas: the
// largest of its aspect inside it, or the whole canvas when that is within
// 2 px of it on both sides (the aspects agree but for rounding), so that no
// frame is resampled twice or extended by a pixel.
func fitCanvas(iw, ih, w, h int) (int, int) {
	fw, fh := fitInside(iw, ih, w, h)
	if abs(fw-w) <= 2 && abs(fh-h) <= 2 {
		return w, h
	}
	return fw, fh
}

// frameAspect is the shape's aspect when there is a shape, else the image's own.
func frameAspect(s *engine.Shape, w, h int) engine.Aspect {
	if s != nil {
		return s.Aspect()
	}
	return engine.Aspect{W: float64(w), H: float64(h)}
}

// Finish makes a result of img for tier t and shape s: the image is resized
// (Lanczos) so that it fits the frame whose long edge is t.Pixels() and whose
// aspect is the shape's (or the image's own when s is nil); when the aspects
// differ, the canvas is extended around it (edge extension on plain borders,
// a blurred fill otherwise; transparent when alpha is true). The result is
// JPEG at quality 90, or PNG with alpha when alpha is true.
func Finish(img image.Image, t ledger.Tier, s *engine.Shape, alpha bool) (engine.Result, error) {
	if !t.Valid() {
		return engine.Result{}, engine.InputError("", fmt.Sprintf("Unknown quality %q.", t), nil)
	}
	n := toNRGBA(img)
	if !alpha && hasAlpha(n) {
		n = flatten(imaging.Clone(n))
	}
	w, h, _, _ := frameSize(t, s, n.Rect.Dx(), n.Rect.Dy())
	n = conform(n, w, h, fillAuto, alpha)
	if alpha {
		return encodePNG(n)
	}
	return encodeJPEG(n)
}

// FinishSized makes a JPEG result of img at exactly w x h: resized
// (Lanczos) to fit, the canvas extended around it where the aspects differ,
// as Finish does. A provider's look frame, whose size the look decides
// (lookbrief.FrameSize), is finished by it.
func FinishSized(img image.Image, w, h int) (engine.Result, error) {
	if w < 1 || h < 1 {
		return engine.Result{}, fmt.Errorf("local: finish at %dx%d", w, h)
	}
	n := toNRGBA(img)
	if hasAlpha(n) {
		n = flatten(imaging.Clone(n))
	}
	return encodeJPEG(conform(n, w, h, fillAuto, false))
}

func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	return imaging.Clone(img)
}

// conform fits img into a w x h canvas and extends the rest.
func conform(img *image.NRGBA, w, h int, fill fillMode, transparent bool) *image.NRGBA {
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	if iw == w && ih == h {
		return img
	}
	fw, fh := fitCanvas(iw, ih, w, h)
	if fw == w && fh == h {
		return resize(img, w, h)
	}
	return extendCanvas(resize(img, fw, fh), w, h, fill, transparent)
}

// fitInside is the largest size of aspect iw:ih inside w x h.
func fitInside(iw, ih, w, h int) (int, int) {
	s := math.Min(float64(w)/float64(iw), float64(h)/float64(ih))
	fw := min(w, max(1, int(math.Round(float64(iw)*s))))
	fh := min(h, max(1, int(math.Round(float64(ih)*s))))
	return fw, fh
}

// resize resamples with Lanczos, returning img itself when the size already matches.
func resize(img *image.NRGBA, w, h int) *image.NRGBA {
	if img.Rect.Dx() == w && img.Rect.Dy() == h {
		return img
	}
	return imaging.Resize(img, w, h, imaging.Lanczos)
}

// fitLong downsizes img so that its long edge is at most p (never upsizes).
func fitLong(img *image.NRGBA, p int) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if max(w, h) <= p {
		return img
	}
	fw, fh := fitInside(w, h, p, p)
	return resize(img, fw, fh)
}

// flatten composites img over white, in place, and reports it.
func flatten(img *image.NRGBA) *image.NRGBA {
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

// hasAlpha reports whether img has any pixel that is not opaque.
func hasAlpha(img *image.NRGBA) bool {
	p := img.Pix
	for i := 3; i < len(p); i += 4 {
		if p[i] != 255 {
			return true
		}
	}
	return false
}

func encodeJPEG(img *image.NRGBA) (engine.Result, error) {
	if hasAlpha(img) {
		img = flatten(imaging.Clone(img))
	}
	// An opaque NRGBA has the bytes of an RGBA, which the encoder converts fastest.
	rgba := &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
	var buf bytes.Buffer
	buf.Grow(img.Rect.Dx() * img.Rect.Dy() / 4)
	if err := jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return engine.Result{}, engine.ProviderError("", "The result could not be encoded.", err)
	}
	return engine.Result{Data: buf.Bytes(), Mime: "image/jpeg", Width: img.Rect.Dx(), Height: img.Rect.Dy()}, nil
}

func encodePNG(img *image.NRGBA) (engine.Result, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return engine.Result{}, engine.ProviderError("", "The result could not be encoded.", err)
	}
	return engine.Result{Data: buf.Bytes(), Mime: "image/png", Width: img.Rect.Dx(), Height: img.Rect.Dy()}, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
