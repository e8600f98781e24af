package fal

import (
	"encoding/base64"
	"math"
	"strings"

	"studio/internal/engine"
	"studio/internal/engine/lookbrief"
	"studio/internal/ledger"
	"studio/internal/picture"
)

// DefaultModels maps each tool to the fal model id that performs it. It is
// configuration, not code: WithModels replaces entries (for a newer version
// of a model, or another with the same input schema). The entries with a
// "+" suffix are the variant used when the request has the extra input:
// "color-change+mask" when a mask is given, "generate-character+image" when
// an image is given.
var DefaultModels = map[string]string{
	"upscale":                  "fal-ai/esrgan",
	"reframe":                  "fal-ai/bria/expand",
	"packshot":                 "fal-ai/bria/product-shot",
	"remove-background":        "fal-ai/birefnet",
	"camera-lens":              "fal-ai/flux-pro/kontext",
	"harmonize":                "fal-ai/flux-pro/kontext/multi",
	"iron":                     "fal-ai/flux-pro/kontext",
	"cleanup":                  "fal-ai/bria/eraser",
	"color-change":             "fal-ai/flux-pro/kontext",
	"color-change+mask":        "fal-ai/flux-pro/v1/fill",
	"fit-adjust":               "fal-ai/flux-pro/kontext",
	"tryon":                    "fal-ai/fashn/tryon/v1.6",
	"generate-character":       "fal-ai/flux/dev",
	"generate-character+image": "fal-ai/flux-pro/kontext",
	"lookbook-video":           "fal-ai/kling-video/v2.1/standard/image-to-video",
	"lookbook":                 "fal-ai/nano-banana-pro/edit",
}

// call is one submission to the queue: a model and its JSON input, and
// the pictures it carries as the record names them (their order in input).
type call struct {
	model string
	input map[string]any
	refs  []engine.SentRef
}

// words is the text the model reads: its prompt, or the product shot's
// scene description; "" for a model that takes no words.
func (c call) words() string {
	for _, k := range []string{"prompt", "scene_description"} {
		if s, ok := c.input[k].(string); ok {
			return s
		}
	}
	return ""
}

// sent is the call as the record keeps it.
func (c call) sent() engine.Sent { return engine.Sent{Prompt: c.words(), Refs: c.refs} }

