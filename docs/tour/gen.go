//go:build ignore

// Command gen draws the two pictures of the README tour (garment.jpg and
// model.jpg) into the current folder: cd docs/tour && go run gen.go.
// They are drawings with plain grounds, so the local engine can cut them out.
package main

import (
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
)

type shape func(x, y float64) bool

func ellipse(cx, cy, rx, ry float64) shape {
	return func(x, y float64) bool { dx, dy := (x-cx)/rx, (y-cy)/ry; return dx*dx+dy*dy <= 1 }
}
func rect(x0, y0, x1, y1 float64) shape {
	return func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 }
}
func rrect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		cx := math.Max(x0+r, math.Min(x, x1-r))
		cy := math.Max(y0+r, math.Min(y, y1-r))
		dx, dy := x-cx, y-cy
		return dx*dx+dy*dy <= r*r
	}
}

// quad is a convex quadrilateral (clockwise points).
func quad(p [4][2]float64) shape {
	return func(x, y float64) bool {
		for i := 0; i < 4; i++ {
			a, b := p[i], p[(i+1)%4]
			if (b[0]-a[0])*(y-a[1])-(b[1]-a[1])*(x-a[0]) < 0 {
				return false
			}
		}
		return true
	}
}
func union(s ...shape) shape {
	return func(x, y float64) bool {
		for _, f := range s {
			if f(x, y) {
				return true
			}
		}
		return false
	}
}

type layer struct {
	s     shape
	color func(x, y float64) [3]float64
}

func flat(r, g, b float64) func(x, y float64) [3]float64 {
	return func(x, y float64) [3]float64 { return [3]float64{r, g, b} }
}

func render(w, h int, bg func(x, y float64) [3]float64, layers []layer, path string) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	const ss = 4
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			var acc [3]float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x, y := float64(px)+(float64(sx)+0.5)/ss, float64(py)+(float64(sy)+0.5)/ss
					c := bg(x, y)
					for _, l := range layers {
						if l.s(x, y) {
							c = l.color(x, y)
						}
					}
					for i := range acc {
						acc[i] += c[i]
					}
				}
			}
			img.Set(px, py, color.RGBA{uint8(acc[0] / ss / ss), uint8(acc[1] / ss / ss), uint8(acc[2] / ss / ss), 255})
		}
	}
	f, _ := os.Create(path)
	defer f.Close()
	jpeg.Encode(f, img, &jpeg.Options{Quality: 88})
}

func main() {
	// A navy T-shirt laid on a warm light-grey seamless.
	W, H := 640.0, 800.0
	bg := func(x, y float64) [3]float64 {
		t := y / H
		return [3]float64{236 - 10*t, 233 - 10*t, 228 - 10*t}
	}
	fold := func(base [3]float64) func(x, y float64) [3]float64 {
		return func(x, y float64) [3]float64 {
			s := 1 - 0.18*(y-200)/500 + 0.06*math.Sin(x/37+y/90)
			return [3]float64{base[0] * s, base[1] * s, base[2] * s}
		}
	}
	navy := [3]float64{38, 52, 96}
	body := rrect(190, 200, 450, 680, 18)
	lsleeve := quad([4][2]float64{{200, 205}, {250, 215}, {190, 380}, {95, 330}})
	rsleeve := quad([4][2]float64{{390, 215}, {440, 205}, {545, 330}, {450, 380}})
	shoulders := rrect(200, 190, 440, 260, 30)
	neck := ellipse(320, 198, 52, 30)
	render(int(W), int(H), bg, []layer{
		{union(body, lsleeve, rsleeve, shoulders), fold(navy)},
		{neck, bg},
		{ellipse(320, 200, 48, 26), flat(30, 42, 80)},
		{ellipse(320, 194, 46, 22), bg},
	}, "garment.jpg")

	// A standing model in a white tee and dark trousers on a pale grey ground.
	W, H = 600, 900
	bg2 := func(x, y float64) [3]float64 {
		t := y / H
		return [3]float64{226 - 14*t, 226 - 14*t, 224 - 14*t}
	}
	skin := flat(214, 170, 140)
	tee := func(x, y float64) [3]float64 {
		s := 1 - 0.08*math.Abs(x-300)/90
		return [3]float64{178 * s, 98 * s, 72 * s}
	}
	trousers := func(x, y float64) [3]float64 {
		s := 1 - 0.1*math.Sin(y/40)
		return [3]float64{44 * s, 46 * s, 54 * s}
	}
	render(int(W), int(H), bg2, []layer{
		{ellipse(300, 120, 46, 58), skin},                                           // head
		{ellipse(300, 92, 50, 40), flat(58, 40, 30)},                                // hair
		{rect(284, 165, 316, 205), skin},                                            // neck
		{quad([4][2]float64{{212, 215}, {232, 205}, {205, 440}, {180, 432}}), skin}, // left arm
		{quad([4][2]float64{{368, 205}, {388, 215}, {420, 432}, {395, 440}}), skin}, // right arm
		{ellipse(192, 450, 16, 20), skin},
		{ellipse(408, 450, 16, 20), skin},
		{union(rrect(222, 195, 378, 470, 26), quad([4][2]float64{{222, 200}, {250, 200}, {222, 300}, {196, 292}}), quad([4][2]float64{{350, 200}, {378, 200}, {404, 292}, {378, 300}})), tee},
		{quad([4][2]float64{{228, 465}, {300, 465}, {292, 820}, {246, 820}}), trousers}, // left leg
		{quad([4][2]float64{{300, 465}, {372, 465}, {354, 820}, {308, 820}}), trousers}, // right leg
		{rrect(234, 812, 296, 842, 12), flat(30, 26, 24)},
		{rrect(304, 812, 366, 842, 12), flat(30, 26, 24)},
	}, "model.jpg")
}
