package chat

import (
	"fmt"
	"slices"
	"strings"

	"studio/internal/look"
	"studio/internal/memory"
)

// Learned are the ops whose choices the studio learns (memory/learn.go):
// the look's grade and ground, its tier and its destination. A cast model,
// pieces and names belong to one look, and a background asset may be
// deleted, so those are not learned; clearing a choice is not one either.
var Learned = []string{"set-background", "set-aesthetic", "set-quality", "set-output"}

// Observations are the learnable choices of a turn's applied mutations:
// per op, the last one applied (what the turn settled on), in the order
// the ops first applied.
func Observations(applied []Applied) []memory.Observation {
	var out []memory.Observation
	for _, a := range applied {
		o, ok := observe(a.Mutation)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(out, func(p memory.Observation) bool { return p.Slot == o.Slot }); i >= 0 {
			out[i] = o
			continue
		}
		out = append(out, o)
	}
	return out
}

func observe(m Mutation) (memory.Observation, bool) {
	var value, statement string
	switch m.Op {
	case "set-background":
		if m.Background == nil || m.Background.Kind != "preset" {
			return memory.Observation{}, false
		}
		value = m.Background.Value
		name := value
		for _, b := range look.BackgroundLibrary {
			if b.ID == value {
				name = b.Name
			}
		}
		statement = fmt.Sprintf("Prefers the %s background (preset %s).", strings.ToLower(name), value)
	case "set-aesthetic":
		if m.Aesthetic == "" {
			return memory.Observation{}, false
		}
		value = m.Aesthetic
		statement = fmt.Sprintf("Prefers the %s aesthetic.", value)
	case "set-quality":
		value = m.Quality
		statement = fmt.Sprintf("Prefers developing at %s.", value)
	case "set-output":
		if m.Output == nil {
			return memory.Observation{}, false
		}
		value = m.Output.Destination
		if value == look.Custom {
			value = fmt.Sprintf("custom:%dx%d", m.Output.Width, m.Output.Height)
			statement = fmt.Sprintf("Prefers a custom %dx%d output.", m.Output.Width, m.Output.Height)
		} else {
			statement = fmt.Sprintf("Prefers the %s output.", value)
		}
	default:
		return memory.Observation{}, false
	}
	return memory.Observation{Slot: m.Op, Key: m.Op + "=" + value, Statement: statement}, true
}
