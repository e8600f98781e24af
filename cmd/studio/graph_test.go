package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// A graph of series scraped over a run, drawn with the standard library
// alone (image/png): TestScale writes one of /metrics over its run when
// -scale.graph names a file (make scale-test does). No font is at hand, so
// the axes' numbers are drawn in a 3x5 pixel digit font and the legend is
// the colours: TestScale's log and docs/scale.md name them.

// sample is one scrape: when, after the run's start, and a value per series.
type sample struct {
	at     time.Duration
	values []float64
}

// mark is a moment of the run drawn as a vertical line (a fault).
type mark struct {
	at  time.Duration
	rgb color.RGBA
}

// graphColors are the series' colours, in the order of sample.values.
var graphColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0x94, 0x67, 0xbd, 0xff}, // purple
}

// drawGraph draws the samples as lines over time, w x h pixels, with the
// marks as vertical lines, grid lines at round steps labelled in digits
// (seconds along x), and returns the image with the y step it used.
func drawGraph(samples []sample, marks []mark, w, h int) (*image.RGBA, float64) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Rect, color.RGBA{0xff, 0xff, 0xff, 0xff})
	const left, right, top, bottom = 44, 10, 10, 22
	pw, ph := w-left-right, h-top-bottom
	var span time.Duration
	top0 := 1.0
	for _, s := range samples {
		span = max(span, s.at)
		for _, v := range s.values {
			top0 = max(top0, v)
		}
	}
	span = max(span, time.Second)
	ystep := niceStep(top0 / 6)
	ymax := math.Ceil(top0/ystep) * ystep
	xstep := niceStep(span.Seconds() / 10)
	x := func(at time.Duration) int { return left + int(at.Seconds()/span.Seconds()*float64(pw-1)) }
	y := func(v float64) int { return top + ph - 1 - int(v/ymax*float64(ph-1)) }
	grid, ink := color.RGBA{0xe0, 0xe0, 0xe0, 0xff}, color.RGBA{0x40, 0x40, 0x40, 0xff}
	for v := 0.0; v <= ymax+ystep/2; v += ystep {
		line(img, left, y(v), left+pw-1, y(v), grid, 1)
		digits(img, left-4, y(v)-4, strconv.FormatFloat(v, 'f', -1, 64), ink)
	}
	for s := 0.0; s <= span.Seconds(); s += xstep {
		at := time.Duration(s * float64(time.Second))
		line(img, x(at), top, x(at), top+ph-1, grid, 1)
		digits(img, x(at)+len(strconv.Itoa(int(s)))*4, top+ph+6, strconv.Itoa(int(s)), ink)
	}
	line(img, left, top, left, top+ph-1, ink, 1)
	line(img, left, top+ph-1, left+pw-1, top+ph-1, ink, 1)
	for _, m := range marks {
		for py := top; py < top+ph; py += 6 { // dashed
			line(img, x(m.at), py, x(m.at), min(py+3, top+ph-1), m.rgb, 1)
		}
	}
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		for k := range min(len(a.values), len(b.values), len(graphColors)) {
			line(img, x(a.at), y(a.values[k]), x(b.at), y(b.values[k]), graphColors[k], 2)
		}
	}
	return img, ystep
}

// writeGraph writes drawGraph's image as PNG to path.
func writeGraph(path string, samples []sample, marks []mark) (ystep float64, err error) {
	img, ystep := drawGraph(samples, marks, 960, 360)
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return 0, err
	}
	return ystep, f.Close()
}

// niceStep is the round step (1, 2 or 5 times a power of ten) at or above v.
func niceStep(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for py := r.Min.Y; py < r.Max.Y; py++ {
		for px := r.Min.X; px < r.Max.X; px++ {
			img.SetRGBA(px, py, c)
		}
	}
}

// line draws from (x0, y0) to (x1, y1), width pixels thick (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA, width int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		fill(img, image.Rect(x0, y0, x0+width, y0+width).Intersect(img.Rect), c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

// font3x5 are the digits and the decimal point, three columns of five
// rows, a row's bits left to right; digits draws each pixel 2 x 2.
var font3x5 = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2},
}

// digits draws s right-aligned so that its last column is at x - 1, its
// top row at y, 8 pixels a character.
func digits(img *image.RGBA, x, y int, s string, c color.RGBA) {
	x -= 8 * len(s)
	for i, r := range s {
		for row, bits := range font3x5[r] {
			for col := range 3 {
				if bits&(4>>col) != 0 {
					fill(img, image.Rect(x+8*i+2*col, y+2*row, x+8*i+2*col+2, y+2*row+2).Intersect(img.Rect), c)
				}
			}
		}
	}
}

func abs(v int) int  { return max(v, -v) }
func sign(v int) int { return min(max(v, -1), 1) }

// TestDrawGraph: the series are drawn in their colours inside the plot, a
// mark as its own, and the grid steps are round.
func TestDrawGraph(t *testing.T) {
	samples := []sample{{0, []float64{0, 10, 1}}, {30 * time.Second, []float64{12, 40, 3}}, {60 * time.Second, []float64{0, 0, 0}}}
	red := color.RGBA{0xd6, 0x27, 0x28, 0xff}
	img, ystep := drawGraph(samples, []mark{{45 * time.Second, red}}, 400, 200)
	if ystep != 10 {
		t.Errorf("y step %v for a top of 40; want 10", ystep)
	}
	seen := map[color.RGBA]bool{}
	for py := img.Rect.Min.Y; py < img.Rect.Max.Y; py++ {
		for px := img.Rect.Min.X; px < img.Rect.Max.X; px++ {
			seen[img.RGBAAt(px, py)] = true
		}
	}
	for i, c := range append(graphColors[:3:3], red) {
		if !seen[c] {
			t.Errorf("colour %d (%v) is not drawn", i, c)
		}
	}
	for _, tt := range []struct{ v, want float64 }{{0.3, 0.5}, {7, 10}, {12, 20}, {40, 50}, {0, 1}} {
		if got := niceStep(tt.v); got != tt.want {
			t.Errorf("niceStep(%v) = %v; want %v", tt.v, got, tt.want)
		}
	}
}
