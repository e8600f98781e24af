package look

import "strings"

// BackgroundPreset describes a ground a look may stand on without an asset.
type BackgroundPreset struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Tone        string `json:"tone" description:"The ground's dominant colour as #rrggbb; the local engine paints with it."`
	Description string `json:"description"`
}

// BackgroundLibrary describes every background preset, in catalog order.
var BackgroundLibrary = []BackgroundPreset{
	{"studio-white", "Studio white", "#f4f4f2", "A white cyclorama with a soft floor shadow."},
	{"studio-grey", "Studio grey", "#9a9b9d", "A mid-grey paper sweep."},
	{"seamless-sand", "Seamless sand", "#d8c4a4", "A warm sand-coloured seamless."},
	{"concrete", "Concrete", "#8c8883", "A raw concrete wall and floor."},
	{"garden", "Garden", "#5f7a4b", "Green foliage, out of focus."},
	{"city-street", "City street", "#6b6e75", "A city pavement and facades, out of focus."},
	{"beach", "Beach", "#cdb892", "Sand and a pale sky."},
}

// Tone returns the colour of a background preset ("#808080" when unknown).
func Tone(preset string) string {
	for _, b := range BackgroundLibrary {
		if b.ID == preset {
			return b.Tone
		}
	}
	return "#808080"
}

// Scene says a background preset in words for a generating engine: its
// name and description ("" when unknown).
func Scene(preset string) string {
	for _, b := range BackgroundLibrary {
		if b.ID == preset {
			return b.Name + ", " + strings.ToLower(b.Description[:1]) + b.Description[1:]
		}
	}
	return ""
}

// Template is a lookbook shot template: a ready plan of grade, ground,
// destination and variation keys a director may start a look from.
type Template struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Description   string     `json:"description"`
	Aesthetic     string     `json:"aesthetic" enum:"editorial,minimal,street,studio,romantic,noir"`
	Background    Background `json:"background"`
	Destination   string     `json:"destination" description:"The named output destination the template frames for."`
	Quality       string     `json:"quality" enum:"1k,2k,4k"`
	VariationKeys []string   `json:"variationKeys"`
}

func preset(v string) Background { return Background{Kind: "preset", Value: v} }

// Templates are the built-in shot templates, the same for every house.
var Templates = []Template{
	{"ecommerce-pdp", "E-commerce product page", "Clean product-page coverage: front, back, side and a detail.",
		"minimal", preset("studio-white"), "pdp-portrait", "2k", []string{"front", "back", "side", "detail"}},
	{"editorial-story", "Editorial story", "A magazine sequence with movement and a close-up.",
		"editorial", preset("concrete"), "feed-portrait", "2k", []string{"three-quarter", "walking", "seated", "close-up"}},
	{"street-campaign", "Street campaign", "Outdoor energy for social stories.",
		"street", preset("city-street"), "story", "2k", []string{"walking", "side", "posture:lean-wall"}},
	{"resort-landscape", "Resort landscape", "Wide hero frames for a resort drop.",
		"romantic", preset("beach"), "landscape-hero", "2k", []string{"front", "walking", "posture:spin"}},
	{"noir-print", "Noir print", "High-contrast frames for print.",
		"noir", preset("studio-grey"), "print-a4", "4k", []string{"front", "three-quarter", "close-up"}},
	{"lookbook-grid", "Lookbook grid", "Square tiles for a web lookbook grid.",
		"studio", preset("seamless-sand"), "web-tile", "1k", []string{"front", "three-quarter"}},
}

// FindTemplate returns the template with id.
func FindTemplate(id string) (Template, bool) {
	for _, t := range Templates {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}
