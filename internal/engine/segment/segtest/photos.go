package segtest

import (
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // the sample photographs
	_ "image/png"
	"os"
	"path/filepath"
)

// Photo is one picture of the measured set.
type Photo struct {
	Name  string
	Kind  string // garment, product, person or scene
	Img   *image.NRGBA
	Truth []bool // the subject's mask when it is known (composites), else nil
	Note  string // what it is
}

// Sources are the files the set reads, with the packages that ship them:
// python3-skimage (data/), python3-matplotlib (sample_data/), and the Go
// module cache (test data of two of this module's dependencies).
var Sources = []string{
	"astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png", "camera.png",
	"hubble_deep_field.jpg", "brick.png", "grass.png", "gravel.png", "logo.png",
	"grace_hopper.jpg", "branches.jpg", "go-turns-two-280x360.jpeg",
}

// Load reads name from the first of dirs that has it; nil when none does.
func Load(name string, dirs []string) image.Image {
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, name))
		if err != nil {
			continue
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err == nil {
			return img
		}
	}
	return nil
}

// NRGBA copies img into a new NRGBA at the origin.
func NRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// figureFill paints a standing figure by height: skin for the head and
// neck, the top's colour, then the trousers'.
func figureFill(top, bottom color.NRGBA, headEnd, topEnd float64, w, h int) Texture {
	skin := Fill(color.NRGBA{R: 214, G: 160, B: 128, A: 255}, nil, 0, w, h)
	t := Fill(top, nil, 0, w, h)
	b := Fill(bottom, nil, 0, w, h)
	return func(x, y int) [3]float64 {
		v := float64(y) / float64(h)
		switch {
		case v < headEnd:
			return skin(x, y)
		case v < topEnd:
			return t(x, y)
		}
		return b(x, y)
	}
}

