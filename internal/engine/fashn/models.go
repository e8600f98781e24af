package fashn

import (
	"strings"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
)

// DefaultModels maps each tool to the FASHN model that performs it. It is
// configuration, not code: WithModels replaces entries. "tryon+fast" is
// the model of a try-on asked with speed=fast, "lookbook+variation" the
// model of a look's variation frame.
var DefaultModels = map[string]string{
	"tryon":              "tryon-max",
	"tryon+fast":         "tryon-v1.6",
	"lookbook":           "tryon-max",
	"lookbook+variation": "product-to-model",
	"generate-character": "model-create",
	"remove-background":  "background-remove",
	"reframe":            "reframe",
	"iron":               "edit",
	"color-change":       "edit",
	"fit-adjust":         "edit",
	"camera-lens":        "edit",
	"lookbook-video":     "image-to-video",
}

// The aspect_ratio values each model accepts (FASHN's API reference).
var (
	tryonAspects  = []string{"21:9", "1:1", "4:3", "3:2", "2:3", "5:4", "4:5", "3:4", "16:9", "9:16"}
	createAspects = []string{"1:1", "2:3", "3:4", "4:5", "5:4", "4:3", "3:2", "16:9", "9:16"}
)

// CharacterFromPhoto is generate-character's own instruction when a photo
// is given (it rides as face_reference): sent first, the house's words
// after it, never instead of it.
const CharacterFromPhoto = "A full-length fashion model with the face of the reference photo, on a plain studio background."

// VideoInstruction is lookbook-video's own instruction (image-to-video's
// motion prompt): sent first, the house's words after it.
const VideoInstruction = "The model walks gently towards the camera and turns, the garment moving naturally; steady camera."

// call is one prediction: a model and its inputs; onto names the input
// that takes the previous call's output when calls are chained.
type call struct {
	model  string
	inputs map[string]any
	onto   string
}

// plan is what a request is sent as: its predictions in order, the record
// of what was sent, for a look frame the frame's size, and the shape the
// answer is finished in when the request's own does not say it (a
// reframe's or a character's aspect: the model's nearest accepted ratio is
// composed for the one asked).
type plan struct {
	calls         []call
	sent          engine.Sent
	width, height int
	shape         *engine.Shape
	video         bool // the answer is a video, kept as FASHN sent it
}

// shapeOf is a shape of aspect a at the request's tier.
func shapeOf(r engine.Request, a engine.Aspect) *engine.Shape {
	w, h := engine.Canvas(r.Tier, a)
	return &engine.Shape{Width: w, Height: h}
}

// resolution is the resolution input reaching a long edge of long pixels.
func resolution(long int) string {
	switch {
	case long <= 1024:
		return "1k"
	case long <= 2048:
		return "2k"
	}
	return "4k"
}

// plan turns a request into FASHN predictions. Images travel as data URIs.
// The house's direction (Request.Prompt) joins the words of the models
// that take a prompt (model-create, a look's frames); the riding marks go
// nowhere, since no FASHN model is shown them, so nothing is said of them.
func (e *Engine) plan(r engine.Request, uris map[string][]string) (plan, error) {
	first := func(role string) string {
		if u := uris[role]; len(u) > 0 {
			return u[0]
		}
		return ""
	}
	var p plan
	switch r.Tool {
	case "tryon":
		fast := r.Param("speed") == "fast"
		for i, g := range uris["garment"] {
			c := call{model: e.Models["tryon"], onto: "model_image",
				inputs: map[string]any{"model_image": first("model"), "product_image": g,
					"resolution": resolution(r.Tier.Pixels()), "output_format": "png"}}
			if fast {
				c = call{model: e.Models["tryon+fast"], onto: "model_image",
					inputs: map[string]any{"model_image": first("model"), "garment_image": g, "category": "auto",
						"mode": "performance", "output_format": "png"}}
			}
			if i > 0 {
				delete(c.inputs, "model_image")
			}
			p.calls = append(p.calls, c)
		}
		p.sent = engine.Sent{Refs: r.InputsSent("model", "garment")}
	case "remove-background":
		p.calls = []call{{model: e.Models[r.Tool], inputs: map[string]any{"image": first("image")}}}
		p.sent = engine.Sent{Refs: r.InputsSent("image")}
	case "reframe":
		a := engine.Aspect{}
		if r.Shape != nil {
			a = r.Shape.Aspect()
		} else {
			var err error
			if a, err = engine.ParseAspect(r.Param("aspect")); err != nil {
				return plan{}, engine.InputError(r.Tool, "Reframe needs an aspect option (like 4:5) or an output destination.", err)
			}
		}
		p.calls = []call{{model: e.Models[r.Tool], inputs: map[string]any{"image": first("image"),
			"aspect_ratio": lookbrief.Nearest(a, tryonAspects), "output_format": "png"}}}
		p.sent = engine.Sent{Refs: r.InputsSent("image")}
		p.shape = shapeOf(r, a)
	case "generate-character":
		words := direction(r)
		in := map[string]any{"resolution": resolution(r.Tier.Pixels()), "output_format": "png", "num_images": 1}
		if img := first("image"); img != "" {
			words = strings.TrimSpace(CharacterFromPhoto + " " + words)
			in["face_reference"] = img
			in["face_reference_mode"] = "match_reference"
		} else if r.Shape == nil {
			p.shape = shapeOf(r, characterAspect(r))
		}
		in["prompt"] = words
		in["aspect_ratio"] = lookbrief.Nearest(characterAspect(r), createAspects)
		p.calls = []call{{model: e.Models[r.Tool], inputs: in}}
		p.sent = engine.Sent{Prompt: words, Refs: r.InputsSent("image")}
	case "iron", "color-change", "fit-adjust", "camera-lens":
		// The tool's own instruction first, the house's words after it.
		words := strings.TrimSpace(engine.Instruction(r) + " " + direction(r))
		in := map[string]any{"image": first("image"), "prompt": words, "output_format": "png"}
		if m := first("mask"); m != "" {
			in["mask"] = m // white marks where the edit goes, as our masks do
		}
		p.calls = []call{{model: e.Models[r.Tool], inputs: in}}
		p.sent = engine.Sent{Prompt: words, Refs: r.InputsSent("image", "mask")}
	case "lookbook-video":
		// FASHN's image-to-video: 5 s at its best resolution, 1080p (the
		// catalog prices it at 1k, the quality delivered); the tool's own
		// instruction first, the house's words after it.
		words := strings.TrimSpace(VideoInstruction + " " + direction(r))
		p.calls = []call{{model: e.Models[r.Tool], inputs: map[string]any{"image": first("image"), "prompt": words,
			"duration": 5, "resolution": "1080p"}}}
		p.sent = engine.Sent{Prompt: words, Refs: r.InputsSent("image")}
		p.video = true
	case lookbrief.Tool:
		return e.planLook(r, uris)
	default:
		return plan{}, engine.Unsupported(e.Name(), r.Tool)
	}
	return p, nil
}

