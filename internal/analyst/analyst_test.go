package analyst_test

import (
	"testing"

	"studio/internal/analyst"
)

// TestAnalystCheck: the tokens compare in constant time over their hashes;
// missing, wrong, other-scheme and unset all refuse.
func TestAnalystCheck(t *testing.T) {
	set := analyst.NewService(nil, nil, analyst.Options{Token: "r", ActionToken: "a"})
	unset := analyst.NewService(nil, nil, analyst.Options{})
	for _, tc := range []struct {
		name   string
		s      *analyst.Service
		header string
		action bool
		ok     bool
	}{
		{"read token", set, "Bearer r", false, true},
		{"action token", set, "Bearer a", true, true},
		{"action token on a read", set, "Bearer a", false, false},
		{"read token on the action", set, "Bearer r", true, false},
		{"missing", set, "", false, false},
		{"wrong", set, "Bearer rr", false, false},
		{"no scheme", set, "r", false, false},
		{"basic", set, "Basic r", false, false},
		{"unset read", unset, "Bearer ", false, false},
		{"unset action", unset, "Bearer ", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.s.Check(tc.header, tc.action); (err == nil) != tc.ok {
				t.Errorf("Check(%q, %v) = %v; want ok %v", tc.header, tc.action, err, tc.ok)
			}
		})
	}
}
