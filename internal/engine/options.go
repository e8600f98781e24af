package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// OptionType is how an option's value is read.
type OptionType string

// The types of option (DECISIONS §10).
const (
	TypeEnum   OptionType = "enum"   // one of Legal, exactly
	TypeInt    OptionType = "int"    // a whole number from Min to Max
	TypeNumber OptionType = "number" // a number from Min to Max, or one of the words in Legal
	TypeColor  OptionType = "color"  // #rrggbb, or one of the words in Legal
	TypeString OptionType = "string" // text; Legal names its form when it has one
)

// The engines that read an option, as Engine.Name answers.
const (
	Local    = "local"
	Fal      = "fal"
	Lookbook = "lookbook"  // the local engine's lookbook tool
	ImageAPI = "image-api" // an OpenAI-compatible image edit endpoint (package imageapi)
	Service  = "service"   // read by the service (runs), not by an engine
)

// Option is one option a tool reads from its params: the one declaration
// the submit check, the engines' own check (Validate), the capabilities,
// the billing catalog and the OpenAPI description all read. An engine
// reads only declared options (Request.Param answers "" for any other
// name), so an unknown option name is kept on the job but changes nothing.
type Option struct {
	Name     string
	Type     OptionType
	Legal    []string // enum values; for other types the words and forms a value may take
	Min, Max float64  // the range of an int or number (both 0: none)
	Default  string   // what an absent option means; "" when nothing is assumed
	Required bool
	// Unless names an input role whose presence lifts Required
	// (generate-character's prompt is not needed with an image).
	Unless string
	// Needs maps a value to the input role it needs (packshot bg=image
	// needs a background).
	Needs       map[string]string
	Engines     []string // who reads it: Local, Fal, Lookbook, Service
	Internal    bool     // written by the service for look frames; never listed
	Description string
	parse       func(string) error // checks a value of a string, number or color option
}

// Ranged reports whether the option has a numeric range.
func (o Option) Ranged() bool { return o.Min != 0 || o.Max != 0 }

// ReadBy reports whether the engine named name reads the option.
func (o Option) ReadBy(name string) bool { return slices.Contains(o.Engines, name) }

// check checks one present value.
func (o Option) check(v string) error {
	switch {
	case o.Type == TypeEnum:
		if !slices.Contains(o.Legal, v) {
			return fmt.Errorf("%q is not one of %v", v, o.Legal)
		}
		return nil
	case o.Type == TypeInt:
		n, err := strconv.Atoi(v)
		if err != nil || float64(n) < o.Min || float64(n) > o.Max {
			return fmt.Errorf("%q is not a whole number from %v to %v", v, o.Min, o.Max)
		}
		return nil
	case o.parse != nil:
		return o.parse(v)
	}
	return nil
}

// The options shared by several tools.
var (
	optRunID = Option{Name: "runId", Type: TypeString, Engines: []string{Service},
		Description: "Groups frames into one develop run: frames sent with the same runId are one run."}
	optStrength = Option{Name: "strength", Type: TypeNumber, Legal: []string{"0 to 1", "light", "medium", "strong"},
		Min: 0, Max: 1, Default: "0.6", Engines: []string{Local},
		Description: "How strongly the effect is applied: a number from 0 to 1, or light (0.35), medium (0.6), strong (0.9).",
		parse:       func(s string) error { _, err := ParseStrength(s); return err }}
	optAspectForm = []string{"W:H from 1:10 to 10:1, e.g. 4:5 (also W/H, WxH or one decimal ratio)"}
	parseAspect   = func(s string) error { _, err := ParseAspect(s); return err }
)

// prompt is the words a provider model is given for tool, read only by fal.
func prompt(desc string) Option {
	return Option{Name: "prompt", Type: TypeString, Engines: []string{Fal}, Description: desc}
}

// internal is an option the look service writes on a look frame.
func internal(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Lookbook}, Internal: true, Description: desc}
}