// buildCall turns a request into the model's input. Images travel as data
// URIs (base64) in the model's image_url fields. tryon with several garments
// is a chain of calls, built by the engine; this builds the first one.
//
// The house's direction (Request.Prompt) joins the words of every model
// that reads some (Takes); the riding marks go as pictures only to a model
// that takes several (harmonize's image_urls, after the scene and the
// subject, each named by its position and material); the look model takes
// them too (runLook). Every other model takes one picture or none, so its
// marks ride as the direction's words alone.
func (e *Engine) buildCall(r engine.Request, uris map[string][]string, sizes map[string][2]int) (call, error) {
	var refs []engine.SentRef
	one := func(role string) string {
		if u := uris[role]; len(u) > 0 {
			for _, in := range r.Inputs {
				if in.Role == role {
					refs = append(refs, in.Sent())
					break
				}
			}
			return u[0]
		}
		return ""
	}
	model := e.Models[r.Tool]
	in := map[string]any{}
	switch r.Tool {
	case "upscale":
		in["image_url"] = one("image")
		in["scale"] = upscaleFactor(r, sizes["image"])
		in["model"] = "RealESRGAN_x4plus"
		in["output_format"] = "png"
	case "reframe":
		a, err := targetAspect(r)
		if err != nil {
			return call{}, err
		}
		in["image_url"] = one("image")
		in["aspect_ratio"] = nearestAspect(a)
	case "packshot":
		in["image_url"] = one("image")
		in["placement_type"] = "automatic"
		in["num_results"] = 1
		switch bg := r.Param("bg"); bg {
		case "image":
			in["ref_image_url"] = one("background")
		case "", "white":
			in["scene_description"] = "the product alone on a seamless pure white studio background, soft shadow"
		default:
			in["scene_description"] = "the product alone on a seamless plain studio background of colour " + bg + ", soft shadow"
		}
		if d := direction(r); d != "" && in["scene_description"] != nil {
			in["scene_description"] = in["scene_description"].(string) + ". " + d
		}
	case "remove-background":
		in["image_url"] = one("image")
		in["output_format"] = "png"
	case "camera-lens":
		in["image_url"] = one("image")
		in["prompt"] = engine.Instruction(r)
	case "harmonize":
		urls := []string{one("background"), one("image")}
		prompt := "Place the subject of the second image into the scene of the first image, matching its light, colour and shadows. Keep the subject's garments, face and pose exactly."
		marks, words, err := markURIs(r, len(urls)+1)
		if err != nil {
			return call{}, err
		}
		for i, m := range r.Marks() {
			urls = append(urls, marks[i])
			refs = append(refs, m.Sent())
		}
		in["image_urls"] = urls
		in["prompt"] = prompt + words
	case "iron":
		in["image_url"] = one("image")
		in["prompt"] = engine.Instruction(r)
	case "cleanup":
		in["image_url"] = one("image")
		in["mask_url"] = one("mask")
	case "color-change":
		in["image_url"] = one("image")
		in["prompt"] = engine.Instruction(r)
		if m := one("mask"); m != "" {
			model = e.Models["color-change+mask"]
			in["mask_url"] = m
			in["prompt"] = "The same garment in the colour " + r.Param("color") + ", with the same shading, texture and folds."
		}
	case "fit-adjust":
		in["image_url"] = one("image")
		in["prompt"] = engine.Instruction(r)
	case "tryon":
		in["model_image"] = one("model")
		in["garment_image"] = one("garment")
		in["category"] = "auto"
	case "generate-character":
		prompt := direction(r)
		if img := one("image"); img != "" {
			// The tool's own instruction always leads; the house's words
			// (brand clause, the develop's prompt) follow it.
			model = e.Models["generate-character+image"]
			in["image_url"] = img
			prompt = strings.TrimSpace(CharacterFromPhoto + " " + prompt)
		} else {
			// flux/dev is asked at its native size, the 1k canvas of the
			// aspect (about one megapixel; FLUX is made for at most two):
			// a 2k or 4k character is that answer through the restoration
			// pass (fetchResult), not a 4096x4096 FLUX picture.
			w, h := engine.Canvas(fluxNative, targetOrSquare(r))
			in["image_size"] = map[string]int{"width": w, "height": h}
			in["num_images"] = 1
		}
		in["prompt"] = prompt
	case "lookbook-video":
		in["image_url"] = one("image")
		in["prompt"] = strings.TrimSpace(VideoInstruction + " " + direction(r))
		in["duration"] = "5"
	default: // lookbook is built by runLook
		return call{}, engine.ErrUnsupported
	}
	if s := direction(r); s != "" && r.Tool != "generate-character" && r.Tool != "lookbook-video" {
		if p, ok := in["prompt"].(string); ok {
			in["prompt"] = p + " " + s
		}
	}
	return call{model: model, input: in, refs: refs}, nil
}

// fluxNative is the tier whose canvas flux/dev is asked at: a character
// made from words at a higher tier goes through the restoration pass.
const fluxNative = ledger.Tier1K

// The instructions of the tools whose model reads only words: sent first,
// the house's direction (brand clause, the develop's prompt) after them,
// never instead of them.
const (
	CharacterFromPhoto = "The same person as a full-length fashion model on a plain studio background, same face and build."
	VideoInstruction   = "The model walks gently towards the camera and turns, the garment moving naturally; steady camera."
)

