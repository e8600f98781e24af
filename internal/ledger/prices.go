package ledger

import (
	"fmt"

	"studio/internal/ts"
)

// Tier is a quality tier (SPEC §8): it sets a develop's long edge and its
// price. It is the one tier type: jobs, looks, engines and prices all use it.
type Tier string

const (
	Tier1K Tier = "1k" // 1,024 px on the long edge
	Tier2K Tier = "2k" // 2,048 px
	Tier4K Tier = "4k" // 4,096 px
)

// Tiers lists the tiers, cheapest first.
var Tiers = []Tier{Tier1K, Tier2K, Tier4K}

// Pixels is the tier's long edge in pixels: 1024, 2048 or 4096; 0 for an
// unknown tier.
func (t Tier) Pixels() int {
	switch t {
	case Tier1K:
		return 1024
	case Tier2K:
		return 2048
	case Tier4K:
		return 4096
	}
	return 0
}

// Valid reports whether t is one of the known tiers.
func (t Tier) Valid() bool { return t.Pixels() > 0 }

// Enum lists the tiers for the OpenAPI document.
func (Tier) Enum() []any { return []any{Tier1K, Tier2K, Tier4K} }

// ParseTier reads a tier; "" is the default, 1k.
func ParseTier(s string) (Tier, bool) {
	switch Tier(s) {
	case "", Tier1K:
		return Tier1K, true
	case Tier2K, Tier4K:
		return Tier(s), true
	}
	return "", false
}

// TierPrices are a tool's prices in tokens at each tier.
type TierPrices struct {
	K1 int64 `json:"1k" minimum:"1"`
	K2 int64 `json:"2k" minimum:"1"`
	K4 int64 `json:"4k" minimum:"1"`
}

// At returns the price at tier t (1k for an unknown tier).
func (p TierPrices) At(t Tier) int64 {
	switch t {
	case Tier2K:
		return p.K2
	case Tier4K:
		return p.K4
	}
	return p.K1
}

// ToolPrice is one row of the price table.
type ToolPrice struct {
	Tool   string     `json:"tool"`
	Prices TierPrices `json:"prices"`
}

// Flat is a lane or text tool with one price at every tier.
type Flat struct {
	Name   string `json:"name"`
	Tokens int64  `json:"tokens" minimum:"1"`
}

// PlanTier names a plan.
type PlanTier string

const (
	TierTrial   PlanTier = "trial"
	TierStudio  PlanTier = "studio"
	TierAtelier PlanTier = "atelier"
	TierMaison  PlanTier = "maison"
)

// PlanStatus is where a house's plan stands.
type PlanStatus string

const (
	Trialing PlanStatus = "trialing"
	Active   PlanStatus = "active"
	PastDue  PlanStatus = "past_due"
	Canceled PlanStatus = "canceled"
)

// PlanOffer is a plan as the catalog sells it.
type PlanOffer struct {
	Tier             PlanTier `json:"tier" enum:"trial,studio,atelier,maison"`
	Name             string   `json:"name"`
	PriceUSD         int64    `json:"priceUsd" description:"Whole US dollars a month."`
	MonthlyTokens    int64    `json:"monthlyTokens" description:"Tokens granted each month."`
	RolloverMultiple int64    `json:"rolloverMultiple" description:"Unspent plan tokens carry over up to this multiple of monthlyTokens."`
}

// PeriodGrant is what a paid period of the plan grants, given live, the
// house's unreserved plan tokens still live when it is paid: unspent plan
// tokens carry over up to RolloverMultiple months' worth, so the grant tops
// them up to that cap, and never grants more than one month.
func (o PlanOffer) PeriodGrant(live int64) int64 {
	return min(o.MonthlyTokens, max(0, o.RolloverMultiple*o.MonthlyTokens-live))
}

// TopUpPack is a pack of tokens sold once; its tokens never expire.
type TopUpPack struct {
	Tokens   int64 `json:"tokens"`
	PriceUSD int64 `json:"priceUsd" description:"Whole US dollars."`
}

// Plan is a house's plan row.
type Plan struct {
	Tier        PlanTier
	Status      PlanStatus
	PeriodStart ts.Time
	RenewsAt    *ts.Time // the end of the period (of the trial, for a trial)
	EndsAt      *ts.Time // set when canceled: the plan runs to period end
	// The subscription the plan mirrors at the payment provider; empty for
	// a trial.
	Provider       string
	SubscriptionID string
}

// Prices is the live price list: the price table, the flat lanes and text
// tools, the plans and the top-up packs. It is configuration: the app passes
// one in (DefaultPrices unless told otherwise) and the catalog answers it.
type Prices struct {
	Tools     []ToolPrice // in catalog order
	Default   int64       // a tool with no row charges this at every tier
	Lanes     []Flat      // flat lanes (SPEC §8): charged per call
	TextTools []Flat      // text tools: charged only on success
	Plans     []PlanOffer
	TopUps    []TopUpPack
}

