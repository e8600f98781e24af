package local_test

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disintegration/imaging"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"studio/internal/engine"
	"studio/internal/engine/local"
	"studio/internal/engine/segment"
	"studio/internal/engine/segment/segtest"
	"studio/internal/ledger"
)

// TestPhotoSheets develops the tools that need a subject (packshot,
// remove-background, harmonize, tryon) on the measured set of photographs
// (segtest.Photos: composites on real textures and real photographs from
// Debian's python3-skimage and python3-matplotlib) at 1k, and writes a
// contact sheet per tool and a table of what was delivered or refused:
//
//	apt-get install python3-skimage python3-matplotlib
//	STUDIO_PHOTO_SHEETS=/tmp/sheets go test -run TestPhotoSheets -v ./internal/engine/local/
//
// It is skipped without STUDIO_PHOTO_SHEETS; pictures whose source files are
// missing are left out. STUDIO_PHOTO_ONLY, a comma-separated list of names,
// develops only those (STUDIO_PHOTO_ONLY=figure-in-garage,bag-on-brick). It
// judges nothing: the sheets are for looking at.
func TestPhotoSheets(t *testing.T) {
	out := os.Getenv("STUDIO_PHOTO_SHEETS")
	if out == "" {
		t.Skip("STUDIO_PHOTO_SHEETS names the folder for the contact sheets")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		modcache = filepath.Join(build.Default.GOPATH, "pkg", "mod")
	}
	photos := segtest.Photos(segtest.Dirs(modcache))
	if only := os.Getenv("STUDIO_PHOTO_ONLY"); only != "" {
		names := strings.Split(only, ",")
		photos = slices.DeleteFunc(photos, func(p segtest.Photo) bool { return !slices.Contains(names, p.Name) })
	}
	if len(photos) == 0 {
		t.Skip("no sample photographs found: apt-get install python3-skimage python3-matplotlib")
	}
	l := local.New()
	scene := encJPEG(t, sceneImage(1024, 768))
	garment := encPNG(t, garmentImage(600))
	tools := []string{"packshot", "remove-background", "harmonize", "tryon"}
	cells := map[string][]*image.NRGBA{}
	var table strings.Builder
	fmt.Fprintf(&table, "| photo | kind | separation (segment) | tool | outcome | ms |\n|---|---|---|---|---|---|\n")
	for _, p := range photos {
		src := encPNG(t, p.Img)
		cut, err := segment.Separate(context.Background(), p.Img, segment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if tool == "tryon" && p.Kind != "person" {
				continue // try-on takes a figure
			}
			r := engine.Request{Tool: tool, Tier: ledger.Tier1K, Inputs: []engine.Input{in("image", src)}}
			switch tool {
			case "harmonize":
				r.Inputs = append(r.Inputs, in("background", scene))
			case "tryon":
				r.Inputs = []engine.Input{in("model", src), in("garment", garment)}
			}
			start := time.Now()
			res, err := l.Run(context.Background(), r)
			ms := time.Since(start).Milliseconds()
			outcome := "delivered"
			var shown image.Image
			if err != nil {
				outcome = "refused: " + reason(err)
			} else {
				shown, err = decodeAny(res.Data)
				if err != nil {
					t.Fatal(err)
				}
			}
			fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %d |\n", p.Name, p.Kind, cut.Confidence.String(), tool, outcome, ms)
			t.Logf("%-20s %-18s %s (%d ms)", p.Name, tool, outcome, ms)
			cells[tool] = append(cells[tool], cell(p.Img, shown, p.Name+": "+strings.SplitN(outcome, ":", 2)[0]))
		}
	}
	for _, tool := range tools {
		writePNG(t, filepath.Join(out, tool+".png"), sheet(cells[tool], 3))
	}
	if err := os.WriteFile(filepath.Join(out, "table.md"), []byte(table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reason(err error) string {
	if e, ok := err.(*engine.Error); ok {
		return e.Reason
	}
	return err.Error()
}

func decodeAny(data []byte) (image.Image, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

const cellW, cellH = 300, 225

// cell shows the source and the result side by side (a checkerboard behind
// transparency, a grey panel for a refusal) with a caption.
func cell(src, result image.Image, caption string) *image.NRGBA {
	c := image.NewNRGBA(image.Rect(0, 0, 2*cellW+6, cellH+18))
	draw.Draw(c, c.Rect, image.NewUniform(color.NRGBA{R: 40, G: 40, B: 40, A: 255}), image.Point{}, draw.Src)
	put := func(img image.Image, x0 int) {
		th := imaging.Fit(img, cellW, cellH, imaging.Box)
		ox := x0 + (cellW-th.Rect.Dx())/2
		oy := (cellH - th.Rect.Dy()) / 2
		for y := range th.Rect.Dy() {
			for x := range th.Rect.Dx() {
				g := uint8(200)
				if (x/10+y/10)%2 == 0 {
					g = 150
				}
				c.SetNRGBA(ox+x, oy+y, color.NRGBA{R: g, G: g, B: g, A: 255})
			}
		}
		draw.Draw(c, image.Rect(ox, oy, ox+th.Rect.Dx(), oy+th.Rect.Dy()), th, image.Point{}, draw.Over)
	}
	put(src, 0)
	if result != nil {
		put(result, cellW+6)
	} else {
		draw.Draw(c, image.Rect(cellW+6, 0, 2*cellW+6, cellH), image.NewUniform(color.NRGBA{R: 90, G: 30, B: 30, A: 255}), image.Point{}, draw.Src)
	}
	d := font.Drawer{Dst: c, Src: image.NewUniform(color.White), Face: basicfont.Face7x13, Dot: fixed.P(4, cellH+14)}
	d.DrawString(caption)
	return c
}

func sheet(cells []*image.NRGBA, cols int) *image.NRGBA {
	if len(cells) == 0 {
		return image.NewNRGBA(image.Rect(0, 0, 1, 1))
	}
	cw, ch := cells[0].Rect.Dx()+8, cells[0].Rect.Dy()+8
	rows := (len(cells) + cols - 1) / cols
	s := image.NewNRGBA(image.Rect(0, 0, cols*cw, rows*ch))
	draw.Draw(s, s.Rect, image.NewUniform(color.NRGBA{R: 20, G: 20, B: 20, A: 255}), image.Point{}, draw.Src)
	for i, c := range cells {
		x, y := (i%cols)*cw+4, (i/cols)*ch+4
		draw.Draw(s, c.Rect.Add(image.Pt(x, y)), c, image.Point{}, draw.Src)
	}
	return s
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
