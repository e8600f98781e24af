package access_test

import (
	"slices"
	"testing"

	"studio/internal/access"
	"studio/internal/job"
	"studio/internal/ops"
)

// TestKitsAreWhatOperatorsGrant: my-access lists exactly the toolkits and
// tools the admin access route grants, each tool in one toolkit, named.
func TestKitsAreWhatOperatorsGrant(t *testing.T) {
	var kits []string
	for _, k := range access.Kits {
		kits = append(kits, k.Slug)
	}
	tools := access.Tools()
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"toolkits", kits, ops.Toolkits},
		{"tools", tools, ops.Tools()},
		{"submit tools", tools, job.SubmitTools()},
	} {
		got, want := slices.Sorted(slices.Values(c.got)), slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s %v; want %v", c.what, got, want)
		}
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		if seen[tool] {
			t.Errorf("%s is in two toolkits", tool)
		}
		seen[tool] = true
		if !access.IsTool(tool) {
			t.Errorf("IsTool(%q) is false", tool)
		}
	}
	for _, slug := range []string{"", "lookbook", "no-such-tool", "UPSCALE"} {
		if access.IsTool(slug) {
			t.Errorf("IsTool(%q) is true", slug)
		}
	}
}