// DefaultPrices returns the price list of DECISIONS §4 around the tools'
// rows, which package tool declares with each tool (tool.DefaultPrices
// passes them): the default price, the flat lanes and text tools, the
// plans and the top-up packs.
func DefaultPrices(tools []ToolPrice) Prices {
	flat := func(tokens int64, names ...string) []Flat {
		out := make([]Flat, len(names))
		for i, n := range names {
			out[i] = Flat{Name: n, Tokens: tokens}
		}
		return out
	}
	return Prices{
		Tools:     tools,
		Default:   5,
		Lanes:     flat(1, "depth", "describe-item", "detect-items", "extract-character", "segment", "classify", "extract-build"),
		TextTools: flat(1, "face-features", "inspiration-keywords", "midjourney-prompts", "prompt-builder", "prompt-enhancer"),
		Plans: []PlanOffer{
			{Tier: TierTrial, Name: "Trial", PriceUSD: 0, MonthlyTokens: 60, RolloverMultiple: 1},
			{Tier: TierStudio, Name: "Studio", PriceUSD: 49, MonthlyTokens: 600, RolloverMultiple: 2},
			{Tier: TierAtelier, Name: "Atelier", PriceUSD: 149, MonthlyTokens: 2000, RolloverMultiple: 2},
			{Tier: TierMaison, Name: "Maison", PriceUSD: 499, MonthlyTokens: 8000, RolloverMultiple: 3},
		},
		TopUps: []TopUpPack{{Tokens: 100, PriceUSD: 12}, {Tokens: 500, PriceUSD: 50}, {Tokens: 2000, PriceUSD: 180}},
	}
}

// Validate checks a price list before the app serves it: every price is
// at least one token and no tool, lane or plan is listed twice.
func (p Prices) Validate() error {
	if p.Default < 1 {
		return fmt.Errorf("prices: default price %d is below 1", p.Default)
	}
	seen := map[string]bool{}
	once := func(kind, name string) error {
		if name == "" || seen[kind+name] {
			return fmt.Errorf("prices: %s %q is empty or listed twice", kind, name)
		}
		seen[kind+name] = true
		return nil
	}
	for _, t := range p.Tools {
		if err := once("tool", t.Tool); err != nil {
			return err
		}
		if t.Prices.K1 < 1 || t.Prices.K2 < 1 || t.Prices.K4 < 1 {
			return fmt.Errorf("prices: tool %q has a price below 1", t.Tool)
		}
	}
	for _, group := range [][]Flat{p.Lanes, p.TextTools} {
		for _, f := range group {
			if err := once("flat", f.Name); err != nil {
				return err
			}
			if f.Tokens < 1 {
				return fmt.Errorf("prices: %q costs %d, below 1", f.Name, f.Tokens)
			}
		}
	}
	for _, pl := range p.Plans {
		if err := once("plan", string(pl.Tier)); err != nil {
			return err
		}
	}
	for _, t := range p.TopUps {
		if t.Tokens < 1 || t.PriceUSD < 0 {
			return fmt.Errorf("prices: top-up pack of %d tokens for $%d", t.Tokens, t.PriceUSD)
		}
	}
	return nil
}

// Tool returns the price of a develop with tool at tier t: the table's row,
// or the default for a tool without one.
func (p Prices) Tool(tool string, t Tier) int64 {
	for _, row := range p.Tools {
		if row.Tool == tool {
			return row.Prices.At(t)
		}
	}
	return p.Default
}

// Flat returns the price of a flat lane or text tool, and whether it is one.
func (p Prices) Flat(name string) (int64, bool) {
	for _, group := range [][]Flat{p.Lanes, p.TextTools} {
		for _, f := range group {
			if f.Name == name {
				return f.Tokens, true
			}
		}
	}
	return 0, false
}

// Plan returns the offer of a plan tier.
func (p Prices) Plan(t PlanTier) (PlanOffer, bool) {
	for _, pl := range p.Plans {
		if pl.Tier == t {
			return pl, true
		}
	}
	return PlanOffer{}, false
}

// Catalog is the body of GET /api/toolkit/ai/billing/catalog: the live
// price list. The listed price is the price that settles.
type Catalog struct {
	Tiers        []Tier      `json:"tiers" description:"Quality tiers, cheapest first: 1k, 2k and 4k pixels on the long edge."`
	Tools        []ToolPrice `json:"tools" description:"Tokens a develop holds and settles, per tool and tier."`
	DefaultPrice int64       `json:"defaultPrice" description:"Tokens a develop with a tool not listed in tools costs, at every tier."`
	Lanes        []Flat      `json:"lanes" description:"Flat AI lanes: one price at every tier, charged per call."`
	TextTools    []Flat      `json:"textTools" description:"Text tools: one price, charged only when the call succeeds."`
	Plans        []PlanOffer `json:"plans" description:"Monthly plans, trial first."`
	TopUps       []TopUpPack `json:"topUps" description:"Token packs sold once; their tokens never expire."`
}

// Catalog renders the price list for the wire. Every list is non-nil.
func (p Prices) Catalog() Catalog {
	nonNil := func(fs []Flat) []Flat { return append([]Flat{}, fs...) }
	return Catalog{
		Tiers:        append([]Tier{}, Tiers...),
		Tools:        append([]ToolPrice{}, p.Tools...),
		DefaultPrice: p.Default,
		Lanes:        nonNil(p.Lanes),
		TextTools:    nonNil(p.TextTools),
		Plans:        append([]PlanOffer{}, p.Plans...),
		TopUps:       append([]TopUpPack{}, p.TopUps...),
	}
}
