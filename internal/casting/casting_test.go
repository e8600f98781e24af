package casting

import (
	"encoding/json"
	"image"
	"image/color"
	_ "image/jpeg"
	"reflect"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	face := func(extra string) string {
		return `{"faces": [{"key": "ines", "name": " Inès  M ", "tier": "sale", "priceCents": 4900, "images": ["a/cover.jpg"]` + extra + `}]}`
	}
	tests := []struct {
		name, doc, err string
	}{
		{"good", face(`, "traits": {"height": " 178 cm ", "marks": ["mole", " "]}`), ""},
		{"no faces", `{"faces": []}`, "no faces"},
		{"not json", `{`, "manifest"},
		{"two values", face("") + `{}`, "more than one"},
		{"unknown field", face(`, "prize": 1`), "unknown field"},
		{"bad key", strings.Replace(face(""), `"ines"`, `"Ines!"`, 1), "key"},
		{"no name", strings.Replace(face(""), `" Inès  M "`, `" "`, 1), "name"},
		{"bad tier", strings.Replace(face(""), `"sale"`, `"gold"`, 1), "tier"},
		{"free with a price", strings.Replace(face(""), `"sale"`, `"free"`, 1), "priceCents 0"},
		{"sale without a price", strings.Replace(face(""), `4900`, `0`, 1), "at least 1"},
		{"bad currency", face(`, "currency": "EUR"`), "currency"},
		{"no images", strings.Replace(face(""), `["a/cover.jpg"]`, `[]`, 1), "images"},
		{"image outside", strings.Replace(face(""), `a/cover.jpg`, `../cover.jpg`, 1), "inside"},
		{"absolute image", strings.Replace(face(""), `a/cover.jpg`, `/etc/cover.jpg`, 1), "inside"},
		{"long trait", face(`, "traits": {"hands": "` + strings.Repeat("h", 201) + `"}`), "200"},
		{"repeated key", `{"faces": [` + face("")[11:len(face(""))-2] + `, ` + face("")[11:len(face(""))-2] + `]}`, "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tt.doc))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				f := m.Faces[0]
				if f.Name != "Inès M" || f.Currency != "usd" || f.Traits.Height != "178 cm" || !reflect.DeepEqual(f.Traits.Marks, []string{"mole"}) {
					t.Errorf("face %+v; want the name and traits cleaned, currency usd", f)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err %v; want one naming %q", err, tt.err)
			}
		})
	}
}

// FuzzParseManifest: whatever the document, a manifest either is refused
// or every face in it is one the board can show.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"faces": [{"key": "a", "name": "A", "tier": "free", "images": ["x.jpg"]}]}`))
	f.Add([]byte(`{"faces": [{"key": "b-2", "name": "B", "tier": "exclusive", "priceCents": 1, "currency": "gbp", "images": ["d/y.png"], "traits": {"marks": ["m"]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for _, face := range m.Faces {
			if !keyPattern.MatchString(face.Key) || face.Name == "" || len(face.Images) == 0 || len(face.Images) > MaxAssets ||
				!currencyPattern.MatchString(face.Currency) || (face.Tier == Free) != (face.PriceCents == 0) || face.Traits.Validate() != nil {
				t.Fatalf("accepted a face the board cannot show: %+v", face)
			}
		}
	})
}

func TestTraitsMerge(t *testing.T) {
	stored := Traits{Height: "180 cm", Build: "slim", Marks: []string{"mole"}}
	var p TraitsPatch
	if err := json.Unmarshal([]byte(`{"height": null, "hands": " long ", "marks": ["scar", ""]}`), &p); err != nil {
		t.Fatal(err)
	}
	got := stored.Merge(p)
	want := Traits{Build: "slim", Hands: "long", Marks: []string{"scar"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v; want %+v", got, want)
	}
	if got := stored.Merge(TraitsPatch{}); !reflect.DeepEqual(got, stored) {
		t.Errorf("an empty patch changed the traits: %+v", got)
	}
}

func TestCollageGrid(t *testing.T) {
	for _, tc := range []struct{ n, cols, rows int }{{1, 1, 1}, {3, 3, 1}, {4, 2, 2}, {5, 3, 2}, {12, 4, 3}} {
		if c, r := grid(tc.n); c != tc.cols || r != tc.rows {
			t.Errorf("grid(%d) = %d x %d; want %d x %d", tc.n, c, r, tc.cols, tc.rows)
		}
	}
	// Five tiles: three on the first row, two centred on the second.
	var tiles []image.Image
	for i := range 5 {
		img := image.NewRGBA(image.Rect(0, 0, 30, 20))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+3] = uint8(40*i+20), 255
		}
		tiles = append(tiles, Tile(img))
	}
	data, w, h, err := Collage(tiles)
	if err != nil {
		t.Fatal(err)
	}
	if w != 3*tileW+4*gap || h != 2*tileH+3*gap {
		t.Fatalf("collage %d x %d", w, h)
	}
	img, _, err := image.Decode(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int) uint8 { r, _, _, _ := img.At(x, y).RGBA(); return uint8(r >> 8) }
	if r := at(w/2, gap+tileH/2); r < 50 || r > 70 { // the middle of the first row is the second tile (red 60)
		t.Errorf("first row centre red %d; want the second tile's 60", r)
	}
	if r := at(w/2-tileW/2, 2*gap+tileH+tileH/2); r < 130 || r > 150 { // the last row's first tile (red 140) starts half a tile in
		t.Errorf("last row, left of centre: red %d; want the fourth tile's 140", r)
	}
	// The second row's two tiles sit half a tile in: its left edge is white.
	if c := img.At(gap+tileW/4, 2*gap+tileH+tileH/2); !near(c, color.White) {
		t.Errorf("left of the short last row is %v; want the white ground", c)
	}
}

func near(c, d color.Color) bool {
	r1, g1, b1, _ := c.RGBA()
	r2, g2, b2, _ := d.RGBA()
	diff := func(a, b uint32) bool { return a>>8 > b>>8+8 || b>>8 > a>>8+8 }
	return !diff(r1, r2) && !diff(g1, g2) && !diff(b1, b2)
}
