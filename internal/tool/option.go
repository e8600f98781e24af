package tool

import "slices"

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

// Form is the written form a string, number or color option's value must
// take; package engine holds the parser of each (engine.CheckOptions).
type Form string

// The forms.
const (
	FormAspect   Form = "aspect"   // W:H from 1:10 to 10:1 (engine.ParseAspect)
	FormColor    Form = "color"    // #rrggbb (engine.ParseColor)
	FormGround   Form = "ground"   // white, image or #rrggbb
	FormLens     Form = "lens"     // macro, or 10mm to 600mm (engine.ParseLens)
	FormStrength Form = "strength" // 0 to 1, light, medium or strong (engine.ParseStrength)
)

// Option is one option a tool reads from its params. An engine reads only
// declared options (engine.Request.Param answers "" for any other name),
// so an unknown option name is kept on the job but changes nothing.
type Option struct {
	Name     string
	Type     OptionType
	Legal    []string // enum values; for other types the words and forms a value may take
	Min, Max float64  // the range of an int or number (both 0: none)
	Form     Form     // the form a string, number or color value is checked against ("" for any text)
	Default  string   // what an absent option means; "" when nothing is assumed
	Required bool
	// Unless names an input role whose presence lifts Required
	// (generate-character's prompt is not needed with an image) and, for
	// the option a tool's Aspect names, the aspect promised (a character
	// made from a photo keeps the photo's framing).
	Unless string
	// Needs maps a value to the input role it needs (packshot bg=image
	// needs a background).
	Needs       map[string]string
	Engines     []string // who reads it: Local, Fal, Lookbook, ImageAPI, Service
	Internal    bool     // written by the service for look frames; never listed
	Description string
}

// Ranged reports whether the option has a numeric range.
func (o Option) Ranged() bool { return o.Min != 0 || o.Max != 0 }

// ReadBy reports whether the engine named name reads the option.
func (o Option) ReadBy(name string) bool { return slices.Contains(o.Engines, name) }

// The options shared by several tools.
var (
	optRunID = Option{Name: "runId", Type: TypeString, Engines: []string{Service},
		Description: "Groups frames into one develop run: frames sent with the same runId are one run."}
	optStrength = Option{Name: "strength", Type: TypeNumber, Legal: []string{"0 to 1", "light", "medium", "strong"},
		Min: 0, Max: 1, Form: FormStrength, Default: "0.6", Engines: []string{Local},
		Description: "How strongly the effect is applied: a number from 0 to 1, or light (0.35), medium (0.6), strong (0.9)."}
	optAspectForm = []string{"W:H from 1:10 to 10:1, e.g. 4:5 (also W/H, WxH or one decimal ratio)"}
)

// prompt is the words a provider model is given for the tool, read only by fal.
func prompt(desc string) Option {
	return Option{Name: "prompt", Type: TypeString, Engines: []string{Fal}, Description: desc}
}

// editPrompt is the words added to an edit tool's own instruction, read by
// fal and FASHN (its edit model).
func editPrompt(desc string) Option {
	return Option{Name: "prompt", Type: TypeString, Engines: []string{Fal, Fashn}, Description: desc}
}

// internal is an option the look service writes on a look frame.
func internal(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Lookbook}, Internal: true, Description: desc}
}

// lookOption is an option the look service writes on a look frame that
// every engine serving looks reads (the local proofs, fal, the image API,
// FASHN).
func lookOption(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Lookbook, Fal, ImageAPI, Fashn}, Internal: true, Description: desc}
}

// lookProvider is an option the look service writes on a look frame that
// only the generating providers read: the local proofs follow no words.
func lookProvider(name, desc string) Option {
	return Option{Name: name, Type: TypeString, Engines: []string{Fal, ImageAPI, Fashn}, Internal: true, Description: desc}
}

// options is the registry's options of one tool, runId last (every tool
// takes it).
func options(opts ...Option) []Option { return append(opts, optRunID) }
