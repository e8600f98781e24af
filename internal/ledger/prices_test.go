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

// TestPeriodGrant: a paid period tops the live plan tokens up to the
// rollover cap, never past it and never more than a month.
func TestPeriodGrant(t *testing.T) {
	studio := PlanOffer{Tier: TierStudio, MonthlyTokens: 600, RolloverMultiple: 2}
	trial := PlanOffer{Tier: TierTrial, MonthlyTokens: 60, RolloverMultiple: 1}
	for _, tc := range []struct {
		name  string
		offer PlanOffer
		live  int64
		want  int64
	}{
		{"nothing live: a month", studio, 0, 600},
		{"some live, below a month of headroom: a month", studio, 500, 600},
		{"exactly a month below the cap: a month", studio, 600, 600},
		{"close to the cap: the rest up to it", studio, 1000, 200},
		{"at the cap: nothing", studio, 1200, 0},
		{"above the cap (a price change): nothing", studio, 5000, 0},
		{"multiple 1, nothing live: a month", trial, 0, 60},
		{"multiple 1, some live: the rest of the month", trial, 45, 15},
	} {
		if got := tc.offer.PeriodGrant(tc.live); got != tc.want {
			t.Errorf("%s: PeriodGrant(%d) = %d; want %d", tc.name, tc.live, got, tc.want)
		}
	}
}
