package picture

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
)

// Fill is how Extend fills the canvas around the image.
type Fill int

const (
	FillAuto   Fill = iota // extend on a plain border, blur otherwise
	FillExtend             // edge extension: nearest edge pixels, blurred with distance
	FillBlur               // the image itself, covering the canvas, heavily blurred
)

// Extend centres img on a w x h canvas (w, h >= img's size) and fills the
// rest. Edge extension repeats the nearest edge pixel and fades, with
// distance from the image, into a blurred version of that extension, so a
// plain backdrop continues seamlessly and a busy one turns into soft colour
// instead of streaks. The blur fill covers the canvas with the image scaled
// up and blurred. With transparent set, the fill is left transparent.
func Extend(img *image.NRGBA, w, h int, fill Fill, transparent bool) *image.NRGBA {
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	ox, oy := (w-iw)/2, (h-ih)/2
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	if !transparent {
		if fill == FillAuto {
			fill = FillBlur
			if borderIsPlain(img) {
				fill = FillExtend
			}
		}
		switch fill {
		case FillExtend:
			paintExtension(out, img, ox, oy)
		default:
			paintBlurFill(out, img)
		}
	}
	for y := range ih {
		copy(out.Pix[(y+oy)*out.Stride+ox*4:(y+oy)*out.Stride+(ox+iw)*4], img.Pix[y*img.Stride:y*img.Stride+iw*4])
	}
	return out
}

// borderIsPlain reports whether the image's border is nearly uniform.
func borderIsPlain(img *image.NRGBA) bool {
	small := FitLong(img, 128)
	w, h := small.Rect.Dx(), small.Rect.Dy()
	var s, ss [3]float64
	n := 0.0
	add := func(x, y int) {
		i := y*small.Stride + x*4
		for c := range 3 {
			v := float64(small.Pix[i+c])
			s[c] += v
			ss[c] += v * v
		}
		n++
	}
	for x := range w {
		add(x, 0)
		add(x, h-1)
	}
	for y := range h {
		add(0, y)
		add(w-1, y)
	}
	var variance float64
	for c := range 3 {
		m := s[c] / n
		variance += ss[c]/n - m*m
	}
	return math.Sqrt(math.Max(0, variance/3)) < 10
}

func paintExtension(out, img *image.NRGBA, ox, oy int) {
	w, h := out.Rect.Dx(), out.Rect.Dy()
	iw, ih := img.Rect.Dx(), img.Rect.Dy()
	// The clamped extension, at low resolution, blurred.
	scale := math.Min(1, 256/float64(max(w, h)))
	lw, lh := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	small := Resize(img, max(1, int(float64(iw)*scale)), max(1, int(float64(ih)*scale)))
	low := image.NewNRGBA(image.Rect(0, 0, lw, lh))
	sox, soy := float64(ox)*scale, float64(oy)*scale
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	for y := range lh {
		sy := min(sh-1, max(0, int(float64(y)-soy)))
		for x := range lw {
			sx := min(sw-1, max(0, int(float64(x)-sox)))
			copy(low.Pix[y*low.Stride+x*4:y*low.Stride+x*4+4], small.Pix[sy*small.Stride+sx*4:sy*small.Stride+sx*4+4])
		}
	}
	blurred := imaging.Resize(imaging.Blur(low, 0.04*float64(max(lw, lh))), w, h, imaging.Linear)
	feather := 0.08 * float64(max(w, h))
	Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			iy := min(ih-1, max(0, y-oy))
			dy := float64(max(0, oy-y, y-(oy+ih-1)))
			for x := range w {
				dx := float64(max(0, ox-x, x-(ox+iw-1)))
				if dx == 0 && dy == 0 {
					continue
				}
				ix := min(iw-1, max(0, x-ox))
				t := Smoothstep(0, feather, math.Hypot(dx, dy))
				s := iy*img.Stride + ix*4
				b := y*blurred.Stride + x*4
				d := y*out.Stride + x*4
				for c := range 3 {
					out.Pix[d+c] = Clamp8(float64(img.Pix[s+c])*(1-t) + float64(blurred.Pix[b+c])*t)
				}
				out.Pix[d+3] = 255
			}
		}
	})
}

func paintBlurFill(out, img *image.NRGBA) {
	w, h := out.Rect.Dx(), out.Rect.Dy()
	scale := math.Min(1, 256/float64(max(w, h)))
	lw, lh := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	low := imaging.Fill(img, lw, lh, imaging.Center, imaging.Linear)
	low = imaging.Blur(low, 0.05*float64(max(lw, lh)))
	full := imaging.Resize(low, w, h, imaging.Linear)
	// Dim the fill a little so the frame itself leads.
	for i := 0; i < len(full.Pix); i += 4 {
		for c := range 3 {
			full.Pix[i+c] = uint8(float64(full.Pix[i+c])*0.92 + 0.5)
		}
		full.Pix[i+3] = 255
	}
	copy(out.Pix, full.Pix)
}
