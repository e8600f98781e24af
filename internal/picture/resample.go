package picture

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// NRGBA returns img as an *image.NRGBA at the origin: img itself when it
// already is one, else a copy.
func NRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	return imaging.Clone(img)
}

// Resize resamples img to w x h with Lanczos, returning img itself when
// the size already matches.
func Resize(img *image.NRGBA, w, h int) *image.NRGBA {
	if img.Rect.Dx() == w && img.Rect.Dy() == h {
		return img
	}
	return imaging.Resize(img, w, h, imaging.Lanczos)
}

// FitLong downsizes img so that its long edge is at most p (never upsizes).
func FitLong(img *image.NRGBA, p int) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if max(w, h) <= p {
		return img
	}
	fw, fh := FitInside(w, h, p, p)
	return Resize(img, fw, fh)
}

// FitInside is the largest size of aspect iw:ih inside w x h.
func FitInside(iw, ih, w, h int) (int, int) {
	s := math.Min(float64(w)/float64(iw), float64(h)/float64(ih))
	fw := min(w, max(1, int(math.Round(float64(iw)*s))))
	fh := min(h, max(1, int(math.Round(float64(ih)*s))))
	return fw, fh
}

// FitCanvas is the size an iw x ih image takes in a w x h canvas: the
// largest of its aspect inside it, or the whole canvas when that is within
// 2 px of it on both sides (the aspects agree but for rounding), so that no
// frame is resampled twice or extended by a pixel.
func FitCanvas(iw, ih, w, h int) (int, int) {
	fw, fh := FitInside(iw, ih, w, h)
	if abs(fw-w) <= 2 && abs(fh-h) <= 2 {
		return w, h
	}
	return fw, fh
}

// Conform fits img into a w x h canvas (FitCanvas, Lanczos) and extends
// the rest (Extend with fill; transparent leaves it clear).
func Conform(img *image.NRGBA, w, h int, fill Fill, transparent bool) *image.NRGBA {
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	if iw == w && ih == h {
		return img
	}
	fw, fh := FitCanvas(iw, ih, w, h)
	if fw == w && fh == h {
		return Resize(img, w, h)
	}
	return Extend(Resize(img, fw, fh), w, h, fill, transparent)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
