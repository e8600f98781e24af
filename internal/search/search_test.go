package search

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTerms(t *testing.T) {
	for q, want := range map[string][]string{
		"":                      nil,
		"  Linen  ":             {"linen"},
		`lin* OR "x" NEAR(a b)`: {"lin", "or", "x", "near", "a", "b"},
		"crêpe-de-chine 2026":   {"crêpe", "de", "chine", "2026"},
		"a b c d e f g h i j":   {"a", "b", "c", "d", "e", "f", "g", "h"},
		strings.Repeat("x", 50): {strings.Repeat("x", 40)},
	} {
		if got := Terms(q); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q; want %q", q, got, want)
		}
	}
}

// FuzzTerms: whatever the query, every term is a non-empty run of
// lowercase letters and digits within the bounds.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"linen", `"a" OR b*`, "{title}: x", "é-ß 12", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		terms := Terms(q)
		if len(terms) > MaxTerms {
			t.Fatalf("%d terms", len(terms))
		}
		for _, w := range terms {
			if w == "" || utf8.RuneCountInString(w) > MaxTermLen || !utf8.ValidString(w) {
				t.Fatalf("term %q", w)
			}
			for _, r := range w {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) || r == utf8.RuneError {
					t.Fatalf("term %q holds %q", w, r)
				}
			}
		}
	})
}
