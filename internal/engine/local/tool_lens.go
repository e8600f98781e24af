package local

import (
	"context"
	"image"
	"math"

	"studio/internal/engine"
	"studio/internal/picture"
)

// lensModel is the optical character camera-lens renders for one lens.
type lensModel struct {
	k         float64 // radial distortion coefficient; > 0 is barrel
	tanHalf   float64 // tangent of the half diagonal field of view
	vignette  float64 // share of the cos^4 fall-off applied
	blurFrac  float64 // largest defocus blur sigma, as a share of the long edge
	macro     bool    // focus on a thin horizontal plane through the subject
	nearFocus float64 // defocus just behind the subject (0..1)
}

// modelLens derives a lens character from a 35 mm-equivalent focal length:
//   - field of view from the full-frame half diagonal (21.63 mm): tan = 21.63 / f;
//   - vignetting by the cos^4 law at that field angle, 60% applied;
//   - barrel distortion k = 0.012 + 0.09 * clamp((50 - f) / 26, 0, 1): slight
//     on a portrait lens, clear on a 24 mm;
//   - background defocus grows with focal length (longer lenses at the same
//     framing blur and magnify the background more): sigma = 0.25% of the long
//     edge at 50 mm, times (f / 50)^1.2, between 0.15% and 1.2%.
//
// Macro focuses on a thin plane: maximum defocus, barely any distortion, and
// a fall-off above and below the subject's centre as well as behind it.
func modelLens(l engine.Lens) lensModel {
	f := l.Focal
	m := lensModel{
		k:         0.012 + 0.09*clamp01((50-f)/26),
		tanHalf:   21.63 / f,
		vignette:  0.6,
		blurFrac:  math.Max(0.0015, math.Min(0.012, 0.0025*math.Pow(f/50, 1.2))),
		nearFocus: 0.45,
	}
	if l.Macro {
		m.k = 0.004
		m.blurFrac = 0.012
		m.macro = true
		m.nearFocus = 0.6
	}
	return m
}

// runCameraLens renders a lens character on the frame (params.lens, default
// 50mm): the frame is first composed at the output size, then distorted
// (Brown radial model, corners fixed), defocused by a depth map (the subject
// from findMatte is the focal plane and the background falls off with
// distance from it; without a plain backdrop the centre is in focus and the
// edges fall off), and vignetted by the cos^4 law.
func runCameraLens(ctx context.Context, r engine.Request) (engine.Result, error) {
	lens := engine.DefaultLens
	if s := r.Param("lens"); s != "" {
		var err error
		if lens, err = engine.ParseLens(s); err != nil {
			return engine.Result{}, engine.InputError(r.Tool, "The lens option is macro or a focal length like 85mm.", err)
		}
	}
	img, err := decodeRole(r, "image")
	if err != nil {
		return engine.Result{}, err
	}
	picture.Flatten(img)
	w, h, _, _ := engine.FrameSize(r.Tier, r.Shape, img.Rect.Dx(), img.Rect.Dy())
	base := picture.Conform(img, w, h, picture.FillAuto, false)
	lm := modelLens(lens)

	frame := distort(base, lm.k)
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	depth := defocusMap(frame, lm)
	frame = depthBlur(frame, depth, lm.blurFrac*float64(max(w, h)))
	if err := alive(ctx); err != nil {
		return engine.Result{}, err
	}
	vignette(frame, lm)
	return engine.EncodeJPEG(frame)
}

// distort resamples img so that a point at normalised radius r (1 at the
// corners) shows the source at r * (1 + k r^2) / (1 + k): magnification falls
// from the centre outwards (barrel for k > 0) and the corners stay put.
func distort(img *image.NRGBA, k float64) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewNRGBA(img.Rect)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	rd := math.Hypot(cx, cy)
	picture.Parallel(h, func(y0, y1 int) {
		var px [4]float64
		for y := y0; y < y1; y++ {
			dy := float64(y) - cy
			for x := range w {
				dx := float64(x) - cx
				r2 := (dx*dx + dy*dy) / (rd * rd)
				s := (1 + k*r2) / (1 + k)
				sampleRGBA(img, cx+dx*s, cy+dy*s, &px)
				i := y*out.Stride + x*4
				out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = picture.Clamp8(px[0]), picture.Clamp8(px[1]), picture.Clamp8(px[2]), 255
			}
		}
	})
	return out
}