// planLook plans a look frame. The lock frame dresses the cast model in
// the hero piece on tryon-max (each further piece onto the last result),
// with the look's aesthetic and the house's words as its prompt; a
// variation is product-to-model in try-on mode: the cast model, the hero
// piece, the locked frame as the image that guides pose, ground and light,
// and the key's framing and pose in words. The frame is finished at the
// look's size (lookbrief.FrameSize).
func (e *Engine) planLook(r engine.Request, uris map[string][]string) (plan, error) {
	models, items := uris["model"], uris["item"]
	if len(models) == 0 || len(items) == 0 {
		return plan{}, engine.InputError(r.Tool, "A FASHN look frame needs the cast model's image and at least one piece.", nil)
	}
	pieces := lookbrief.Pieces(r)
	w, h := lookbrief.FrameSize(r)
	p := plan{width: w, height: h}
	aspect := lookbrief.Nearest(engine.Aspect{W: float64(w), H: float64(h)}, tryonAspects)
	words := strings.Join(strings.Fields(lookbrief.Aesthetics[r.Param("aesthetic")]+" "+direction(r)), " ")
	if base := uris["base"]; len(base) > 0 {
		words = strings.TrimSpace(lookbrief.Directive(r, pieces) + ". " + direction(r))
		p.calls = []call{{model: e.Models["lookbook+variation"], inputs: map[string]any{
			"model_image": models[0], "product_image": items[0], "image_prompt": base[0], "prompt": words,
			"resolution": resolution(max(w, h)), "output_format": "png"}}}
		p.sent = engine.Sent{Prompt: words, Refs: append(r.InputsSent("model"), firstRef(r, "item"), firstRef(r, "base"))}
		return p, nil
	}
	for i, item := range items {
		in := map[string]any{"product_image": item, "aspect_ratio": aspect,
			"resolution": resolution(max(w, h)), "output_format": "png"}
		if i == 0 {
			in["model_image"] = models[0]
		}
		if words != "" {
			in["prompt"] = words
		}
		p.calls = append(p.calls, call{model: e.Models[lookbrief.Tool], inputs: in, onto: "model_image"})
	}
	p.sent = engine.Sent{Prompt: words, Refs: r.InputsSent("model", "item")}
	for i := range p.sent.Refs[1:] {
		if i < len(pieces) {
			p.sent.Refs[i+1].Label = pieces[i].Label
		}
	}
	return p, nil
}

// firstRef is the first input in role as a picture sent.
func firstRef(r engine.Request, role string) engine.SentRef {
	refs := r.InputsSent(role)
	if len(refs) == 0 {
		return engine.SentRef{Role: role}
	}
	return refs[0]
}

// direction is the house's words: the composed Prompt (brand clause,
// standing notes, the develop's prompt...), else params.prompt.
func direction(r engine.Request) string {
	if p := strings.TrimSpace(r.Prompt); p != "" {
		return strings.Join(strings.Fields(p), " ")
	}
	return r.Param("prompt")
}

// characterAspect is the shape's aspect, else params.aspect, else square.
func characterAspect(r engine.Request) engine.Aspect {
	if r.Shape != nil {
		return r.Shape.Aspect()
	}
	if a, err := engine.ParseAspect(r.Param("aspect")); err == nil {
		return a
	}
	return engine.Aspect{W: 1, H: 1}
}
