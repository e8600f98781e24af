package local

import (
	"image"
	"math"
	"slices"
	"strings"

	"github.com/disintegration/imaging"

	"studio/internal/engine"
	"studio/internal/picture"
)

// Directions are the written directions the local engine follows on a take
// or a redraw (DECISIONS §11): it renders the same frame from the same
// inputs, so it can act only on what it computes, after the tool:
//
//	warmer, cooler           white balance: red and blue 6% apart
//	brighter, darker         exposure: 12% more or less light
//	more/less contrast       15% more, 13% less around mid grey
//	softer/harder shadows    the shadows lifted or deepened (gamma 0.8 / 1.25 below mid grey)
//	tighter/wider crop       12% closer (cropped and resampled) or wider (the canvas extended)
//
// A direction is one or more of them, joined by commas or "and", with
// filler words allowed ("warmer light", "a bit darker, tighter crop");
// any other word makes it one the engine cannot follow, which a take
// refuses before it holds anything (DIRECTION_UNSUPPORTED).
var Directions = []string{"warmer", "cooler", "brighter", "darker", "more contrast", "less contrast",
	"softer shadows", "harder shadows", "tighter crop", "wider crop"}

// phrasings are the word sequences each direction may be written as,
// once filler words are dropped.
var phrasings = map[string][]string{
	"warmer":         {"warmer", "warm"},
	"cooler":         {"cooler", "cool", "colder"},
	"brighter":       {"brighter", "lighter", "more exposure"},
	"darker":         {"darker", "less exposure"},
	"more contrast":  {"more contrast", "higher contrast", "contrastier", "punchier"},
	"less contrast":  {"less contrast", "lower contrast", "flatter"},
	"softer shadows": {"softer shadows", "softer shadow", "soft shadows", "lighter shadows"},
	"harder shadows": {"harder shadows", "harder shadow", "hard shadows", "deeper shadows"},
	"tighter crop":   {"tighter crop", "tighter", "closer crop", "closer", "crop tighter", "crop in"},
	"wider crop":     {"wider crop", "wider", "looser crop", "crop wider", "crop out"},
}

// fillers are words a direction may carry that change nothing.
var fillers = map[string]bool{"a": true, "bit": true, "little": true, "slightly": true, "somewhat": true, "much": true,
	"please": true, "make": true, "it": true, "the": true, "light": true, "lighting": true, "tone": true, "tones": true,
	"overall": true, "colour": true, "color": true, "colours": true, "colors": true, "frame": true, "image": true,
	"picture": true, "photo": true, "shot": true, "with": true, "then": true}

// parseDirection reads a written direction into the directions it names,
// in the order given; ok is false when any part of it is not one.
func parseDirection(s string) ([]string, bool) {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r == ' ' || r == ',' || r == ';' {
			return r
		}
		if r == '-' || r == '.' || r == '!' || r == '/' || r == '&' || r == '+' || r == '\n' || r == '\t' {
			return ','
		}
		return -1
	}, s)
	var out []string
	for clause := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ';' }) {
		for part := range strings.SplitSeq(" "+clause+" ", " and ") {
			var words []string
			for _, w := range strings.Fields(part) {
				if !fillers[w] {
					words = append(words, w)
				}
			}
			if len(words) == 0 {
				continue
			}
			said := strings.Join(words, " ")
			found := ""
			for _, d := range Directions {
				if slices.Contains(phrasings[d], said) {
					found = d
				}
			}
			if found == "" {
				return nil, false
			}
			if !slices.Contains(out, found) {
				out = append(out, found)
			}
		}
	}
	return out, len(out) > 0
}

// Follows reports whether the local engine follows direction (every tool
// it performs takes the same vocabulary), and the vocabulary.
func (l *Engine) Follows(tool, direction string) ([]string, bool) {
	_, ok := parseDirection(direction)
	return slices.Clone(Directions), ok
}

// Follows reports whether the look proofs follow direction: the same vocabulary.
func (Lookbook) Follows(tool, direction string) ([]string, bool) {
	_, ok := parseDirection(direction)
	return slices.Clone(Directions), ok
}

// directed applies the request's written direction (params.direction, the
// service's, not a tool option) to a developed still: an unreadable or
// empty direction changes nothing (a take refused it before the hold).
func directed(r engine.Request, res engine.Result) (engine.Result, error) {
	dirs, ok := parseDirection(r.Direction())
	if !ok || !strings.HasPrefix(res.Mime, "image/") {
		return res, nil
	}
	img, err := picture.Decode(res.Data)
	if err != nil {
		return engine.Result{}, engine.ProviderError(r.Tool, "The local engine failed on this image.", err)
	}
	// A cut-out keeps its clear ground (a wider crop extends it clear); a
	// frame keeps its format.
	img = followAll(img, dirs, picture.HasAlpha(img))
	if res.Mime == "image/png" {
		return engine.EncodePNG(img)
	}
	return engine.EncodeJPEG(img)
}

// followAll applies each of dirs to img in turn.
func followAll(img *image.NRGBA, dirs []string, transparent bool) *image.NRGBA {
	for _, d := range dirs {
		img = follow(img, d, transparent)
	}
	return img
}

// follow applies one direction to img, keeping its size.
func follow(img *image.NRGBA, d string, transparent bool) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	switch d {
	case "tighter crop":
		cw, ch := int(0.88*float64(w)), int(0.88*float64(h))
		return imaging.Resize(imaging.CropCenter(img, cw, ch), w, h, imaging.Lanczos)
	case "wider crop":
		small := imaging.Resize(img, int(0.88*float64(w)), int(0.88*float64(h)), imaging.Lanczos)
		return picture.Extend(small, w, h, picture.FillAuto, transparent)
	}
	var f func(c float64, ch int) float64
	switch d {
	case "warmer":
		f = func(c float64, ch int) float64 { return c * [3]float64{1.06, 1, 0.94}[ch] }
	case "cooler":
		f = func(c float64, ch int) float64 { return c * [3]float64{0.94, 1, 1.06}[ch] }
	case "brighter":
		f = func(c float64, _ int) float64 { return c * 1.12 }
	case "darker":
		f = func(c float64, _ int) float64 { return c * 0.88 }
	case "more contrast":
		f = func(c float64, _ int) float64 { return 128 + (c-128)*1.15 }
	case "less contrast":
		f = func(c float64, _ int) float64 { return 128 + (c-128)*0.87 }
	case "softer shadows":
		f = func(c float64, _ int) float64 { return shadowCurve(c, 0.8) }
	case "harder shadows":
		f = func(c float64, _ int) float64 { return shadowCurve(c, 1.25) }
	default:
		return img
	}
	var table [3][256]uint8
	for ch := range 3 {
		for v := range 256 {
			table[ch][v] = picture.Clamp8(f(float64(v), ch))
		}
	}
	out := imaging.Clone(img)
	picture.Parallel(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := out.Pix[y*out.Stride : y*out.Stride+w*4]
			for x := 0; x < w; x++ {
				for ch := range 3 {
					row[x*4+ch] = table[ch][row[x*4+ch]]
				}
			}
		}
	})
	return out
}

// shadowCurve bends the values below mid grey by gamma g (under 1 lifts
// them), leaving mid grey and above as they are.
func shadowCurve(c, g float64) float64 {
	if c >= 128 {
		return c
	}
	return 128 * math.Pow(c/128, g)
}
