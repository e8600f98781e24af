package engine

import (
	"errors"
	"fmt"
	"image"

	"studio/internal/ledger"
	"studio/internal/picture"
)

// DecodeInput decodes data, the input of tool in role (picture.Decode: jpeg,
// png or webp, EXIF orientation applied). Bytes that are not such a
// picture are an input fault naming the role.
func DecodeInput(tool, role string, data []byte) (*image.NRGBA, error) {
	img, err := picture.Decode(data)
	if err != nil {
		return nil, InRole(err, tool, role)
	}
	return img, nil
}

// DecodeMask decodes data, the mask input of tool in role, to grey
// (picture.DecodeGray), with DecodeInput's faults: the local tools read a
// mask's luma only, at one byte a pixel.
func DecodeMask(tool, role string, data []byte) (*image.Gray, error) {
	img, err := picture.DecodeGray(data)
	if err != nil {
		return nil, InRole(err, tool, role)
	}
	return img, nil
}

// ProbeInput reads the header of data, the input of tool in role
// (picture.Probe): its media type and size, with DecodeInput's faults. A
// provider engine probes every input so that nothing is spent on bytes it
// would refuse.
func ProbeInput(tool, role string, data []byte) (mime string, width, height int, err error) {
	mime, width, height, err = picture.Probe(data)
	if err != nil {
		return "", 0, 0, InRole(err, tool, role)
	}
	return mime, width, height, nil
}

// InRole names the tool and the input role in a fault of that input: its
// bytes not being a picture (a *picture.Error), or an input fault an engine
// found in its pixels (no subject to separate), as in "The garment 2 input:
// the image is empty.". Other errors are returned as they are.
func InRole(err error, tool, role string) error {
	if pe, ok := errors.AsType[*picture.Error](err); ok {
		return InputError(tool, "The "+role+" input: "+lowerFirst(pe.Reason), pe.Err)
	}
	if e, ok := errors.AsType[*Error](err); ok && e.Fault == FaultInput {
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

// FrameSize is the size rule of every frame: the canvas (w x h) has the
// tier's pixels on its long edge and the shape's aspect (the image's own
// without a shape), and an iw x ih image fills fw x fh of it
// (picture.FitCanvas). Every engine sizes its work by it, and Finish
// conforms every result by it.
func FrameSize(t ledger.Tier, s *Shape, iw, ih int) (w, h, fw, fh int) {
	w, h = Canvas(t, frameAspect(s, iw, ih))
	fw, fh = picture.FitCanvas(iw, ih, w, h)
	return w, h, fw, fh
}

// frameAspect is the shape's aspect when there is a shape, else the image's own.
func frameAspect(s *Shape, w, h int) Aspect {
	if s != nil {
		return s.Aspect()
	}
	return Aspect{W: float64(w), H: float64(h)}
}

// Finish makes a result of img for tier t and shape s: the image is resized
// (Lanczos) so that it fits the frame FrameSize gives; when the aspects
// differ, the canvas is extended around it (picture.Extend: edge extension
// on plain borders, a blurred fill otherwise; transparent when alpha is
// true). The result is JPEG at quality 90, or PNG with alpha when alpha is
// true. Every engine's still results go through it, so all obey the same
// tier and shape rules.
func Finish(img image.Image, t ledger.Tier, s *Shape, alpha bool) (Result, error) {
	if !t.Valid() {
		return Result{}, InputError("", fmt.Sprintf("Unknown quality %q.", t), nil)
	}
	n := picture.NRGBA(img)
	if !alpha {
		n = picture.Opaque(n)
	}
	w, h, _, _ := FrameSize(t, s, n.Rect.Dx(), n.Rect.Dy())
	n = picture.Conform(n, w, h, picture.FillAuto, alpha)
	if alpha {
		return EncodePNG(n)
	}
	return EncodeJPEG(n)
}

// FinishSized makes a JPEG result of img at exactly w x h: resized
// (Lanczos) to fit, the canvas extended around it where the aspects differ,
// as Finish does. A provider's look frame, whose size the look decides
// (lookbrief.FrameSize), is finished by it.
func FinishSized(img image.Image, w, h int) (Result, error) {
	if w < 1 || h < 1 {
		return Result{}, fmt.Errorf("engine: finish at %dx%d", w, h)
	}
	n := picture.Opaque(picture.NRGBA(img))
	return EncodeJPEG(picture.Conform(n, w, h, picture.FillAuto, false))
}

// EncodeJPEG makes a JPEG result of img (picture.EncodeJPEG: quality 90,
// composited over white).
func EncodeJPEG(img *image.NRGBA) (Result, error) {
	data, err := picture.EncodeJPEG(img)
	if err != nil {
		return Result{}, ProviderError("", "The result could not be encoded.", err)
	}
	return Result{Data: data, Mime: "image/jpeg", Width: img.Rect.Dx(), Height: img.Rect.Dy()}, nil
}

// EncodePNG makes a PNG result of img, alpha kept.
func EncodePNG(img *image.NRGBA) (Result, error) {
	data, err := picture.EncodePNG(img)
	if err != nil {
		return Result{}, ProviderError("", "The result could not be encoded.", err)
	}
	return Result{Data: data, Mime: "image/png", Width: img.Rect.Dx(), Height: img.Rect.Dy()}, nil
}
