package look

import (
	"errors"
	"slices"
	"testing"
)

// TestDeal: n looks of a plan keep the first n heroes and deal the other
// heroes round them, in order; more looks than the plan, or a look past
// six pieces, is refused.
func TestDeal(t *testing.T) {
	plan := func(heroes ...string) []ProposedLook {
		var pieces []Piece
		for _, h := range heroes {
			pieces = append(pieces, Piece{ID: h, Name: h, Kind: "clothes"})
		}
		pieces = append(pieces, Piece{ID: "ring", Name: "Ring", Kind: "jewelry"})
		out, _ := propose(pieces, nil, Background{Kind: "preset", Value: "beach"}, []string{"front"})
		return out
	}
	ids := func(l ProposedLook) []string {
		var out []string
		for _, it := range l.Items {
			out = append(out, it.AssetID)
		}
		return out
	}
	got, err := deal(plan("a", "b", "c", "d", "e"), 2)
	if err != nil || len(got) != 2 || !slices.Equal(ids(got[0]), []string{"a", "ring", "c", "e"}) || !slices.Equal(ids(got[1]), []string{"b", "ring", "d"}) {
		t.Fatalf("5 garments in 2 looks: %+v %v", got, err)
	}
	if got[0].Items[2].Hero || !got[0].Items[0].Hero || got[0].Name != "a" {
		t.Errorf("look 1 %+v; want a the hero, c dealt in as a piece", got[0])
	}
	if got, err := deal(plan("a", "b"), 0); err != nil || len(got) != 2 {
		t.Errorf("default: %+v %v; want a look per garment", got, err)
	}
	if _, err := deal(plan("a", "b"), 3); !errors.Is(err, ErrBadLookCount) {
		t.Errorf("3 looks of 2 garments: %v; want BAD_LOOK_COUNT", err)
	}
	if _, err := deal(plan("a", "b", "c", "d", "e", "f", "g"), 1); !errors.Is(err, ErrTooManyItems) {
		t.Errorf("7 garments and a ring in 1 look: %v; want TOO_MANY_ITEMS", err)
	}
}

// TestFromBrief: a brief naming an aesthetic or a background preset picks
// it; otherwise the preset's stand.
func TestFromBrief(t *testing.T) {
	def := Background{Kind: "preset", Value: "studio-white"}
	for _, tt := range []struct {
		brief, aesthetic, bg string
	}{
		{"", "editorial", "studio-white"},
		{"Noir evening looks on the BEACH.", "noir", "beach"},
		{"minimal, city street at dusk", "minimal", "city-street"},
		{"seamless-sand backdrop", "editorial", "seamless-sand"},
		{"noirish beaches", "editorial", "studio-white"},
	} {
		a, bg := fromBrief(tt.brief, "editorial", def)
		if a != tt.aesthetic || bg.Kind != "preset" || bg.Value != tt.bg {
			t.Errorf("%q: %s on %+v; want %s on %s", tt.brief, a, bg, tt.aesthetic, tt.bg)
		}
	}
}
