package lookbrief

import (
	"fmt"
	"strings"

	"studio/internal/engine"
)

// Aesthetics say each look aesthetic in words a model follows.
var Aesthetics = map[string]string{
	"editorial": "editorial fashion-magazine photography: directional light, refined contrast, a considered pose",
	"minimal":   "minimal and quiet: soft even light, muted colour, clean lines, nothing extra in the frame",
	"street":    "street-style photography: natural daylight, vivid punchy colour, an unstaged feel",
	"studio":    "classic studio fashion photography: a soft key light, true colour, crisp detail",
	"romantic":  "romantic: warm soft light, a gentle pastel grade, lifted shadows",
	"noir":      "black-and-white photography: high contrast, deep shadows, hard light",
}

// KeyDirectives are the framing and pose of each fixed variation key.
var KeyDirectives = map[string]string{
	"front":         "full length, facing the camera, standing naturally, the whole outfit visible from head to feet",
	"back":          "full length, seen from directly behind, showing the back of every piece",
	"side":          "full length, in profile, turned 90 degrees to the camera",
	"three-quarter": "full length, the body turned three-quarters to the camera, the face towards it",
	"walking":       "full length, walking towards the camera mid-stride, the garments moving naturally",
	"seated":        "seated on a simple block, the full figure visible, relaxed",
	"detail":        "a tight detail shot of the hero piece: its fabric, construction and finish filling the frame",
	"close-up":      "a head-and-shoulders close-up, the neckline of the outfit visible",
}

// Controls say each posture axis stop in words.
var Controls = map[string]map[string]string{
	"gaze":   {"camera": "looking into the camera", "away": "looking away from the camera", "down": "looking down"},
	"weight": {"left": "weight on the left leg", "even": "weight even on both legs", "right": "weight on the right leg"},
	"arms":   {"relaxed": "arms relaxed", "pockets": "hands in the pockets", "hip": "one hand on the hip", "crossed": "arms crossed"},
	"energy": {"still": "still and composed", "easy": "easy and relaxed", "dynamic": "dynamic, full of movement"},
}

// posturePrefix starts a posture key (look.PosturePrefix).
const posturePrefix = "posture:"

// closing is asked of every look frame; closingMarked of one the house's
// logo renditions ride with, whose logos are the only text it may show.
const (
	closing       = "A photorealistic fashion photograph; no text, no watermark, no collage, no borders."
	closingMarked = "A photorealistic fashion photograph; no watermark, no collage, no borders, and no text or logo other than the logo renditions shown."
)

// MarkWords names the marks riding with the frame by their positions, from
// image first: " Image 4 is the house's logo rendition Wordmark, in gold
// foil; ... Reproduce each logo exactly as shown, in its material, on the
// outfit where the house's direction places it." "" without marks.
func MarkWords(marks []engine.Reference, first int) string {
	if len(marks) == 0 {
		return ""
	}
	parts := make([]string, len(marks))
	for i, m := range marks {
		s := fmt.Sprintf("image %d is the house's logo rendition", first+i)
		if l := oneLine(m.Label); Describes(l) {
			s += " " + l
		}
		if t := oneLine(m.Text); t != "" {
			s += ", in " + strings.TrimSuffix(t, ".")
		}
		parts[i] = s
	}
	one := "Reproduce the logo exactly as shown, in its material, on the outfit where the house's direction places it."
	if len(marks) > 1 {
		one = "Reproduce each logo exactly as shown, in its material, on the outfit where the house's direction places it."
	}
	return " " + strings.ToUpper(parts[0][:1]) + strings.Join(parts, "; ")[1:] + ". " + one
}

// ending is the marks' words, then the closing that suits them.
func ending(marks string) string {
	if marks == "" {
		return " " + closing
	}
	return marks + " " + closingMarked
}

