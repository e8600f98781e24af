package local

import (
	"context"
	"image"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// runUpscale resamples the image with Lanczos-3 so its long edge reaches the
// tier (or it fits the shape's frame), then restores some edge contrast with
// a mild unsharp mask when it was enlarged by more than 1.25x.
func runUpscale(ctx context.Context, r engine.Request) (engine.Result, error) {
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	if checking(ctx) {
		return engine.Result{}, nil // it measures nothing it could refuse
	}
	picture.Flatten(img)
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	w, h, fw, fh := engine.FrameSize(r.Tier, r.Shape, iw, ih)
	up := picture.Resize(img, fw, fh)
	if factor := float64(fw) / float64(iw); factor > 1.25 {
		up = unsharp(up, min(1.5, 0.45*factor), 0.5)
	}
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(picture.Conform(up, w, h, picture.FillAuto, false))
}

// unsharp adds amount times the difference between img and its Gaussian blur.
func unsharp(img *image.NRGBA, sigma, amount float64) *image.NRGBA {
	blurred := imaging.Blur(img, sigma)
	out := image.NewNRGBA(img.Rect)
	picture.Parallel(img.Rect.Dy(), func(y0, y1 int) {
		for i := y0 * img.Stride; i < y1*img.Stride; i++ {
			if i%4 == 3 {
				out.Pix[i] = img.Pix[i]
				continue
			}
			v := float64(img.Pix[i])
			out.Pix[i] = picture.Clamp8(v + amount*(v-float64(blurred.Pix[i])))
		}
	})
	return out
}

// runReframe extends the canvas to a new aspect (the shape's, else
// params.aspect): the image is fitted whole and centred, and the new area is
// filled by edge extension or a blurred fill (params.fill: auto, extend, blur;
// auto extends a plain border and blurs a busy one). Nothing is cropped.
func runReframe(ctx context.Context, r engine.Request) (engine.Result, error) {
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	picture.Flatten(img)
	var a engine.Aspect
	if r.Shape != nil {
		a = r.Shape.Aspect()
	} else if a, err = engine.ParseAspect(r.Param("aspect")); err != nil {
		return engine.Result{}, engine.InputError(r.Tool, "The aspect option is not a ratio like 4:5.", err)
	}
	if checking(ctx) {
		return engine.Result{}, nil // its only refusal is the aspect's
	}
	w, h := engine.Canvas(r.Tier, a)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	return engine.EncodeJPEG(picture.Conform(img, w, h, parseFill(r.Param("fill")), false))
}
