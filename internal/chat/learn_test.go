package chat

import (
	"reflect"
	"testing"

	"studio/internal/look"
	"studio/internal/memory"
)

// TestObservations: which applied mutations are learnable choices, how
// they read, and that a turn's last choice in a slot is the one observed.
func TestObservations(t *testing.T) {
	applied := func(ms ...Mutation) []Applied {
		out := make([]Applied, len(ms))
		for i, m := range ms {
			out[i] = Applied{Mutation: m}
		}
		return out
	}
	got := Observations(applied(
		Mutation{Op: "rename", Name: "Spring"},
		Mutation{Op: "set-model", AssetID: "m1"},
		Mutation{Op: "set-aesthetic", Aesthetic: "editorial"},
		Mutation{Op: "set-background", Background: &look.Background{Kind: "asset", AssetID: "bg1"}},
		Mutation{Op: "set-quality", Quality: "2k"},
		Mutation{Op: "set-aesthetic", Aesthetic: "noir"},
		Mutation{Op: "set-output", Output: &look.Output{Destination: "pdp-portrait"}},
		Mutation{Op: "set-background", Background: &look.Background{Kind: "preset", Value: "seamless-sand"}},
	))
	want := []memory.Observation{
		{Slot: "set-aesthetic", Key: "set-aesthetic=noir", Statement: "Prefers the noir aesthetic."},
		{Slot: "set-quality", Key: "set-quality=2k", Statement: "Prefers developing at 2k."},
		{Slot: "set-output", Key: "set-output=pdp-portrait", Statement: "Prefers the pdp-portrait output."},
		{Slot: "set-background", Key: "set-background=seamless-sand", Statement: "Prefers the seamless sand background (preset seamless-sand)."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Observations =\n%+v\nwant\n%+v", got, want)
	}
	custom := Observations(applied(Mutation{Op: "set-output", Output: &look.Output{Destination: look.Custom, Width: 1200, Height: 1500}}))
	if len(custom) != 1 || custom[0].Key != "set-output=custom:1200x1500" || custom[0].Statement != "Prefers a custom 1200x1500 output." {
		t.Errorf("custom output = %+v", custom)
	}
	// Clearing a choice is not a choice.
	if got := Observations(applied(Mutation{Op: "set-aesthetic"}, Mutation{Op: "set-background"})); len(got) != 0 {
		t.Errorf("clears observed: %+v", got)
	}
}

func TestGrade(t *testing.T) {
	for _, tt := range []struct {
		n      int
		conf   float64
		status string
	}{{1, 0.5, "candidate"}, {2, 2.0 / 3, "candidate"}, {3, 0.75, "active"}, {9, 0.9, "active"}, {40, 0.95, "active"}} {
		if c, s := memory.Grade(tt.n); c != tt.conf || s != tt.status {
			t.Errorf("Grade(%d) = %v %s; want %v %s", tt.n, c, s, tt.conf, tt.status)
		}
	}
}
