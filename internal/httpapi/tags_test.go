package httpapi

import "testing"

// TestEveryTagIsDescribed keeps the document's groups introduced.
func TestEveryTagIsDescribed(t *testing.T) {
	s := &Server{}
	for _, rt := range s.table() {
		if tagDescriptions[rt.Tag] == "" {
			t.Errorf("route %s has tag %q with no description in tagDescriptions", rt.Pattern(), rt.Tag)
		}
	}
}
