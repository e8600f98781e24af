package local

import (
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/picture"
)

// parseFill reads the fill option of reframe: extend, blur, else auto.
func parseFill(s string) picture.Fill {
	switch s {
	case "extend":
		return picture.FillExtend
	case "blur":
		return picture.FillBlur
	}
	return picture.FillAuto
}

// coverFill scales img to cover w x h and crops the centre.
func coverFill(img *image.NRGBA, w, h int) *image.NRGBA {
	if img.Rect.Dx() == w && img.Rect.Dy() == h {
		return img
	}
	return imaging.Fill(img, w, h, imaging.Center, imaging.Lanczos)
}

// blurLarge is a Gaussian blur of a large sigma done on a downscaled copy,
// so its cost does not grow with sigma.
func blurLarge(img *image.NRGBA, sigma float64) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	f := math.Max(1, sigma/3)
	if f < 1.5 {
		return imaging.Blur(img, sigma)
	}
	lw, lh := max(1, int(float64(w)/f)), max(1, int(float64(h)/f))
	low := imaging.Resize(img, lw, lh, imaging.Box)
	low = imaging.Blur(low, sigma/f)
	return imaging.Resize(low, w, h, imaging.Linear)
}

// solidCanvas is a w x h opaque canvas of one colour.
func solidCanvas(w, h int, r, g, b uint8) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	row := out.Pix[:w*4]
	for x := range w {
		row[x*4], row[x*4+1], row[x*4+2], row[x*4+3] = r, g, b, 255
	}
	for y := 1; y < h; y++ {
		copy(out.Pix[y*out.Stride:y*out.Stride+w*4], row)
	}
	return out
}