// lookOption is an option the look service writes on a look frame that
// every engine serving looks reads (the local proofs, fal, the image API).
func lookOption(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Lookbook, Fal, ImageAPI}, Internal: true, Description: desc}
}

// lookProvider is an option the look service writes on a look frame that
// only the generating providers read: the local proofs follow no words.
func lookProvider(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Fal, ImageAPI}, Internal: true, Description: desc}
}

// options declares, per tool, the options its engines read (DECISIONS §10).
// A test reads the engines' source and fails on a Param read of a name not
// declared here.
var options = map[string][]Option{
	"upscale":           {},
	"remove-background": {},
	"cleanup":           {},
	"tryon":             {},
	"reframe": {
		{Name: "aspect", Type: TypeString, Legal: optAspectForm, Required: true, Engines: []string{Local, Fal},
			Description: "The frame's new aspect: the picture is kept whole and the new area filled.", parse: parseAspect},
		{Name: "fill", Type: TypeEnum, Legal: []string{"auto", "extend", "blur"}, Default: "auto", Engines: []string{Local},
			Description: "How the new area is filled: extend continues the edges, blur lays a blurred copy of the picture, auto extends a plain border and blurs a busy one."},
	},
	"packshot": {
		{Name: "bg", Type: TypeColor, Legal: []string{"white", "image", "#rrggbb"}, Default: "white", Engines: []string{Local, Fal},
			Needs:       map[string]string{"image": "background"},
			Description: "The ground: white, a colour #rrggbb, or image (the background input, which must then be sent).",
			parse:       parseGround},
		{Name: "aspect", Type: TypeString, Legal: optAspectForm, Default: "1:1", Engines: []string{Local},
			Description: "The frame's aspect.", parse: parseAspect},
		{Name: "shadow", Type: TypeEnum, Legal: []string{"on", "off"}, Default: "on", Engines: []string{Local},
			Description: "off leaves out the soft shadow under the product."},
	},
	"camera-lens": {
		{Name: "lens", Type: TypeString, Legal: []string{"macro", "10mm to 600mm, e.g. 85mm"}, Default: "50mm", Engines: []string{Local, Fal},
			Description: "The lens to re-shoot with: a 35 mm-equivalent focal length, or macro.",
			parse:       func(s string) error { _, err := ParseLens(s); return err }},
		prompt("Words added to the model's instruction."),
	},
	"harmonize": {optStrength, prompt("Words added to the model's instruction.")},
	"iron":      {optStrength, prompt("Words added to the model's instruction.")},
	"color-change": {
		{Name: "color", Type: TypeColor, Legal: []string{"#rrggbb"}, Required: true, Engines: []string{Local, Fal},
			Description: "The garment's new colour, as #rrggbb (e.g. #1f3a5f).",
			parse:       func(s string) error { _, err := ParseColor(s); return err }},
		prompt("Words added to the model's instruction."),
	},
	"fit-adjust": {
		{Name: "fit", Type: TypeEnum, Legal: []string{"fitted", "regular", "loose", "oversized"}, Required: true, Engines: []string{Local, Fal},
			Description: "The fit to give the garment."},
		prompt("Words added to the model's instruction."),
	},
	"generate-character": {
		{Name: "prompt", Type: TypeString, Required: true, Unless: "image", Engines: []string{Fal, ImageAPI},
			Description: "The character to generate; required unless an image is given."},
		{Name: "aspect", Type: TypeString, Legal: optAspectForm, Default: "1:1", Engines: []string{Fal, ImageAPI},
			Description: "The frame's aspect, without an image.", parse: parseAspect},
	},
	"lookbook-video": {prompt("How the model moves; a gentle walk towards the camera when absent.")},
	"lookbook": {
		lookOption("aesthetic", "The look's aesthetic, graded over the frame."),
		internal("tone", "The background preset of a paper sweep."),
		lookOption("key", "The variation key a variation frame re-frames for."),
		lookOption("restore", "1 develops the frame at twice the tier (a destination larger than the tier)."),
		lookOption("outputWidth", "The destination's width: the frame is composed for its aspect."),
		lookOption("outputHeight", "The destination's height."),
		lookProvider("roles", "The pieces' roles, in the order of the item inputs, comma-separated."),
		lookProvider("labels", "The pieces' labels, in the order of the item inputs, as a JSON array of strings."),
		lookProvider("scene", "The background preset in words; absent when the background is an asset."),
		lookProvider("posture", "A posture key's directive: the posture's definition and prompt fragment."),
		lookProvider("control.gaze", "A posture key's gaze stop (camera, away, down)."),
		lookProvider("control.weight", "A posture key's weight stop (left, even, right)."),
		lookProvider("control.arms", "A posture key's arms stop (relaxed, pockets, hip, crossed)."),
		lookProvider("control.energy", "A posture key's energy stop (still, easy, dynamic)."),
	},
}

