package look

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"studio/internal/errs"
	"studio/internal/ledger"
)

// Output is an output destination on the wire (SPEC §2): a named place, or
// custom with its width and height.
type Output struct {
	Destination string `json:"destination" description:"A named destination (web-tile, pdp-portrait, feed-portrait, story, landscape-hero, banner-wide, print-a4) or custom."`
	Width       int    `json:"width,omitempty" description:"Pixels; required for custom, at least 64."`
	Height      int    `json:"height,omitempty" description:"Pixels; required for custom, at least 64."`
}

// Destination is a parsed output destination.
type Destination struct {
	Name          string
	Width, Height int
}

// LongEdge is the destination's longer side.
func (d Destination) LongEdge() int { return max(d.Width, d.Height) }

// Destinations are the named places (DECISIONS §6), in catalog order.
var Destinations = []Destination{
	{"web-tile", 1024, 1024},
	{"pdp-portrait", 1600, 2000},
	{"feed-portrait", 1080, 1350},
	{"story", 1080, 1920},
	{"landscape-hero", 1920, 1080},
	{"banner-wide", 2400, 800},
	{"print-a4", 2480, 3508},
}

// Custom names a destination given by its width and height.
const Custom = "custom"

// DefaultDestination is where a frame goes when the request names none.
var DefaultDestination = Destinations[0]

// Size limits of a custom destination.
const (
	MinEdge = 64
	MaxEdge = 8192
)

// Codes raised by destinations.
var (
	ErrUnknownDestination = errs.New(errs.KindInvalid, "UNKNOWN_DESTINATION", "The destination is not one of the legal names or custom.")
	ErrBadDimensions      = errs.New(errs.KindInvalid, "BAD_DIMENSIONS", "A custom destination needs a whole width and height of at least 64 pixels.")
	ErrOutputTooLarge     = errs.New(errs.KindInvalid, "OUTPUT_TOO_LARGE", "A destination's long edge may be at most 8192 pixels.")
	ErrQualityTooLow      = errs.New(errs.KindInvalid, "QUALITY_TOO_LOW_FOR_OUTPUT", "The quality is too low for this destination.")
)

// legalDestinations lists the names a destination may take.
func legalDestinations() []string {
	out := make([]string, 0, len(Destinations)+1)
	for _, d := range Destinations {
		out = append(out, d.Name)
	}
	return append(out, Custom)
}

// ParseOutput reads an output destination from its JSON: absent or null is
// the default (web-tile); a string is a destination name; an object is
// {destination, width?, height?}. It answers UNKNOWN_DESTINATION (with
// legal), BAD_DIMENSIONS, OUTPUT_TOO_LARGE or BAD_BODY.
func ParseOutput(raw json.RawMessage) (Destination, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return DefaultDestination, nil
	}
	var o Output
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &o.Destination); err != nil {
			return Destination{}, errs.Msg(errs.BadBody, "output must be a destination name or {destination, width, height}.")
		}
	case '{':
		// Numbers are read as floats first, so 1.5 is BAD_DIMENSIONS, not BAD_BODY.
		var loose struct {
			Destination string   `json:"destination"`
			Width       *float64 `json:"width"`
			Height      *float64 `json:"height"`
		}
		if err := json.Unmarshal(raw, &loose); err != nil {
			return Destination{}, errs.Msg(errs.BadBody, "output must be a destination name or {destination, width, height}.")
		}
		o.Destination = loose.Destination
		if o.Destination == Custom {
			w, okW := whole(loose.Width)
			h, okH := whole(loose.Height)
			if !okW || !okH {
				return Destination{}, ErrBadDimensions
			}
			o.Width, o.Height = w, h
		}
	default:
		return Destination{}, errs.Msg(errs.BadBody, "output must be a destination name or {destination, width, height}.")
	}
	return o.Parse()
}

// whole returns f as an int when it is a whole number within int32.
func whole(f *float64) (int, bool) {
	if f == nil || *f != float64(int64(*f)) || *f < -1<<31 || *f > 1<<31 {
		return 0, false
	}
	return int(*f), true
}

// Parse checks an Output: a named destination takes its table size; custom
// needs both edges of at least 64 and a long edge of at most 8192.
func (o Output) Parse() (Destination, error) {
	name := strings.TrimSpace(o.Destination)
	if name == Custom {
		if o.Width < MinEdge || o.Height < MinEdge {
			return Destination{}, ErrBadDimensions
		}
		if max(o.Width, o.Height) > MaxEdge {
			return Destination{}, errs.With(ErrOutputTooLarge, "maxEdge", MaxEdge)
		}
		return Destination{Name: Custom, Width: o.Width, Height: o.Height}, nil
	}
	for _, d := range Destinations {
		if d.Name == name {
			return d, nil
		}
	}
	return Destination{}, errs.With(ErrUnknownDestination, "legal", legalDestinations())
}

// nextTier is the tier a restoration pass upscales to; 4k stays 4k.
func nextTier(t ledger.Tier) ledger.Tier {
	switch t {
	case ledger.Tier1K:
		return ledger.Tier2K
	}
	return ledger.Tier4K
}

// Restoration decides whether a frame for d at tier t needs a restoration
// pass: when the destination's long edge exceeds the tier's pixels. Beyond
// twice the tier's pixels it answers QUALITY_TOO_LOW_FOR_OUTPUT with a
// plain-language detail naming the smallest tier that would do.
func Restoration(d Destination, t ledger.Tier) (bool, error) {
	px := t.Pixels()
	long := d.LongEdge()
	if long <= px {
		return false, nil
	}
	if long <= 2*px {
		return true, nil
	}
	detail := fmt.Sprintf("%s is %d x %d pixels; a %s frame is %d pixels on its long edge and can be restored to at most %d.",
		d.Name, d.Width, d.Height, t, px, 2*px)
	least := ""
	for _, c := range ledger.Tiers {
		if 2*c.Pixels() >= long {
			least = string(c)
			break
		}
	}
	if least != "" {
		detail += " Choose " + least + " or higher."
	}
	return false, errs.With(errs.Msg(ErrQualityTooLow, detail), "detail", detail, "quality", string(t), "longEdge", long, "maxLongEdge", 2*px)
}