// defocusMap is a 0..1 defocus per pixel, on the analysis grid.
func defocusMap(frame *image.NRGBA, lm lensModel) *plane {
	small := picture.FitLong(frame, analysisEdge)
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	d := newPlane(sw, sh)
	m, err := findMatte(small, "")
	diag := math.Hypot(float64(sw), float64(sh))
	if err != nil {
		// No plain backdrop: focus on the centre, fall off towards the edges.
		for y := range sh {
			for x := range sw {
				rn := math.Hypot(float64(x)-float64(sw)/2, float64(y)-float64(sh)/2) / (diag / 2)
				d.p[y*sw+x] = float32(picture.Smoothstep(0.2, 0.9, rn))
			}
		}
		return d
	}
	box := m.box
	cy := float64(box.Min.Y+box.Max.Y) / 2
	for y := range sh {
		for x := range sw {
			// Distance from the subject's box: the backdrop recedes from it.
			dx := float64(max(0, box.Min.X-x, x-box.Max.X))
			dy := float64(max(0, box.Min.Y-y, y-box.Max.Y))
			away := lm.nearFocus + (1-lm.nearFocus)*picture.Smoothstep(0, 0.3*diag, math.Hypot(dx, dy))
			a := float64(m.alpha.p[y*sw+x])
			v := (1 - a) * away
			if lm.macro {
				// A thin focal plane: the subject itself softens above and below its centre.
				band := picture.Smoothstep(0.08, 0.45, math.Abs(float64(y)-cy)/float64(max(1, box.Dy())))
				v = math.Max(v, 0.8*band)
			}
			d.p[y*sw+x] = float32(v)
		}
	}
	return d.boxBlur(2)
}

// depthBlur mixes the frame with two blurred copies (sigma/3 and sigma) by the
// defocus map: 0 keeps the pixel sharp, 0.5 takes the mild blur, 1 the full one.
func depthBlur(frame *image.NRGBA, depth *plane, sigma float64) *image.NRGBA {
	w, h := frame.Rect.Dx(), frame.Rect.Dy()
	mild := blurLarge(frame, math.Max(0.8, sigma/3))
	full := blurLarge(frame, math.Max(1.2, sigma))
	dm := depth.resized(w, h)
	out := image.NewNRGBA(frame.Rect)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := range w {
				t := float64(dm.p[y*w+x])
				i := y*out.Stride + x*4
				for c := range 3 {
					s, m, f := float64(frame.Pix[i+c]), float64(mild.Pix[i+c]), float64(full.Pix[i+c])
					var v float64
					if t < 0.5 {
						v = s + (m-s)*t*2
					} else {
						v = m + (f-m)*(t-0.5)*2
					}
					out.Pix[i+c] = picture.Clamp8(v)
				}
				out.Pix[i+3] = 255
			}
		}
	})
	return out
}

// vignette darkens by the cos^4 law: a ray at field angle theta (tan theta =
// r * tanHalf, r = 1 at the corners) keeps cos^4(theta) of the light.
func vignette(img *image.NRGBA, lm lensModel) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	cx, cy := float64(w-1)/2, float64(h-1)/2
	rd := math.Hypot(cx, cy)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			dy := float64(y) - cy
			for x := range w {
				dx := float64(x) - cx
				t := math.Hypot(dx, dy) / rd * lm.tanHalf
				c2 := 1 / (1 + t*t) // cos^2(theta)
				k := 1 - lm.vignette*(1-c2*c2)
				i := y*img.Stride + x*4
				for c := range 3 {
					img.Pix[i+c] = picture.Clamp8(float64(img.Pix[i+c]) * k)
				}
			}
		}
	})
}