func init() {
	for tool, opts := range options {
		options[tool] = append(opts, optRunID)
	}
}

func parseGround(s string) error {
	if s == "white" || s == "image" {
		return nil
	}
	_, err := ParseColor(s)
	return err
}

// Options returns the options tool declares (nil for a tool it does not
// know), internal ones included, in declaration order.
func Options(tool string) []Option {
	return slices.Clone(options[tool])
}

// OptionTools lists the tools that declare options, sorted.
func OptionTools() []string {
	return slices.Sorted(maps.Keys(options))
}

// Declared reports whether tool declares the option name.
func Declared(tool, name string) bool {
	return slices.ContainsFunc(options[tool], func(o Option) bool { return o.Name == name })
}

// OptionError is a develop's params refused by its tool's options: a value
// outside the option's legal values, a required option absent, or a value
// whose input is missing (Role).
type OptionError struct {
	Tool, Option string
	Legal        []string
	Missing      bool   // the option is required and absent
	Role         string // the input role the value needs and the request lacks
	Err          error
}

func (e *OptionError) Error() string { return e.Reason() }

func (e *OptionError) Unwrap() error { return e.Err }

// Reason is a plain sentence for the client.
func (e *OptionError) Reason() string {
	switch {
	case e.Role != "":
		return fmt.Sprintf("The %s tool with this %s needs an input in the %s role.", e.Tool, e.Option, e.Role)
	case e.Missing:
		return fmt.Sprintf("The %s tool needs the %s option: %s.", e.Tool, e.Option, strings.Join(e.Legal, ", "))
	}
	return fmt.Sprintf("The %s option of %s takes %s.", e.Option, e.Tool, strings.Join(e.Legal, ", "))
}

// CheckOptions checks params (values trimmed; empty is absent) against
// the options tool declares: each present value is legal, each required
// option is present (unless its Unless role has an input), and a value
// that needs an input has it; has reports whether the request has an
// input in a role. Names the tool does not declare are not checked: they
// are kept and read by nobody. The first fault found, in declaration
// order, is returned as an *OptionError.
func CheckOptions(tool string, params map[string]string, has func(role string) bool) error {
	for _, o := range options[tool] {
		v := strings.TrimSpace(params[o.Name])
		if v == "" {
			if o.Required && (o.Unless == "" || !has(o.Unless)) {
				return &OptionError{Tool: tool, Option: o.Name, Legal: legal(o), Missing: true}
			}
			continue
		}
		if err := o.check(v); err != nil {
			return &OptionError{Tool: tool, Option: o.Name, Legal: legal(o), Err: err}
		}
		if role := o.Needs[v]; role != "" && !has(role) {
			return &OptionError{Tool: tool, Option: o.Name, Legal: legal(o), Role: role}
		}
	}
	return nil
}

// legal is what a refusal names as the legal values: the values, the
// words and forms, or "any text".
func legal(o Option) []string {
	if len(o.Legal) > 0 {
		return slices.Clone(o.Legal)
	}
	return []string{"any text"}
}
