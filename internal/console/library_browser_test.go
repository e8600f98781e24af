package console_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"studio/internal/apptest"
)

// picture writes a JPEG of w x h pixels to dir and returns its path: a
// soft figure on a plain ground, enough for the local engine to work on.
// Keep them a few hundred pixels on a side: under the race detector every
// decode, cut-out and verdict of an input costs by the pixel, in the test
// process, and the frames developed from them are the tier's size anyway.
func picture(t testing.TB, dir, name string, w, h int, tone color.RGBA) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{240, 240, 236, 255}
			dx, dy := float64(x-w/2)/float64(w/3), float64(y-h/2)/(float64(h)/2.6)
			if dx*dx+dy*dy < 1 {
				c = color.RGBA{tone.R - uint8(y*40/h), tone.G, tone.B + uint8(x*30/w), 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLibraryInBrowser: a member drops three garments on the library (each
// with its progress), makes a collection and moves two pieces into it,
// renames one, files one as an accessory, finds it with the search field,
// deletes one from its page; a viewer of the house sees the frames and no
// way to delete them. Desktop and phone, axe-core on each page.
func TestLibraryInBrowser(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	u := person(t, a, "Atelier Nord")
	dir := t.TempDir()
	files := []string{
		picture(t, dir, "linen-shirt.jpg", 300, 400, color.RGBA{200, 120, 90, 255}),
		picture(t, dir, "wool-coat.jpg", 320, 400, color.RGBA{90, 110, 160, 255}),
		picture(t, dir, "silk-scarf.jpg", 350, 350, color.RGBA{170, 60, 120, 255}),
	}
	p := openPage(t, a, "library", 1280, 800, false)
	signIn(t, p, u)
	p.goTo("/library")
	p.check("empty library")
	p.shot("empty")
	p.recordSaid("#upload-msg")
	p.b.DropFiles(t, "#drop", files...)
	p.waitSaid("#upload-msg", "3 of 3 uploaded")
	p.until(`document.querySelectorAll("#grid .tile").length === 3`, 20e9, "the grid of three")
	p.check("library")
	p.shot("uploaded")

	// A collection, and two pieces moved into it from the selection bar.
	p.click(".more summary")
	p.typeInto("#new-folder", "Spring 27")
	p.click(`form[data-api="POST /api/toolkit/folders"] button`)
	p.waitPath("/library?folder=")
	p.goTo("/library")
	p.click(`#grid .tile:nth-child(1) .pick input`)
	p.click(`#grid .tile:nth-child(2) .pick input`)
	p.waitText("#picked", "2 selected")
	p.b.Eval(t, `(() => { const s = document.getElementById("move-to"); s.selectedIndex = 1; })()`, nil)
	p.click(`#move-to + button`)
	p.until(`document.readyState === "complete" && document.querySelectorAll("#grid .tile").length === 3 && !document.querySelector('#grid input:checked')`, 20e9, "the reload")
	p.click(`nav[aria-label=Collections] a:nth-of-type(3)`)
	p.waitPath("/library?folder=")
	p.until(`document.querySelectorAll("#grid .tile").length === 2`, 20e9, "two pieces in the collection")
	p.check("collection")
	p.shot("collection")

	// One piece's page: rename it and file it as an accessory.
	p.click(`#grid .tile:nth-child(1) .cap a`)
	p.waitPath("/library/")
	p.typeInto("#a-name", "Silk scarf, ivory")
	p.b.Eval(t, `document.getElementById("a-kind").value = '"accessory"'`, nil)
	p.click(`form[data-api^="PATCH /api/toolkit/assets/"] button[type=submit]`)
	p.waitText("form[data-api^='PATCH /api/toolkit/assets/'] [data-msg]", "Saved.")
	p.check("asset page")
	p.shot("asset")
	p.goTo("/library?q=ivory")
	p.waitText("main", "Silk scarf, ivory")
	p.shot("search")
	p.click(`main .list a`)
	p.waitPath("/library/")
	p.click(`button.danger`)
	p.waitText("button.danger", "Press again")
	p.click(`button.danger`)
	p.waitPath("/library")
	p.until(`document.querySelectorAll("#grid .tile").length === 2`, 20e9, "two pieces left")

	// A phone, and a viewer's seat: the frames, no delete.
	viewer := seat(t, a, u, "viewer")
	ph := openPage(t, a, "library-phone", 390, 844, true)
	signIn(t, ph, viewer)
	ph.goTo("/library")
	ph.until(`document.querySelectorAll("#grid .tile").length === 2 && !document.getElementById("drop")`, 20e9, "the viewer's library")
	ph.click(`#grid .tile:nth-child(1) .pick input`)
	var canDelete bool
	ph.b.Eval(t, `!!document.querySelector('form[data-api="POST /api/toolkit/assets/batch/delete"]')`, &canDelete)
	if canDelete {
		t.Error("a viewer is offered to delete")
	}
	var fits struct{ Scroll, Inner float64 }
	ph.b.Eval(t, `({scroll: document.documentElement.scrollWidth, inner: innerWidth})`, &fits)
	if fits.Scroll > fits.Inner {
		t.Errorf("the phone's page scrolls sideways: %+v", fits)
	}
	ph.check("viewer's library")
	ph.shot("viewer")
}
