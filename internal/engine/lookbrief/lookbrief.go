// Package lookbrief turns a look frame's request (tool "lookbook", as the
// look service writes it) into what a generating provider is asked: the
// reference images in order, one prompt, the aspect the frame is composed
// for and its size. The fal engine and the image API engine both build on
// it, so a look reads the same whichever provider serves it.
//
// The lock frame (no base input) sends the cast model first, then the
// pieces (the look service orders them hero first), then the background
// asset when there is one; the prompt names each image's part ("image 2 is
// the hero piece, a top: Linen shirt"), asks for that model wearing those
// pieces, the ground (the preset in words, or the last image), the
// aesthetic in words and a composition for the destination's aspect.
//
// A variation frame sends the locked look base first, then the pieces as
// references for their detail; the prompt keeps the model, outfit, ground
// and light of image 1 and gives the key's framing and pose (keyDirectives).
// A posture:<id> key takes the posture's definition and fragment (the look
// service writes them as params.posture) and the stored controls
// (params.control.*), each in words. The house's marks riding with the
// frame (Request.Marks) follow the look's own images, each named by its
// position and material (MarkWords); the closing then forbids any text
// or logo but theirs. The house's direction (Request.Prompt) ends the
// prompt, where models weigh words most.
package lookbrief

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"studio/internal/engine"
)

// Tool is the look frames' tool.
const Tool = "lookbook"

// Brief is what a provider is asked for one look frame.
type Brief struct {
	Variation bool
	Images    [][]byte         // the references, in the order the prompt names them
	Parts     []string         // what each image is, for logs and tests ("model", "item", "background", "base", "mark")
	Refs      []engine.SentRef // each image as it is recorded: role, label, asset (a mark with its material)
	Prompt    string
	Aspect    engine.Aspect // the destination's aspect (4:5 without one)
	Width     int           // the frame's size: Aspect at the tier's pixels,
	Height    int           // doubled (at most 8192) by a restoration pass
}

// LongEdge is the frame's long edge in pixels.
func (b Brief) LongEdge() int { return max(b.Width, b.Height) }

// Sent is the brief as a provider receives it: its prompt and its images.
func (b Brief) Sent() engine.Sent { return engine.Sent{Prompt: b.Prompt, Refs: b.Refs} }

// Piece is one piece of the look as the prompt names it.
type Piece struct {
	Role, Label string
	Hero        bool
	// Colour is the piece's colour as measured from its picture
	// (ColourName), when it has no label that describes it.
	Colour string
}

// Of builds the brief of r, a lookbook request. A request without a model
// (lock) or a base (variation) is an input fault. The marks riding with
// the frame (the references with bytes, engine.Request.Marks) follow the
// look's own images, each named in the prompt by its position and material.
func Of(r engine.Request) (Brief, error) {
	if r.Tool != Tool {
		return Brief{}, fmt.Errorf("lookbrief: tool %q is not %q", r.Tool, Tool)
	}
	b := Brief{Aspect: aspect(r)}
	b.Width, b.Height = FrameSize(r)
	pieces := Pieces(r)
	add := func(data []byte, part string, ref engine.SentRef) {
		b.Images, b.Parts, b.Refs = append(b.Images, data), append(b.Parts, part), append(b.Refs, ref)
	}
	items := func() {
		n := 0
		for _, in := range r.Inputs {
			if in.Role == "item" {
				ref := in.Sent()
				if n < len(pieces) {
					ref.Label = pieces[n].Label
				}
				add(in.Data, "item", ref)
				n++
			}
		}
	}
	marks := func() []engine.Reference {
		ms := r.Marks()
		for _, m := range ms {
			add(m.Data, "mark", m.Sent())
		}
		return ms
	}
	if base, ok := input(r, "base"); ok {
		b.Variation = true
		add(base.Data, "base", base.Sent())
		items()
		first := len(b.Images) + 1
		b.Prompt = variationPrompt(r, pieces, MarkWords(marks(), first))
		return b, nil
	}
	model, ok := input(r, "model")
	if !ok {
		return Brief{}, engine.InputError(r.Tool, "A look frame needs the cast model's image.", nil)
	}
	add(model.Data, "model", model.Sent())
	items()
	bg, hasBG := input(r, "background")
	if hasBG {
		add(bg.Data, "background", bg.Sent())
	}
	first := len(b.Images) + 1
	b.Prompt = lockPrompt(r, pieces, hasBG, MarkWords(marks(), first))
	return b, nil
}

