package lookbrief_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/ledger"
)

// TestDescribes: a piece's own name describes it; a camera's, a phone's
// or a screenshot's file name, a name with an image extension, or an id
// does not.
func TestDescribes(t *testing.T) {
	for label, want := range map[string]bool{
		"Linen shirt": true, "Wordmark": true, "Blazer 2024": true, "Top No. 5": true,
		"IMG_2041": false, "IMG_2041.jpg": false, "top.png": false, "DSC00012": false, "PXL_20240101_120000123": false,
		"Screenshot 2024-05-01 at 10.22.31": false, "3f9c2e1a-77b0-4c1e-9d2a-0a1b2c3d4e5f": false, "": false, "  ": false,
	} {
		if got := lookbrief.Describes(label); got != want {
			t.Errorf("Describes(%q) = %v; want %v", label, got, want)
		}
	}
}

// garment is a w x h PNG of a c-coloured block on a white ground.
func garment(t *testing.T, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 60, 80))
	for y := range 80 {
		for x := range 60 {
			px := color.NRGBA{255, 255, 255, 255}
			if x >= 12 && x < 48 && y >= 10 && y < 70 {
				px = c
			}
			img.SetNRGBA(x, y, px)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPiecesNeverByFileName: a piece labelled by its file name is
// described by its role and its measured colour; a piece with its own
// label keeps it; no file name reaches the prompt.
func TestPiecesNeverByFileName(t *testing.T) {
	model := garment(t, color.NRGBA{200, 170, 150, 255})
	r := engine.Request{Tool: lookbrief.Tool, Tier: ledger.Tier1K, Shape: &engine.Shape{Width: 1080, Height: 1350},
		Inputs: []engine.Input{{Role: "model", Data: model}, {Role: "item", Data: garment(t, color.NRGBA{25, 35, 80, 255})},
			{Role: "item", Data: garment(t, color.NRGBA{200, 35, 40, 255})}, {Role: "item", Data: garment(t, color.NRGBA{45, 130, 60, 255})}},
		Params: map[string]string{"key": "lock", "roles": "top,bottom,outerwear", "labels": `["IMG_2041.jpg","Pleated skirt","DSC00012"]`}}
	pieces := lookbrief.Pieces(r)
	want := []lookbrief.Piece{{Role: "top", Hero: true, Colour: "navy"}, {Role: "bottom", Label: "Pleated skirt"}, {Role: "outerwear", Colour: "green"}}
	for i, p := range pieces {
		if p != want[i] {
			t.Errorf("piece %d = %+v; want %+v", i, p, want[i])
		}
	}
	b, err := lookbrief.Of(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"image 2 is the hero piece, a navy top", "image 3 is a bottom: Pleated skirt", "image 4 is a green outerwear"} {
		if !strings.Contains(b.Prompt, w) {
			t.Errorf("the prompt lacks %q:\n%s", w, b.Prompt)
		}
	}
	for _, name := range []string{"IMG_2041", "DSC00012"} {
		if strings.Contains(b.Prompt, name) {
			t.Errorf("the prompt names the file %s:\n%s", name, b.Prompt)
		}
	}
}
