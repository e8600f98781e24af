package judge

import (
	"image"
	"math"

	"github.com/disintegration/imaging"

	"studio/internal/picture"
)

// colourDistance compares a colour change with its source: the pixels the
// change moved (ΔE over 10, on copies at most 256 px long) are the garment;
// the answer is the distance in a*b* between their mean and the requested
// colour's, and whether any pixels moved at all (more than 1% of the
// frame). A frame whose aspect differs from the source's is not compared
// (-1).
func colourDistance(img, src *image.NRGBA, target [3]float64) (float64, bool) {
	fw, fh := img.Rect.Dx(), img.Rect.Dy()
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	if math.Abs(float64(fw)/float64(fh)-float64(sw)/float64(sh)) > 0.02*float64(sw)/float64(sh) {
		return -1, false
	}
	w, h := fw, fh
	if long := max(w, h); long > 256 {
		w, h = max(1, w*256/long), max(1, h*256/long)
	}
	a := imaging.Resize(img, w, h, imaging.Box)
	b := imaging.Resize(src, w, h, imaging.Box)
	_, ta, tb := picture.ToLab(target[0], target[1], target[2])
	var sa, sb float64
	n := 0
	for i := 0; i < len(a.Pix); i += 4 {
		l1, a1, b1 := picture.ToLab(float64(a.Pix[i]), float64(a.Pix[i+1]), float64(a.Pix[i+2]))
		l2, a2, b2 := picture.ToLab(float64(b.Pix[i]), float64(b.Pix[i+1]), float64(b.Pix[i+2]))
		if math.Sqrt((l1-l2)*(l1-l2)+(a1-a2)*(a1-a2)+(b1-b2)*(b1-b2)) <= 10 {
			continue
		}
		sa += a1
		sb += b1
		n++
	}
	if float64(n) < 0.01*float64(w*h) {
		return 0, false
	}
	ma, mb := sa/float64(n), sb/float64(n)
	return math.Hypot(ma-ta, mb-tb), true
}
