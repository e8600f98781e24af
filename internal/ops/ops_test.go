package ops_test

import (
	"strings"
	"testing"

	"studio/internal/ops"
)

// TestNormalize: the failures view groups error texts with ids, addresses,
// long hex strings and numbers replaced, spaces folded, 200 characters.
func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "(no error text)",
		"  decode   image 3 of 4\n":    "decode image <n> of <n>",
		"mail to a.b@c.example: 550":   "mail to <email>: <n>",
		"sha 0123456789abcdef0123 off": "sha <hex> off",
		strings.Repeat("é", 300):       strings.Repeat("é", 200),
		"job 0193f3a4-1b2c-7d8e-9f00-aabbccddeeff": "job <id>",
	} {
		if got := ops.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q; want %q", in, got, want)
		}
	}
}
