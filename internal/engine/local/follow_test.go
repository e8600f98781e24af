package local

import (
	"image"
	"image/color"
	"testing"

	"studio/internal/engine"
	"studio/internal/picture"
)

// TestDirected: each direction of the vocabulary changes a developed frame
// as it says, keeping its size; a direction outside it changes nothing.
func TestDirected(t *testing.T) {
	// A mid-grey ground with a dark piece in the middle.
	img := image.NewNRGBA(image.Rect(0, 0, 60, 40))
	for y := range 40 {
		for x := range 60 {
			c := color.NRGBA{R: 150, G: 150, B: 150, A: 255}
			if x >= 20 && x < 40 && y >= 10 && y < 30 {
				c = color.NRGBA{R: 40, G: 60, B: 90, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	plain, err := engine.EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	// read gives a frame's mean colour, its share of dark pixels and the
	// ground's lead over the piece in green (its contrast).
	type reading struct {
		m          [3]float64
		dark, lead float64
	}
	read := func(res engine.Result) (r reading) {
		got, err := picture.Decode(res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rect.Dx() != 60 || got.Rect.Dy() != 40 {
			t.Fatalf("size %v; want 60x40", got.Rect.Size())
		}
		for i := 0; i < len(got.Pix); i += 4 {
			for ch := range 3 {
				r.m[ch] += float64(got.Pix[i+ch]) / (60 * 40)
			}
			if got.Pix[i] < 100 {
				r.dark += 1.0 / (60 * 40)
			}
		}
		r.lead = float64(got.NRGBAAt(2, 2).G) - float64(got.NRGBAAt(30, 20).G)
		return r
	}
	base := read(plain)
	tests := []struct {
		said string
		want func(r reading) bool
	}{
		{"warmer light", func(r reading) bool { return r.m[0] > base.m[0]+3 && r.m[2] < base.m[2]-3 }},
		{"cooler", func(r reading) bool { return r.m[0] < base.m[0]-3 && r.m[2] > base.m[2]+3 }},
		{"brighter", func(r reading) bool { return r.m[1] > base.m[1]+5 }},
		{"a bit darker", func(r reading) bool { return r.m[1] < base.m[1]-5 }},
		{"more contrast", func(r reading) bool { return r.lead > base.lead+5 }},
		{"less contrast", func(r reading) bool { return r.lead < base.lead-5 }},
		{"softer shadows", func(r reading) bool { return r.m[0] > base.m[0]+1 && r.lead < base.lead-5 }},
		{"harder shadows", func(r reading) bool { return r.m[0] < base.m[0]-1 && r.lead > base.lead+5 }},
		{"tighter crop", func(r reading) bool { return r.dark > base.dark+0.02 }},
		{"wider crop", func(r reading) bool { return r.dark < base.dark-0.02 }},
		{"Keep the collar crisp.", func(r reading) bool { return r == base }},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			res, err := directed(engine.Request{Tool: "upscale", Params: map[string]string{"direction": tt.said}}, plain)
			if err != nil {
				t.Fatal(err)
			}
			if r := read(res); !tt.want(r) {
				t.Errorf("%+v; from %+v", r, base)
			}
		})
	}
}