// Photos builds the measured set from the files in dirs: composites of
// garments, products and figures on real textures (known masks), then the
// real photographs. A picture whose source is missing is left out.
func Photos(dirs []string) []Photo {
	var out []Photo
	const w, h = 900, 675
	const pw, ph = 640, 900
	tex := func(name string, tw, th int, tint *color.NRGBA) Texture {
		img := Load(name, dirs)
		if img == nil {
			return nil
		}
		return FromImage(img, tw, th, tint)
	}
	crop := func(name string, r image.Rectangle, tw, th int) Texture {
		img := Load(name, dirs)
		if img == nil {
			return nil
		}
		return FromImage(NRGBA(img).SubImage(r), tw, th, nil)
	}
	add := func(name, kind, note string, ground Texture, s Shape, fill func(w, h int) Texture, fw, fh int, shadow float64) {
		if ground == nil {
			return
		}
		cov := Coverage(s, fw, fh)
		img := Composite(ground, fill(fw, fh), cov, fw, fh, shadow, uint32(len(out)+1))
		out = append(out, Photo{Name: name, Kind: kind, Img: img, Truth: Mask(cov), Note: note})
	}
	plain := func(c color.NRGBA, relief Texture, amp float64) func(w, h int) Texture {
		return func(w, h int) Texture { return Fill(c, relief, amp, w, h) }
	}
	brick := &color.NRGBA{R: 190, G: 112, B: 88, A: 255}
	green := &color.NRGBA{R: 96, G: 138, B: 64, A: 255}
	stone := &color.NRGBA{R: 156, G: 150, B: 140, A: 255}
	greyBrick := &color.NRGBA{R: 150, G: 150, B: 150, A: 255}
	wood := crop("coffee.png", image.Rect(470, 0, 600, 400), w, h)
	sky := crop("rocket.jpg", image.Rect(130, 0, 500, 90), w, h)
	garage := crop("motorcycle_left.png", image.Rect(300, 0, 741, 260), pw, ph)

	add("tshirt-on-brick", "garment", "navy knit T-shirt laid on a brick wall", tex("brick.png", w, h, brick),
		TShirt, plain(color.NRGBA{R: 38, G: 52, B: 96, A: 255}, tex("gravel.png", w, h, nil), 0.15), w, h, 0.3)
	add("dress-on-grass", "garment", "red dress laid on grass", tex("grass.png", w, h, green),
		Dress, plain(color.NRGBA{R: 196, G: 36, B: 48, A: 255}, nil, 0), w, h, 0.35)
	add("trousers-on-gravel", "garment", "denim trousers on gravel", tex("gravel.png", w, h, stone),
		Trousers, plain(color.NRGBA{R: 52, G: 74, B: 124, A: 255}, tex("grass.png", w, h, nil), 0.12), w, h, 0.3)
	add("shirt-on-table", "garment", "white shirt on a wooden table", wood,
		TShirt, plain(color.NRGBA{R: 236, G: 234, B: 228, A: 255}, Linen(w, h), 0.4), w, h, 0.35)
	add("jacket-on-night-sky", "garment", "black jacket against a night sky (dark on dark)", sky,
		TShirt, plain(color.NRGBA{R: 30, G: 30, B: 34, A: 255}, nil, 0), w, h, 0)
	add("bottle-on-table", "product", "green bottle on a wooden table", wood,
		Bottle, plain(color.NRGBA{R: 40, G: 112, B: 64, A: 255}, nil, 0), w, h, 0.4)
	add("sneaker-on-gravel", "product", "white sneaker on gravel", tex("gravel.png", w, h, stone),
		Sneaker, plain(color.NRGBA{R: 240, G: 238, B: 236, A: 255}, nil, 0), w, h, 0.4)
	add("bag-on-brick", "product", "tan leather bag (with a handle loop) against grey brick", tex("brick.png", w, h, greyBrick),
		Bag, plain(color.NRGBA{R: 168, G: 116, B: 70, A: 255}, nil, 0), w, h, 0.3)
	add("figure-on-brick", "person", "full-length figure (skin, green top, black trousers) before a brick wall", tex("brick.png", pw, ph, brick),
		Figure, func(w, h int) Texture {
			return figureFill(color.NRGBA{R: 40, G: 120, B: 80, A: 255}, color.NRGBA{R: 28, G: 28, B: 32, A: 255}, 0.2, 0.5, w, h)
		}, pw, ph, 0.25)
	add("figure-in-studio", "person", "full-length figure (skin, blue top, grey trousers) on a studio sweep", Plain(pw, ph),
		Figure, func(w, h int) Texture {
			return figureFill(color.NRGBA{R: 30, G: 60, B: 140, A: 255}, color.NRGBA{R: 70, G: 70, B: 76, A: 255}, 0.2, 0.5, w, h)
		}, pw, ph, 0.15)
	add("figure-in-garage", "person", "figure cut at the thighs before garage shelves (cluttered)", garage,
		HalfFigure, func(w, h int) Texture {
			return figureFill(color.NRGBA{R: 230, G: 200, B: 60, A: 255}, color.NRGBA{R: 50, G: 60, B: 90, A: 255}, 0.32, 0.8, w, h)
		}, pw, ph, 0)
	if logo := Load("logo.png", dirs); logo != nil {
		// The skimage logo (a disc with transparency around it) as a product on grass.
		if ground := tex("grass.png", w, h, green); ground != nil {
			src := NRGBA(logo)
			s := float64(src.Rect.Dy()) / (0.6 * h)
			ox := (float64(w) - float64(src.Rect.Dx())/s) / 2
			oy := 0.2 * h
			cov := make([]float32, w*h)
			for y := range h {
				for x := range w {
					sx, sy := int((float64(x)-ox)*s), int((float64(y)-oy)*s)
					if sx >= 0 && sy >= 0 && sx < src.Rect.Dx() && sy < src.Rect.Dy() {
						p := src.Pix[sy*src.Stride+sx*4:]
						if p[0] < 240 || p[1] < 240 || p[2] < 240 { // the disc, not its white card
							cov[y*w+x] = float32(p[3]) / 255
						}
					}
				}
			}
			fill := func(x, y int) [3]float64 {
				sx := min(src.Rect.Dx()-1, max(0, int((float64(x)-ox)*s)))
				sy := min(src.Rect.Dy()-1, max(0, int((float64(y)-oy)*s)))
				p := src.Pix[sy*src.Stride+sx*4:]
				return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
			}
			img := Composite(ground, fill, cov, w, h, 0.3, 99)
			out = append(out, Photo{Name: "logo-disc-on-grass", Kind: "product", Img: img, Truth: Mask(cov), Note: "the skimage logo disc as a product on grass"})
		}
	}

	real := []struct{ file, name, kind, note string }{
		{"coffee.png", "coffee", "product", "café photo: espresso cup and saucer on a wooden table"},
		{"go-turns-two-280x360.jpeg", "gopher-plush", "product", "plush toy on a blue wall and red floor"},
		{"rocket.jpg", "rocket", "product", "rocket on its pad at night, towers and lights"},
		{"motorcycle_left.png", "motorcycle", "product", "motorcycle in a garage full of shelves"},
		{"astronaut.png", "astronaut", "person", "portrait in a spacesuit, flag and shuttle model behind"},
		{"grace_hopper.jpg", "grace-hopper", "person", "portrait in uniform before a flag and a blue wall"},
		{"camera.png", "cameraman", "person", "man with a camera on a tripod in a field (grey)"},
		{"chelsea.png", "cat", "scene", "a cat's face filling the frame"},
		{"branches.jpg", "branches", "scene", "blossoming branches against the sky"},
		{"hubble_deep_field.jpg", "deep-field", "scene", "thousands of galaxies, no subject"},
	}
	for _, r := range real {
		if img := Load(r.file, dirs); img != nil {
			out = append(out, Photo{Name: r.name, Kind: r.kind, Img: NRGBA(img), Note: r.note})
		}
	}
	return out
}

// Dirs are the folders Photos reads by default: where Debian's
// python3-skimage and python3-matplotlib put their sample data, and the test
// data of two dependencies in the module cache (gomodcache is `go env
// GOMODCACHE`).
func Dirs(gomodcache string) []string {
	return []string{
		"/usr/lib/python3/dist-packages/skimage/data",
		"/usr/share/matplotlib/mpl-data/sample_data",
		filepath.Join(gomodcache, "github.com/disintegration/imaging@v1.6.2/testdata"),
		filepath.Join(gomodcache, "golang.org/x/image@v0.47.0/testdata"),
	}
}
