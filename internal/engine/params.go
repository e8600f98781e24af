package engine

import (
	"errors"
	"fmt"
	"image/color"
	"maps"
	"math"
	"strconv"
	"strings"

	"studio/internal/ledger"
	"studio/internal/tool"
)

// Aspect is a width:height ratio.
type Aspect struct {
	W, H float64
}

// Ratio is W / H.
func (a Aspect) Ratio() float64 { return a.W / a.H }

// String writes the aspect as "W:H", e.g. "4:5".
func (a Aspect) String() string {
	return strconv.FormatFloat(a.W, 'f', -1, 64) + ":" + strconv.FormatFloat(a.H, 'f', -1, 64)
}

// Aspect returns the shape's aspect.
func (s Shape) Aspect() Aspect { return Aspect{W: float64(s.Width), H: float64(s.Height)} }

// Ratios outside [minRatio, maxRatio] are refused: nothing useful is that thin.
const (
	minRatio = 0.1
	maxRatio = 10
)

// ParseAspect reads an aspect written "W:H", "W/H", "WxH" or as one decimal
// ratio ("1.25"). Both sides must be positive and the ratio within 1:10..10:1.
func ParseAspect(s string) (Aspect, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return Aspect{}, errors.New("empty aspect")
	}
	var a Aspect
	if i := strings.IndexAny(s, ":/x"); i >= 0 {
		w, err1 := parsePositive(s[:i])
		h, err2 := parsePositive(s[i+1:])
		if err1 != nil || err2 != nil {
			return Aspect{}, fmt.Errorf("aspect %q is not W:H with positive numbers", s)
		}
		a = Aspect{W: w, H: h}
	} else {
		r, err := parsePositive(s)
		if err != nil {
			return Aspect{}, fmt.Errorf("aspect %q is not a ratio", s)
		}
		a = Aspect{W: r, H: 1}
	}
	if r := a.Ratio(); r < minRatio || r > maxRatio || math.IsNaN(r) {
		return Aspect{}, fmt.Errorf("aspect %q is outside 1:10 to 10:1", s)
	}
	return a, nil
}

func parsePositive(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 12 {
		return 0, errors.New("bad number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) || v > 1e6 {
		return 0, errors.New("bad number")
	}
	return v, nil
}

// ParseColor reads a colour written "#rrggbb" (hex digits, either case).
func ParseColor(s string) (color.NRGBA, error) {
	s = strings.TrimSpace(s)
	if len(s) != 7 || s[0] != '#' {
		return color.NRGBA{}, fmt.Errorf("colour %q is not #rrggbb", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.NRGBA{}, fmt.Errorf("colour %q is not #rrggbb", s)
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}, nil
}

// Lens is a lens character for camera-lens: a 35 mm-equivalent focal length,
// or a macro lens.
type Lens struct {
	Focal float64 // millimetres, 35 mm equivalent
	Macro bool
}

// String writes the lens as params.lens would: "85mm" or "macro".
func (l Lens) String() string {
	if l.Macro {
		return "macro"
	}
	return strconv.FormatFloat(l.Focal, 'f', -1, 64) + "mm"
}

// DefaultLens is the lens used when params.lens is absent.
var DefaultLens = Lens{Focal: 50}

// ParseLens reads "macro" or a focal length "85mm", "85 mm" or "85",
// between 10 and 600 millimetres.
func ParseLens(s string) (Lens, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "macro" {
		return Lens{Focal: 100, Macro: true}, nil
	}
	n := strings.TrimSpace(strings.TrimSuffix(s, "mm"))
	f, err := parsePositive(n)
	if err != nil || f < 10 || f > 600 {
		return Lens{}, fmt.Errorf("lens %q is not macro or a focal length from 10mm to 600mm", s)
	}
	return Lens{Focal: f}, nil
}

// Fit is a garment fit for fit-adjust.
type Fit string

// The fits fit-adjust knows.
const (
	FitFitted    Fit = "fitted"
	FitRegular   Fit = "regular"
	FitLoose     Fit = "loose"
	FitOversized Fit = "oversized"
)

// Scale is the horizontal scale fit-adjust applies to the garment's width.
func (f Fit) Scale() float64 {
	switch f {
	case FitFitted:
		return 0.90
	case FitLoose:
		return 1.10
	case FitOversized:
		return 1.22
	}
	return 1
}

// ParseFit reads fitted, regular, loose or oversized (any case).
func ParseFit(s string) (Fit, error) {
	switch f := Fit(strings.TrimSpace(strings.ToLower(s))); f {
	case FitFitted, FitRegular, FitLoose, FitOversized:
		return f, nil
	}
	return "", fmt.Errorf("fit %q is not fitted, regular, loose or oversized", s)
}

// Validate checks what every engine checks before it works or spends: a
// known tier, a sane shape, the tool's required roles with non-empty bytes,
// and its options (CheckOptions: the same check the submit makes). Its
// errors are input faults.
func Validate(r Request) error {
	if !r.Tier.Valid() {
		return InputError(r.Tool, fmt.Sprintf("Unknown quality %q; use 1k, 2k or 4k.", r.Tier), nil)
	}
	if r.Shape != nil {
		if r.Shape.Width <= 0 || r.Shape.Height <= 0 {
			return InputError(r.Tool, "The output shape needs a positive width and height.", nil)
		}
		if q := r.Shape.Aspect().Ratio(); q < minRatio || q > maxRatio {
			return InputError(r.Tool, "The output shape is thinner than 1:10.", nil)
		}
	}
	for _, in := range r.Inputs {
		if len(in.Data) == 0 {
			return InputError(r.Tool, fmt.Sprintf("The %s input is empty.", in.Role), nil)
		}
	}
	t, _ := tool.Get(r.Tool)
	for _, role := range t.Required() {
		if _, has := r.Input(role); !has {
			return InputError(r.Tool, fmt.Sprintf("The %s tool needs an input in the %s role.", r.Tool, role), nil)
		}
	}
	params := r.Params
	if r.Shape != nil && strings.TrimSpace(params["aspect"]) == "" && tool.Declared(r.Tool, "aspect") {
		// An output shape stands for the aspect.
		params = maps.Clone(params)
		if params == nil {
			params = map[string]string{}
		}
		params["aspect"] = r.Shape.Aspect().String()
	}
	if err := CheckOptions(r.Tool, params, func(role string) bool { _, ok := r.Input(role); return ok }); err != nil {
		e, _ := errors.AsType[*OptionError](err)
		return InputError(r.Tool, e.Reason(), err)
	}
	return nil
}

// ParseStrength reads a strength option in [0, 1], or light / medium / strong.
func ParseStrength(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "light":
		return 0.35, nil
	case "medium":
		return 0.6, nil
	case "strong":
		return 0.9, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
		return 0, fmt.Errorf("strength %q is not in [0, 1]", s)
	}
	return v, nil
}

// Canvas is the size of a frame at tier t: its long edge is t.Pixels(), its
// aspect is a's.
func Canvas(t ledger.Tier, a Aspect) (w, h int) {
	p := t.Pixels()
	r := a.Ratio()
	if r >= 1 {
		return p, max(1, int(math.Round(float64(p)/r)))
	}
	return max(1, int(math.Round(float64(p)*r))), p
}
