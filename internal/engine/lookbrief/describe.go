package lookbrief

import (
	"math"
	"path"
	"regexp"
	"strings"

	"studio/internal/picture"
)

// fileName matches the names cameras, phones and screenshots give files
// (IMG_2041, DSC00012, PXL_20240101_120000, Screenshot 2024-...), which
// say nothing of what the picture shows.
var fileName = regexp.MustCompile(`(?i)^(img|dsc|dscn|dscf|dcim|pxl|mvimg|gopr|photo|image|screenshot|screen shot|scan|whatsapp image|p)[\s_-]*\d[\d\s_.:-]*\w*$`)

// imageExts are the extensions a label that is a file name ends in.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".webp": true, ".heic": true, ".heif": true, ".gif": true, ".tif": true, ".tiff": true, ".bmp": true, ".avif": true}

// Describes reports whether label says what a piece is (its own name,
// "Linen shirt") rather than which file it came from ("IMG_2041.jpg",
// "DSC00012", "a3f9c2e1-..."): only such a label is put in a prompt.
func Describes(label string) bool {
	s := strings.TrimSpace(label)
	if s == "" {
		return false
	}
	if ext := strings.ToLower(path.Ext(s)); imageExts[ext] {
		return false
	}
	if fileName.MatchString(s) {
		return false
	}
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127:
			letters++
		}
	}
	// A hash or an id: as many digits as letters, or no word at all.
	return letters >= 3 && digits <= letters
}

// namedColours are the colour names a piece is described by, with a
// representative sRGB value each.
var namedColours = []struct {
	name    string
	r, g, b float64
}{
	{"black", 22, 22, 24}, {"charcoal", 60, 62, 66}, {"grey", 128, 128, 130}, {"white", 244, 244, 242},
	{"cream", 238, 228, 205}, {"beige", 210, 190, 155}, {"camel", 190, 145, 90}, {"brown", 105, 70, 45},
	{"navy", 25, 35, 75}, {"blue", 45, 90, 190}, {"light blue", 150, 190, 230}, {"teal", 20, 120, 125},
	{"green", 45, 130, 60}, {"olive", 110, 110, 50}, {"yellow", 235, 205, 50}, {"orange", 230, 120, 35},
	{"red", 195, 35, 40}, {"burgundy", 110, 25, 45}, {"pink", 240, 160, 185}, {"purple", 115, 55, 145},
}

// ColourName is the name of the colour most of the piece's picture is,
// measured from its pixels: a grid of samples, the picture's own ground
// (the colour of its corners, and transparent pixels) left out, each
// sample named by the nearest named colour in L*a*b*; "" when the picture
// cannot be read or shows nothing but its ground.
func ColourName(data []byte) string {
	img, err := picture.Decode(data)
	if err != nil {
		return ""
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	lab := func(x, y int) (float64, float64, float64, bool) {
		c := img.NRGBAAt(img.Rect.Min.X+x, img.Rect.Min.Y+y)
		if c.A < 128 {
			return 0, 0, 0, false
		}
		l, a, b := picture.ToLab(float64(c.R), float64(c.G), float64(c.B))
		return l, a, b, true
	}
	var ground [][3]float64
	for _, p := range [][2]int{{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}} {
		if l, a, b, ok := lab(p[0], p[1]); ok {
			ground = append(ground, [3]float64{l, a, b})
		}
	}
	counts := make([]int, len(namedColours))
	const grid = 48
	for gy := range grid {
		for gx := range grid {
			l, a, b, ok := lab((2*gx+1)*w/(2*grid), (2*gy+1)*h/(2*grid))
			if !ok || nearGround(ground, l, a, b) {
				continue
			}
			counts[nearestColour(l, a, b)]++
		}
	}
	best := 0
	for i, n := range counts {
		if n > counts[best] {
			best = i
		}
	}
	if counts[best] == 0 {
		return ""
	}
	return namedColours[best].name
}

// nearGround reports whether a sample is the picture's ground: within a
// small distance of one of its corners' colours.
func nearGround(ground [][3]float64, l, a, b float64) bool {
	for _, g := range ground {
		if math.Hypot(math.Hypot(l-g[0], a-g[1]), b-g[2]) < 8 {
			return true
		}
	}
	return false
}

func nearestColour(l, a, b float64) int {
	best, bestD := 0, math.Inf(1)
	for i, c := range namedColours {
		cl, ca, cb := picture.ToLab(c.r, c.g, c.b)
		if d := math.Hypot(math.Hypot(l-cl, a-ca), b-cb); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}
