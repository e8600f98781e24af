package picture

import "math"

// The colour spaces: 8-bit sRGB values (0..255, fractions allowed), linear
// light (0..1) and CIE L*a*b* under the D65 white (IEC 61966-2-1 and CIE
// 15, with the exact CIE constants 216/24389 and 24389/27).

// srgbLinear maps an 8-bit sRGB value to linear light.
var srgbLinear = func() (t [256]float64) {
	for i := range t {
		v := float64(i) / 255
		if v <= 0.04045 {
			t[i] = v / 12.92
		} else {
			t[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return t
}()

// D65 white point.
const (
	whiteX = 0.95047
	whiteY = 1.0
	whiteZ = 1.08883
)

// ToLinear maps an sRGB value (0..255, clamped) to linear light (0..1).
func ToLinear(v float64) float64 {
	if v == math.Trunc(v) && v >= 0 && v <= 255 {
		return srgbLinear[int(v)]
	}
	v = math.Max(0, math.Min(255, v)) / 255
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// FromLinear maps linear light (0..1, clamped) to an sRGB value (0..255).
func FromLinear(v float64) float64 {
	v = math.Max(0, math.Min(1, v))
	if v <= 0.0031308 {
		return 255 * 12.92 * v
	}
	return 255 * (1.055*math.Pow(v, 1/2.4) - 0.055)
}

// ToLab converts sRGB (0..255, fractions allowed) to CIE L*a*b* (D65).
func ToLab(r, g, b float64) (l, a, bb float64) {
	lr, lg, lb := ToLinear(r), ToLinear(g), ToLinear(b)
	x := (0.4124564*lr + 0.3575761*lg + 0.1804375*lb) / whiteX
	y := (0.2126729*lr + 0.7151522*lg + 0.0721750*lb) / whiteY
	z := (0.0193339*lr + 0.1191920*lg + 0.9503041*lb) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// FromLab converts CIE L*a*b* (D65) to sRGB, 0..255, each channel clamped
// to the gamut.
func FromLab(l, a, b float64) (r, g, bl float64) {
	fy := (l + 16) / 116
	fx := fy + a/500
	fz := fy - b/200
	x, y, z := labFInv(fx)*whiteX, labFInv(fy)*whiteY, labFInv(fz)*whiteZ
	lr := 3.2404542*x - 1.5371385*y - 0.4985314*z
	lg := -0.9692660*x + 1.8760108*y + 0.0415560*z
	lb := 0.0556434*x - 0.2040259*y + 1.0572252*z
	return FromLinear(lr), FromLinear(lg), FromLinear(lb)
}

func labF(t float64) float64 {
	if t > 216.0/24389 {
		return math.Cbrt(t)
	}
	return (24389.0/27*t + 16) / 116
}

func labFInv(t float64) float64 {
	if t3 := t * t * t; t3 > 216.0/24389 {
		return t3
	}
	return (116*t - 16) / (24389.0 / 27)
}