// input is the first input of r in role.
func input(r engine.Request, role string) (engine.Input, bool) {
	for _, in := range r.Inputs {
		if in.Role == role {
			return in, true
		}
	}
	return engine.Input{}, false
}

// FrameSize is the frame's size: the destination's aspect (4:5 without
// one) at the tier's pixels on the long edge, doubled by a restoration pass
// (params.restore=1), at most 8192, as the local proofs are sized.
func FrameSize(r engine.Request) (int, int) {
	w, h := engine.Canvas(r.Tier, aspect(r))
	if r.Param("restore") == "1" {
		s := math.Min(2, 8192/float64(max(w, h)))
		w, h = int(math.Round(float64(w)*s)), int(math.Round(float64(h)*s))
	}
	return w, h
}

func aspect(r engine.Request) engine.Aspect {
	if r.Shape != nil && r.Shape.Width > 0 && r.Shape.Height > 0 {
		return r.Shape.Aspect()
	}
	return engine.Aspect{W: 4, H: 5}
}

// Pieces are the look's pieces in the order of the item inputs: roles from
// params.roles, labels from params.labels (a JSON array); the first is the
// hero. A label that is a file name (Describes) is never used: such a
// piece is described by its colour, measured from its picture.
func Pieces(r engine.Request) []Piece {
	items := r.All("item")
	n := len(items)
	roles := strings.Split(r.Param("roles"), ",")
	var labels []string
	_ = json.Unmarshal([]byte(r.Param("labels")), &labels)
	out := make([]Piece, n)
	for i := range out {
		p := Piece{Role: "piece", Hero: i == 0}
		if i < len(roles) && strings.TrimSpace(roles[i]) != "" {
			p.Role = strings.TrimSpace(roles[i])
		}
		if i < len(labels) && Describes(labels[i]) {
			p.Label = oneLine(labels[i])
		}
		if p.Label == "" {
			p.Colour = ColourName(items[i])
		}
		out[i] = p
	}
	return out
}

// Nearest is the ratio among accepted ("W:H") closest to a in log ratio;
// "" when accepted is empty.
func Nearest(a engine.Aspect, accepted []string) string {
	best, bestD := "", math.Inf(1)
	for _, s := range accepted {
		c, err := engine.ParseAspect(s)
		if err != nil {
			continue
		}
		if d := math.Abs(math.Log(c.Ratio() / a.Ratio())); d < bestD {
			best, bestD = s, d
		}
	}
	return best
}

// Fits reports whether a w x h answer has the aspect asked ("W:H") within
// 3%: a model that ignored the aspect answered the wrong frame.
func Fits(asked string, w, h int) bool {
	a, err := engine.ParseAspect(asked)
	if err != nil || w < 1 || h < 1 {
		return false
	}
	return math.Abs(math.Log(float64(w)/float64(h)/a.Ratio())) <= math.Log(1.03)
}

// MinEdge is the smallest long edge a provider's answer may have: below
// it no restoration pass makes a frame of it.
const MinEdge = 256

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ratioWords is "a portrait frame of aspect 4:5": the aspect in its
// smallest whole terms when they are small, else as 1:1.41.
func ratioWords(a engine.Aspect) string {
	orient := "square"
	switch {
	case a.Ratio() > 1.02:
		orient = "landscape"
	case a.Ratio() < 0.98:
		orient = "portrait"
	}
	return fmt.Sprintf("a %s frame of aspect %s", orient, ratioString(a))
}

func ratioString(a engine.Aspect) string {
	w, h := int(math.Round(a.W)), int(math.Round(a.H))
	if float64(w) == a.W && float64(h) == a.H && w > 0 && h > 0 {
		g := gcd(w, h)
		if w/g <= 32 && h/g <= 32 {
			return strconv.Itoa(w/g) + ":" + strconv.Itoa(h/g)
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
	if a.Ratio() >= 1 {
		return f(a.Ratio()) + ":1"
	}
	return "1:" + f(1/a.Ratio())
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