func lockPrompt(r engine.Request, pieces []Piece, hasBG bool, marks string) string {
	var b strings.Builder
	b.WriteString("Image 1 is the model. Photograph this same person, with the same face, hair, skin tone, body and proportions, wearing the pieces shown in the following images together as one outfit:")
	b.WriteString(pieceList(pieces))
	b.WriteString(" Reproduce each piece exactly, with its colour, fabric, pattern, cut and details, worn as its role says.")
	if hasBG {
		fmt.Fprintf(&b, " The setting is the place shown in image %d.", len(pieces)+2)
	} else if s := sceneWords(r); s != "" {
		b.WriteString(" The setting: " + s + ".")
	}
	if a := Aesthetics[r.Param("aesthetic")]; a != "" {
		b.WriteString(" The aesthetic: " + a + ".")
	}
	fmt.Fprintf(&b, " Compose %s: full length, the model standing, the whole outfit visible from head to feet.", ratioWords(aspect(r)))
	b.WriteString(ending(marks))
	return withDirection(b.String(), r)
}

func variationPrompt(r engine.Request, pieces []Piece, marks string) string {
	var b strings.Builder
	b.WriteString("Image 1 is the locked look. Keep the same model, the same outfit exactly, the same setting, light and colour grade.")
	if len(pieces) > 0 {
		b.WriteString(" The following images are its pieces, for their detail:")
		b.WriteString(pieceList(pieces))
	}
	b.WriteString(" Re-shoot it: " + Directive(r, pieces) + ".")
	if a := Aesthetics[r.Param("aesthetic")]; a != "" {
		b.WriteString(" The aesthetic: " + a + ".")
	}
	fmt.Fprintf(&b, " Compose %s.", ratioWords(aspect(r)))
	b.WriteString(ending(marks))
	return withDirection(b.String(), r)
}

// Directive is a variation key's framing and pose in words: a fixed key's
// KeyDirectives entry (detail names the hero piece), or for posture:<id>
// the posture's definition and fragment with the stored controls.
func Directive(r engine.Request, pieces []Piece) string {
	key := r.Param("key")
	if _, ok := strings.CutPrefix(key, posturePrefix); ok {
		d := "full length, posed: " + cmpOr(oneLine(r.Param("posture")), "a natural fashion pose")
		if c := controlWords(r); c != "" {
			d += "; " + c
		}
		return d
	}
	d, ok := KeyDirectives[key]
	if !ok {
		return KeyDirectives["front"]
	}
	if key == "detail" && len(pieces) > 0 {
		d += " (" + pieceWords(pieces[0]) + ")"
	}
	return d
}

// controlWords are the stored posture controls in words, in axis order.
func controlWords(r engine.Request) string {
	var out []string
	for _, c := range []struct{ axis, value string }{
		{"gaze", r.Param("control.gaze")}, {"weight", r.Param("control.weight")},
		{"arms", r.Param("control.arms")}, {"energy", r.Param("control.energy")},
	} {
		if w := Controls[c.axis][c.value]; w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, ", ")
}

// pieceList is " image 2 is the hero piece, a top: Linen shirt; image 3
// is a bottom." for the pieces following image 1.
func pieceList(pieces []Piece) string {
	parts := make([]string, len(pieces))
	for i, p := range pieces {
		parts[i] = fmt.Sprintf("image %d is %s", i+2, pieceWords(p))
	}
	return " " + strings.Join(parts, "; ") + "."
}

func pieceWords(p Piece) string {
	what := p.Role
	if p.Label == "" && p.Colour != "" {
		what = p.Colour + " " + p.Role
	}
	s := "a " + what
	if p.Hero {
		s = "the hero piece, a " + what
	}
	if p.Label != "" {
		s += ": " + p.Label
	}
	return s
}

// sceneWords is the background preset in words (params.scene).
func sceneWords(r engine.Request) string {
	return strings.TrimSuffix(oneLine(r.Param("scene")), ".")
}

func withDirection(s string, r engine.Request) string {
	if d := oneLine(r.Prompt); d != "" {
		return s + " " + d
	}
	return s
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
