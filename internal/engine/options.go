package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"studio/internal/tool"
)

// forms check the value of an option by the form it declares
// (tool.Option.Form): each is the parser the engines read it with.
var forms = map[tool.Form]func(string) error{
	tool.FormAspect:   func(s string) error { _, err := ParseAspect(s); return err },
	tool.FormColor:    func(s string) error { _, err := ParseColor(s); return err },
	tool.FormGround:   parseGround,
	tool.FormLens:     func(s string) error { _, err := ParseLens(s); return err },
	tool.FormStrength: func(s string) error { _, err := ParseStrength(s); return err },
}

// check checks one present value of the option.
func check(o tool.Option, v string) error {
	switch {
	case o.Type == tool.TypeEnum:
		if !slices.Contains(o.Legal, v) {
			return fmt.Errorf("%q is not one of %v", v, o.Legal)
		}
		return nil
	case o.Type == tool.TypeInt:
		n, err := strconv.Atoi(v)
		if err != nil || float64(n) < o.Min || float64(n) > o.Max {
			return fmt.Errorf("%q is not a whole number from %v to %v", v, o.Min, o.Max)
		}
		return nil
	case o.Form != "":
		parse, ok := forms[o.Form]
		if !ok {
			return fmt.Errorf("option %s has the form %q, which no parser reads", o.Name, o.Form)
		}
		return parse(v)
	}
	return nil
}

func parseGround(s string) error {
	if s == "white" || s == "image" {
		return nil
	}
	_, err := ParseColor(s)
	return err
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
func CheckOptions(name string, params map[string]string, has func(role string) bool) error {
	for _, o := range tool.Options(name) {
		v := strings.TrimSpace(params[o.Name])
		if v == "" {
			if o.Required && (o.Unless == "" || !has(o.Unless)) {
				return &OptionError{Tool: name, Option: o.Name, Legal: legal(o), Missing: true}
			}
			continue
		}
		if err := check(o, v); err != nil {
			return &OptionError{Tool: name, Option: o.Name, Legal: legal(o), Err: err}
		}
		if role := o.Needs[v]; role != "" && !has(role) {
			return &OptionError{Tool: name, Option: o.Name, Legal: legal(o), Role: role}
		}
	}
	return nil
}

// legal is what a refusal names as the legal values: the values, the
// words and forms, or "any text".
func legal(o tool.Option) []string {
	if len(o.Legal) > 0 {
		return slices.Clone(o.Legal)
	}
	return []string{"any text"}
}
