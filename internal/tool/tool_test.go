package tool_test

import (
	"slices"
	"testing"
	"time"

	"studio/internal/ledger"
	"studio/internal/tool"
)

// TestRegistryIsWellFormed: every tool is named once, priced at every
// tier, served by some engine and titled; every role and option is
// declared once and well formed.
func TestRegistryIsWellFormed(t *testing.T) {
	engines := []string{tool.Local, tool.Lookbook, tool.Fal, tool.ImageAPI, tool.Fashn}
	seen := map[string]bool{}
	for _, d := range tool.All() {
		switch {
		case d.Name == "" || seen[d.Name]:
			t.Errorf("tool %q is nameless or declared twice", d.Name)
		case d.Title == "":
			t.Errorf("%s has no title", d.Name)
		case d.Prices.K1 < 1 || d.Prices.K2 < d.Prices.K1 || d.Prices.K4 < d.Prices.K2:
			t.Errorf("%s is priced %+v", d.Name, d.Prices)
		case len(d.Engines) == 0:
			t.Errorf("%s has no engine", d.Name)
		case d.Deadline < 0:
			t.Errorf("%s has a negative deadline", d.Name)
		}
		seen[d.Name] = true
		for _, e := range d.Engines {
			if !slices.Contains(engines, e) {
				t.Errorf("%s names an engine %q", d.Name, e)
			}
		}
		for e := range d.Notes {
			if !d.ServedBy(e) || d.Note(e) == "" {
				t.Errorf("%s has a note for %q, which does not serve it, or an empty one", d.Name, e)
			}
		}
		for e, p := range d.ProofPrices {
			// A proof is cheaper than the tool's frame, and says so in its note.
			if !d.ServedBy(e) || d.Note(e) == "" || p.K1 < 1 || p.K2 < p.K1 || p.K4 < p.K2 || p.K4 > d.Prices.K4 {
				t.Errorf("%s has a proof row %+v on %q, which does not serve it, has no note, or is dearer than the tool", d.Name, p, e)
			}
		}
		for e, tier := range d.Native {
			if !d.ServedBy(e) || d.Note(e) == "" || !tier.Valid() || tier == ledger.Tier4K {
				t.Errorf("%s is native at %q on %q, which does not serve it, says nothing of it, or needs no cap", d.Name, tier, e)
			}
		}
		roles := map[string]bool{}
		for _, r := range d.Roles {
			if r.Name == "" || roles[r.Name] || r.Most < 0 {
				t.Errorf("%s: role %+v", d.Name, r)
			}
			roles[r.Name] = true
		}
		options := map[string]bool{}
		for _, o := range d.Options {
			switch {
			case options[o.Name]:
				t.Errorf("%s declares %s twice", d.Name, o.Name)
			case o.Description == "" || len(o.Engines) == 0:
				t.Errorf("%s.%s has no description or no engine", d.Name, o.Name)
			case o.Type == tool.TypeEnum && (len(o.Legal) == 0 || (o.Default != "" && !slices.Contains(o.Legal, o.Default))):
				t.Errorf("%s.%s: enum without values, or a default outside them", d.Name, o.Name)
			case o.Unless != "" && !d.Takes(o.Unless):
				t.Errorf("%s.%s is lifted by a role the tool does not take", d.Name, o.Name)
			}
			for _, role := range o.Needs {
				if !d.Takes(role) {
					t.Errorf("%s.%s needs a role the tool does not take: %s", d.Name, o.Name, role)
				}
			}
			options[o.Name] = true
		}
		if !options["runId"] {
			t.Errorf("%s does not take runId", d.Name)
		}
	}
}

// TestDefaultPrices: the default price list is DECISIONS §4's table, in
// the registry's order, and valid.
func TestDefaultPrices(t *testing.T) {
	p := tool.DefaultPrices()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		tier ledger.Tier
		want int64
	}{
		{"upscale", ledger.Tier1K, 2}, {"upscale", ledger.Tier2K, 3}, {"upscale", ledger.Tier4K, 5},
		{"reframe", ledger.Tier1K, 3}, {"packshot", ledger.Tier4K, 9}, {"camera-lens", ledger.Tier2K, 6},
		{"harmonize", ledger.Tier1K, 3}, {"iron", ledger.Tier2K, 4}, {"cleanup", ledger.Tier4K, 6}, {"color-change", ledger.Tier1K, 3},
		{"fit-adjust", ledger.Tier4K, 10}, {"tryon", ledger.Tier1K, 8}, {"tryon", ledger.Tier2K, 12}, {"tryon", ledger.Tier4K, 18},
		{"generate-character", ledger.Tier4K, 13}, {"lookbook", ledger.Tier2K, 12}, {"lookbook-video", ledger.Tier4K, 90},
		{"remove-background", ledger.Tier4K, 2},
	}
	for _, tt := range tests {
		if got := p.Tool(tt.tool, tt.tier); got != tt.want {
			t.Errorf("%s at %s costs %d; want %d", tt.tool, tt.tier, got, tt.want)
		}
	}
	var order []string
	for _, row := range p.Tools {
		order = append(order, row.Tool)
	}
	want := []string{"upscale", "reframe", "packshot", "camera-lens", "harmonize", "iron", "cleanup", "color-change",
		"fit-adjust", "tryon", "generate-character", "lookbook", "lookbook-video", "remove-background"}
	if !slices.Equal(order, want) {
		t.Errorf("catalog order %v; want %v", order, want)
	}
}

