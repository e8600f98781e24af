package job

import (
	"errors"
	"slices"

	"studio/internal/engine"
	"studio/internal/errs"
	"studio/internal/tool"
)

// CheckOptions checks a develop's params against the options its tool
// declares (tool.Options, the one declaration): a value outside the
// option's legal ones, or a required option left out, is 400 BAD_OPTION
// with option and legal; a value that needs an input the develop lacks
// (packshot bg=image without a background) is NO_INPUTS with role. Names
// the tool does not declare pass: they are kept and change nothing.
// inputs are the develop's inputs (only their roles are read). Every path
// that holds tokens for a develop (submit, MCP start_develop, duplicate,
// redraw, takes) calls it before the hold (DECISIONS §10).
func CheckOptions(tool string, params map[string]string, inputs []Input) error {
	has := func(role string) bool {
		return slices.ContainsFunc(inputs, func(in Input) bool { return in.Role == role })
	}
	err := engine.CheckOptions(tool, params, has)
	if err == nil {
		return nil
	}
	oe, ok := errors.AsType[*engine.OptionError](err)
	if !ok {
		return err
	}
	if oe.Role != "" {
		return errs.With(errs.Msg(ErrNoInputs, oe.Reason()), "option", oe.Option, "role", oe.Role)
	}
	return errs.With(errs.Msg(ErrBadOption, oe.Reason()), "option", oe.Option, "legal", oe.Legal)
}

// OptionSpec is a tool's option as list_capabilities and the billing
// catalog answer it.
type OptionSpec struct {
	Name        string   `json:"name"`
	Type        string   `json:"type" enum:"enum,int,number,color,string"`
	Legal       []string `json:"legal" description:"The values an enum takes; for other types the words and forms a value may take (empty: any text)."`
	Minimum     *float64 `json:"minimum,omitempty" description:"The least value of an int or number."`
	Maximum     *float64 `json:"maximum,omitempty" description:"The greatest value of an int or number."`
	Default     *string  `json:"default" description:"What leaving the option out means; null when nothing is assumed."`
	Required    bool     `json:"required" description:"The develop is refused (BAD_OPTION) without it; the description says when an input lifts this."`
	Description string   `json:"description"`
}

// OptionSpecs lists the options of tool that the engine named served
// reads, and those the service reads (runId), for the wire; served "" (no
// engine here performs the tool) lists every engine's. Options the look
// service writes itself are never listed.
func OptionSpecs(name, served string) []OptionSpec {
	out := []OptionSpec{}
	for _, o := range tool.Options(name) {
		if o.Internal || (served != "" && !o.ReadBy(served) && !o.ReadBy(tool.Service)) {
			continue
		}
		spec := OptionSpec{Name: o.Name, Type: string(o.Type), Legal: append([]string{}, o.Legal...), Required: o.Required, Description: o.Description}
		if o.Ranged() {
			lo, hi := o.Min, o.Max
			spec.Minimum, spec.Maximum = &lo, &hi
		}
		if o.Default != "" {
			d := o.Default
			spec.Default = &d
		}
		out = append(out, spec)
	}
	return out
}
