package local_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"
)

// Generated test images: no files, no network, the same bytes every run.

var (
	productRed  = color.NRGBA{R: 180, G: 30, B: 40, A: 255}
	productBlue = color.NRGBA{R: 40, G: 70, B: 170, A: 255}
	shirtBlue   = color.NRGBA{R: 30, G: 60, B: 140, A: 255}
	skin        = color.NRGBA{R: 224, G: 172, B: 140, A: 255}
)

// productImage is a red box with a blue label on a light, slightly graded
// backdrop, like a product shot on a sweep. The box spans the middle half.
func productImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		g := 244 - 10*float64(y)/float64(h) // light fall-off towards the floor
		for x := range w {
			n := noise(x, y) * 3
			img.SetNRGBA(x, y, color.NRGBA{R: c8(g + n), G: c8(g - 1 + n), B: c8(g - 4 + n), A: 255})
		}
	}
	box := image.Rect(w/4, h/4, 3*w/4, 3*h/4)
	label := image.Rect(w/4+box.Dx()/5, h/2-box.Dy()/8, 3*w/4-box.Dx()/5, h/2+box.Dy()/8)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			c := productRed
			if image.Pt(x, y).In(label) {
				c = productBlue
			}
			shade := 1 - 0.15*float64(x-box.Min.X)/float64(box.Dx())
			img.SetNRGBA(x, y, color.NRGBA{R: c8(float64(c.R) * shade), G: c8(float64(c.G) * shade), B: c8(float64(c.B) * shade), A: 255})
		}
	}
	return img
}

// modelImage is a standing figure on a light grey backdrop: a head, a blue
// shirt (the torso and arms) and dark trousers. It is 0.6 times as wide as tall.
func modelImage(h int) *image.NRGBA {
	w := h * 6 / 10
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Rect, color.NRGBA{R: 226, G: 226, B: 222, A: 255})
	cx := w / 2
	u := float64(h) / 100
	// Head.
	for y := int(6 * u); y < int(18*u); y++ {
		for x := range w {
			if math.Hypot(float64(x-cx), float64(y)-12*u) < 6*u {
				img.SetNRGBA(x, y, skin)
			}
		}
	}
	fill(img, image.Rect(cx-int(2*u), int(17*u), cx+int(2*u), int(21*u)), skin)                          // neck
	fill(img, image.Rect(cx-int(12*u), int(20*u), cx+int(12*u), int(52*u)), shirtBlue)                   // torso
	fill(img, image.Rect(cx-int(17*u), int(21*u), cx-int(12*u), int(48*u)), shirtBlue)                   // left arm
	fill(img, image.Rect(cx+int(12*u), int(21*u), cx+int(17*u), int(48*u)), shirtBlue)                   // right arm
	fill(img, image.Rect(cx-int(11*u), int(52*u), cx-int(1*u), int(95*u)), color.NRGBA{60, 60, 64, 255}) // legs
	fill(img, image.Rect(cx+int(1*u), int(52*u), cx+int(11*u), int(95*u)), color.NRGBA{60, 60, 64, 255})
	// Soft wrinkle shading across the shirt.
	for y := int(20 * u); y < int(52*u); y++ {
		for x := cx - int(12*u); x < cx+int(12*u); x++ {
			c := img.NRGBAAt(x, y)
			k := 1 + 0.12*math.Sin(float64(y)/(1.5*u))
			img.SetNRGBA(x, y, color.NRGBA{R: c8(float64(c.R) * k), G: c8(float64(c.G) * k), B: c8(float64(c.B) * k), A: 255})
		}
	}
	return img
}

// garmentImage is a red T-shirt laid flat on white.
func garmentImage(s int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, s, s))
	fill(img, img.Rect, color.NRGBA{R: 250, G: 250, B: 250, A: 255})
	red := color.NRGBA{R: 200, G: 30, B: 30, A: 255}
	fill(img, image.Rect(s*30/100, s*20/100, s*70/100, s*85/100), red) // body
	fill(img, image.Rect(s*12/100, s*20/100, s*30/100, s*40/100), red) // sleeves
	fill(img, image.Rect(s*70/100, s*20/100, s*88/100, s*40/100), red)
	return img
}

// sceneImage is a blue-green outdoor-ish background.
func sceneImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		t := float64(y) / float64(h)
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: c8(40 + 30*t + noise(x, y)*6), G: c8(110 + 40*t), B: c8(170 - 40*t), A: 255})
		}
	}
	return img
}

// gradientImage is a smooth, textured photo-like image with no plain backdrop.
func gradientImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			img.SetNRGBA(x, y, color.NRGBA{
				R: c8(90 + 120*fx + 8*math.Sin(fy*20)),
				G: c8(60 + 100*fy + 8*math.Cos(fx*17)),
				B: c8(150 - 60*fx*fy),
				A: 255,
			})
		}
	}
	return img
}

// maskImage is black with a white rectangle r.
func maskImage(w, h int, r image.Rectangle) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Rect, color.NRGBA{A: 255})
	fill(img, r, color.NRGBA{R: 255, G: 255, B: 255, A: 255})
	return img
}

func fill(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
}

func noise(x, y int) float64 {
	h := uint32(x)*374761393 + uint32(y)*668265263
	h = (h ^ (h >> 13)) * 1274126177
	return float64(h>>8&0xff)/255 - 0.5
}

func c8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

func encJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// encPNG encodes img as a PNG at the fastest compression: the pixels are
// the same at any level, and deflate is slow under the race detector.
func encPNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decodeResult decodes a result and checks its media type and size fields.
func decodeResult(t testing.TB, data []byte, mime string, w, h int) image.Image {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("result does not decode: %v", err)
	}
	if "image/"+format != mime {
		t.Fatalf("result is %s, Mime says %s", format, mime)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("result is %dx%d, Result says %dx%d", b.Dx(), b.Dy(), w, h)
	}
	return img
}

// meanRGB is the mean colour of img inside r.
func meanRGB(img image.Image, r image.Rectangle) [3]float64 {
	var s [3]float64
	n := 0.0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			s[0] += float64(c.R)
			s[1] += float64(c.G)
			s[2] += float64(c.B)
			n++
		}
	}
	for i := range s {
		s[i] /= n
	}
	return s
}

// rel is a rectangle given in shares of img's size.
func rel(img image.Image, x0, y0, x1, y1 float64) image.Rectangle {
	b := img.Bounds()
	return image.Rect(int(x0*float64(b.Dx())), int(y0*float64(b.Dy())), int(x1*float64(b.Dx())), int(y1*float64(b.Dy())))
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func rgbOf(c color.NRGBA) [3]float64 { return [3]float64{float64(c.R), float64(c.G), float64(c.B)} }
