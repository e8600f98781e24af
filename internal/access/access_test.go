package access_test

import (
	"slices"
	"testing"

	"studio/internal/access"
	"studio/internal/ops"
	"studio/internal/tool"
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
		{"submit tools", tools, tool.SubmitTools()},
	} {
		got, want := slices.Sorted(slices.Values(c.got)), slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s %v; want %v", c.what, got, want)
		}
	}
	seen := map[string]bool{}
	for _, name := range tools {
		if seen[name] {
			t.Errorf("%s is in two toolkits", name)
		}
		seen[name] = true
		if !access.IsTool(name) {
			t.Errorf("IsTool(%q) is false", name)
		}
		if d, _ := tool.Get(name); d.Title == "" {
			t.Errorf("%s has no display name", name)
		}
	}
	for _, slug := range []string{"", "lookbook", "no-such-tool", "UPSCALE"} {
		if access.IsTool(slug) {
			t.Errorf("IsTool(%q) is true", slug)
		}
	}
}