// TestPriced: the live table takes the proof row of the engine that serves
// a tool (the local look frame: 1 token at every quality, DECISIONS §11),
// the native tier's price above it where the engine enlarges by
// resampling (the image endpoint), the tier asked where a restoration
// model enlarges it, and the default row on any other engine; the default
// table is untouched.
func TestPriced(t *testing.T) {
	tests := []struct {
		serving  string
		restored bool
		want     ledger.TierPrices
	}{
		{tool.Lookbook, false, ledger.TierPrices{K1: 1, K2: 1, K4: 1}},
		{tool.Fal, false, ledger.TierPrices{K1: 8, K2: 12, K4: 18}},
		{tool.Fashn, false, ledger.TierPrices{K1: 8, K2: 12, K4: 18}},
		{tool.ImageAPI, false, ledger.TierPrices{K1: 8, K2: 8, K4: 8}},
		{tool.ImageAPI, true, ledger.TierPrices{K1: 8, K2: 12, K4: 18}},
		{"", false, ledger.TierPrices{K1: 8, K2: 12, K4: 18}},
	}
	for _, tt := range tests {
		def := tool.DefaultPrices()
		p := tool.Priced(def, func(name string) (string, bool) {
			if name == "lookbook" {
				return tt.serving, tt.restored
			}
			return tool.Local, false
		})
		for _, tier := range ledger.Tiers {
			if got := p.Tool("lookbook", tier); got != tt.want.At(tier) {
				t.Errorf("a look frame served by %q (restored %v) at %s costs %d; want %d", tt.serving, tt.restored, tier, got, tt.want.At(tier))
			}
		}
		if got := p.Tool("tryon", ledger.Tier4K); got != 18 {
			t.Errorf("tryon on the local engine costs %d; want its row, 18", got)
		}
		if def.Tool("lookbook", ledger.Tier1K) != 8 || p.Validate() != nil {
			t.Errorf("Priced changed the table it read, or made an invalid one")
		}
	}
}

// TestReads: the roles, the submit tools and the engines as the callers
// read them.
func TestReads(t *testing.T) {
	tryon, _ := tool.Get("tryon")
	if !slices.Equal(tryon.Required(), []string{"model", "garment"}) || !tryon.Takes("garment") || tryon.Takes("image") {
		t.Errorf("tryon's roles %+v", tryon.Roles)
	}
	if r, _ := tryon.Role("garment"); r.Limit() != 6 {
		t.Errorf("garment takes %d", r.Limit())
	}
	packshot, _ := tool.Get("packshot")
	if !slices.Equal(packshot.RoleNames(), []string{"image", "background"}) || !slices.Equal(packshot.Required(), []string{"image"}) {
		t.Errorf("packshot's roles %v", packshot.RoleNames())
	}
	if got := tool.SubmitRoles(); got["garment"] != 6 || got["image"] != 1 || got["item"] != 0 {
		t.Errorf("submit roles %v: garment repeats, item is a look's", got)
	}
	if got := tool.SubmitTools(); len(got) != 13 || slices.Contains(got, "lookbook") || !slices.IsSorted(got) {
		t.Errorf("submit tools %v", got)
	}
	if got := tool.Names(); len(got) != 14 || !slices.IsSorted(got) {
		t.Errorf("names %v", got)
	}
	if !tool.Serves(tool.ImageAPI, "lookbook") || tool.Serves(tool.Local, "lookbook") || tool.Serves(tool.Fal, "nope") {
		t.Error("Serves")
	}
	if !tool.Declared("reframe", "aspect") || tool.Declared("upscale", "aspect") || tool.Declared("nope", "runId") {
		t.Error("Declared")
	}
	video, _ := tool.Get("lookbook-video")
	if !video.Video || video.DeadlineOr(10*time.Minute) <= 10*time.Minute || tryon.DeadlineOr(10*time.Minute) != 10*time.Minute {
		t.Errorf("deadlines: video %v, tryon %v", video.DeadlineOr(10*time.Minute), tryon.DeadlineOr(10*time.Minute))
	}
	// The registry hands out copies.
	tryon.Roles[0].Name, tryon.Options[0].Legal = "edited", []string{"edited"}
	if again, _ := tool.Get("tryon"); again.Roles[0].Name != "model" {
		t.Error("Get shares the registry's slices")
	}
}

// TestUnserved: a tool no configured engine performs names every setting
// that would serve it; a tool the local engine performs always is served.
func TestUnserved(t *testing.T) {
	for name, want := range map[string]string{
		"generate-character": "No engine configured here performs generate-character; set FAL_KEY, AI_IMAGE_BASE_URL or FASHN_API_KEY to develop it.",
		"lookbook-video":     "No engine configured here performs lookbook-video; set FAL_KEY or FASHN_API_KEY to develop it.",
	} {
		d, ok := tool.Get(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		if got := d.Unserved(); got != want {
			t.Errorf("%s.Unserved() = %q; want %q", name, got, want)
		}
	}
	for _, d := range tool.All() {
		if d.Aspect != "" {
			if _, ok := d.Option(d.Aspect); !ok {
				t.Errorf("%s declares its result's aspect by %q, an option it does not take", d.Name, d.Aspect)
			}
		}
	}
}
