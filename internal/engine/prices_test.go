package engine_test

import (
	"testing"

	"studio/internal/engine"
	"studio/internal/engine/fal"
	"studio/internal/engine/fashn"
	"studio/internal/engine/imageapi"
	"studio/internal/engine/local"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// TestPricesAtQualityDelivered: where the engine that performs a tool
// answers it below 2k and enlarges (the image endpoint's characters and
// look frames, FASHN's reframe), the live table prices 2k and 4k at 1k's
// price; where a provider answers at the tier (fal), or a restoration
// model takes its answer there (the image endpoint with fal's upscale
// model), or the tool runs elsewhere, the row is the table's.
func TestPricesAtQualityDelivered(t *testing.T) {
	api, err := imageapi.New("https://images.test", "k", "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fal.New("k", "")
	if err != nil {
		t.Fatal(err)
	}
	fa, err := fashn.New("k", "")
	if err != nil {
		t.Fatal(err)
	}
	restoring, err := imageapi.New("https://images.test", "k", "")
	if err != nil {
		t.Fatal(err)
	}
	restoring.SetEnlarger(f)
	base := tool.DefaultPrices()
	row := func(p ledger.Prices, name string) ledger.TierPrices {
		return ledger.TierPrices{K1: p.Tool(name, ledger.Tier1K), K2: p.Tool(name, ledger.Tier2K), K4: p.Tool(name, ledger.Tier4K)}
	}
	flat := func(k int64) ledger.TierPrices { return ledger.TierPrices{K1: k, K2: k, K4: k} }
	tests := []struct {
		name    string
		engines []engine.Engine
		want    map[string]ledger.TierPrices
	}{
		{"image endpoint", []engine.Engine{api, local.New(), local.NewLookbook()},
			map[string]ledger.TierPrices{"generate-character": flat(6), "lookbook": flat(8), "upscale": row(base, "upscale"), "reframe": row(base, "reframe")}},
		{"fal before the image endpoint", []engine.Engine{f, api, local.New(), local.NewLookbook()},
			map[string]ledger.TierPrices{"generate-character": row(base, "generate-character"), "lookbook": row(base, "lookbook")}},
		{"the image endpoint before fal, restoring through it", []engine.Engine{restoring, f, local.New(), local.NewLookbook()},
			map[string]ledger.TierPrices{"generate-character": row(base, "generate-character"), "lookbook": row(base, "lookbook")}},
		{"FASHN", []engine.Engine{fa, local.New(), local.NewLookbook()},
			map[string]ledger.TierPrices{"reframe": flat(3), "tryon": row(base, "tryon"), "generate-character": row(base, "generate-character")}},
		{"local", []engine.Engine{local.New(), local.NewLookbook()},
			map[string]ledger.TierPrices{"reframe": row(base, "reframe"), "upscale": row(base, "upscale")}},
	}
	for _, tt := range tests {
		live := engine.Prices(engine.Chain(tt.engines...), base)
		for name, want := range tt.want {
			if got := row(live, name); got != want {
				t.Errorf("%s: %s costs %+v; want %+v", tt.name, name, got, want)
			}
		}
	}
	if got := row(base, "lookbook"); got != (ledger.TierPrices{K1: 8, K2: 12, K4: 18}) {
		t.Errorf("the table given was changed: lookbook %+v", got)
	}
}