// Takes says, for each tool the fal engine performs, whether its model
// reads the house's words (the direction: brand clause, marks' lines,
// standing notes, the frame's prompt) and whether it takes the riding marks
// as pictures. A model that reads no words hears nothing of the direction;
// the record on the job says so (an empty prompt).
var Takes = map[string]struct{ Words, Marks bool }{
	"upscale":            {},
	"reframe":            {},
	"packshot":           {Words: true}, // in scene_description; not with bg=image (ref_image_url)
	"remove-background":  {},
	"camera-lens":        {Words: true},
	"harmonize":          {Words: true, Marks: true},
	"iron":               {Words: true},
	"cleanup":            {},
	"color-change":       {Words: true},
	"fit-adjust":         {Words: true},
	"tryon":              {},
	"generate-character": {Words: true},
	"lookbook-video":     {Words: true},
	"lookbook":           {Words: true, Marks: true},
}

// markURIs are the riding marks as data URIs, and the prompt's words naming
// them from image first on (lookbrief's wording).
func markURIs(r engine.Request, first int) ([]string, string, error) {
	marks := r.Marks()
	out := make([]string, len(marks))
	for i, m := range marks {
		mime, _, _, err := picture.Probe(m.Data)
		if err != nil {
			return nil, "", engine.InputError(r.Tool, "The logo rendition riding with this frame is not an image we can read.", err)
		}
		out[i] = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(m.Data)
	}
	return out, lookbrief.MarkWords(marks, first), nil
}

// direction is the house's words for a model that takes a prompt: the
// composed Prompt (brand clause, standing notes, the frame's prompt,
// direction and correction), one clause a sentence; a request built
// without a director falls back to params.prompt.
func direction(r engine.Request) string {
	if p := strings.TrimSpace(r.Prompt); p != "" {
		return strings.Join(strings.Fields(p), " ")
	}
	return r.Param("prompt")
}

// upscaleFactor is the whole scale (2 or 4, the model's choices) that takes
// the input's long edge to the tier or past it; the result is then resampled
// to the tier exactly.
func upscaleFactor(r engine.Request, size [2]int) int {
	if 2*max(size[0], size[1]) >= r.Tier.Pixels() {
		return 2
	}
	return 4
}

// targetAspect is the shape's aspect, else params.aspect.
func targetAspect(r engine.Request) (engine.Aspect, error) {
	if r.Shape != nil {
		return r.Shape.Aspect(), nil
	}
	a, err := engine.ParseAspect(r.Param("aspect"))
	if err != nil {
		return engine.Aspect{}, engine.InputError(r.Tool, "Reframe needs an aspect option (like 4:5) or an output destination.", err)
	}
	return a, nil
}

func targetOrSquare(r engine.Request) engine.Aspect {
	if r.Shape != nil {
		return r.Shape.Aspect()
	}
	if a, err := engine.ParseAspect(r.Param("aspect")); err == nil {
		return a
	}
	return engine.Aspect{W: 1, H: 1}
}

// finishShape is the shape a result is finished in: the request's, else
// the aspect asked of a reframe (the expand model answers its nearest
// accepted ratio, nearestAspect, and the answer is composed for the one
// asked, so a 7:5 reframe is 7:5) or of a character made from words (fal
// may round the size asked); nil keeps the answer's own.
func finishShape(r engine.Request) *engine.Shape {
	if r.Shape != nil {
		return r.Shape
	}
	var a engine.Aspect
	switch _, photo := r.Input("image"); {
	case r.Tool == "reframe":
		var err error
		if a, err = targetAspect(r); err != nil {
			return nil
		}
	case r.Tool == "generate-character" && !photo:
		a = targetOrSquare(r)
	default:
		return nil
	}
	w, h := engine.Canvas(r.Tier, a)
	return &engine.Shape{Width: w, Height: h}
}

// expandAspects are the ratios the expand model accepts.
var expandAspects = []string{"1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9"}

// nearestAspect picks the accepted ratio closest to a (in log ratio); the
// result is composed for a exactly afterwards.
func nearestAspect(a engine.Aspect) string {
	best, bestD := expandAspects[0], math.Inf(1)
	for _, s := range expandAspects {
		c, _ := engine.ParseAspect(s)
		if d := math.Abs(math.Log(c.Ratio() / a.Ratio())); d < bestD {
			best, bestD = s, d
		}
	}
	return best
}

func cmpOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
