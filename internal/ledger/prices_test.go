package ledger

import "testing"

func TestTier(t *testing.T) {
	for tier, px := range map[Tier]int{"1k": 1024, "2k": 2048, "4k": 4096, "8k": 0, "": 0, "1K": 0} {
		if tier.Pixels() != px || tier.Valid() != (px > 0) {
			t.Errorf("Tier(%q).Pixels() = %d, Valid() = %v; want %d", tier, tier.Pixels(), tier.Valid(), px)
		}
	}
	for in, want := range map[string]Tier{"": Tier1K, "1k": Tier1K, "2k": Tier2K, "4k": Tier4K, "8k": "", "1K": "", " 1k": ""} {
		got, ok := ParseTier(in)
		if got != want || ok != (want != "") {
			t.Errorf("ParseTier(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
