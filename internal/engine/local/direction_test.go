package local_test

import (
	"slices"
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/local"
)

// TestFollows: the local engine and its look proofs follow the declared
// vocabulary, written with filler words, commas or "and", and nothing else.
func TestFollows(t *testing.T) {
	tests := []struct {
		said string
		ok   bool
	}{
		{"warmer light", true},
		{"Warmer.", true},
		{"a bit darker, tighter crop", true},
		{"More contrast and softer shadows", true},
		{"cooler - wider crop!", true},
		{"less exposure", true},
		{"", false},
		{"Keep the collar crisp.", false},
		{"warmer and show the label", false},
		{"warmer light on the face", false},
		{"golden hour", false},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			for _, f := range []engine.Follower{local.New(), local.NewLookbook()} {
				legal, ok := f.Follows("upscale", tt.said)
				if ok != tt.ok {
					t.Errorf("%T follows %q: %v; want %v", f, tt.said, ok, tt.ok)
				}
				if !slices.Equal(legal, local.Directions) {
					t.Errorf("%T legal %v; want %v", f, legal, local.Directions)
				}
			}
		})
	}
	// Through a chain, an empty direction is always followed.
	if _, ok := engine.Follows(engine.Chain(local.New()), "upscale", ""); !ok {
		t.Error("an empty direction is refused")
	}
}
