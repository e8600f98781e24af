package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
)

// sampleRows are tool rows for the price list's own tests; package tool
// declares the real ones (and tests them).
var sampleRows = []ToolPrice{
	{Tool: "upscale", Prices: TierPrices{K1: 2, K2: 3, K4: 5}},
	{Tool: "tryon", Prices: TierPrices{K1: 8, K2: 12, K4: 18}},
	{Tool: "lookbook", Prices: TierPrices{K1: 8, K2: 12, K4: 18}},
}

func samplePrices() Prices { return DefaultPrices(slices.Clone(sampleRows)) }

func TestDefaultPrices(t *testing.T) {
	p := samplePrices()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		tier Tier
		want int64
	}{
		{"upscale", Tier1K, 2}, {"upscale", Tier2K, 3}, {"upscale", Tier4K, 5},
		{"tryon", Tier1K, 8}, {"tryon", Tier2K, 12}, {"tryon", Tier4K, 18},
		{"a-tool-without-a-row", Tier1K, 5}, {"a-tool-without-a-row", Tier4K, 5},
		{"upscale", Tier("8k"), 2}, // an unknown tier reads as 1k
	}
	for _, tt := range tests {
		if got := p.Tool(tt.tool, tt.tier); got != tt.want {
			t.Errorf("%s at %s costs %d; want %d", tt.tool, tt.tier, got, tt.want)
		}
	}
	for _, name := range []string{"depth", "describe-item", "detect-items", "extract-character", "segment", "classify", "extract-build",
		"face-features", "inspiration-keywords", "midjourney-prompts", "prompt-builder", "prompt-enhancer"} {
		if n, ok := p.Flat(name); !ok || n != 1 {
			t.Errorf("%s: %d, %v; want 1", name, n, ok)
		}
	}
	if _, ok := p.Flat("upscale"); ok {
		t.Error("upscale is not a flat lane")
	}
	if pl, ok := p.Plan(TierMaison); !ok || pl.PriceUSD != 499 || pl.MonthlyTokens != 8000 || pl.RolloverMultiple != 3 {
		t.Errorf("maison: %+v", pl)
	}
	// The catalog is a copy: editing it leaves the live table alone.
	c := p.Catalog()
	c.Tools[0].Prices.K1 = 999
	if p.Tool("upscale", Tier1K) != 2 {
		t.Error("the catalog shares its slices with the price list")
	}
}

func TestPricesValidate(t *testing.T) {
	bad := []struct {
		name string
		edit func(*Prices)
	}{
		{"default of zero", func(p *Prices) { p.Default = 0 }},
		{"a tool twice", func(p *Prices) { p.Tools = append(p.Tools, p.Tools[0]) }},
		{"a free tier", func(p *Prices) { p.Tools[1].Prices.K2 = 0 }},
		{"a nameless tool", func(p *Prices) { p.Tools[2].Tool = "" }},
		{"a free lane", func(p *Prices) { p.Lanes[0].Tokens = 0 }},
		{"a lane also a text tool", func(p *Prices) { p.TextTools = append(p.TextTools, p.Lanes[0]) }},
		{"a plan twice", func(p *Prices) { p.Plans = append(p.Plans, p.Plans[0]) }},
		{"an empty pack", func(p *Prices) { p.TopUps[0].Tokens = 0 }},
	}
	for _, tt := range bad {
		p := samplePrices()
		tt.edit(&p)
		if p.Validate() == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestParseTier(t *testing.T) {
	for in, want := range map[string]Tier{"": Tier1K, "1k": Tier1K, "2k": Tier2K, "4k": Tier4K} {
		if got, ok := ParseTier(in); !ok || got != want {
			t.Errorf("ParseTier(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"3k", "1K", "8k", " 1k"} {
		if _, ok := ParseTier(in); ok {
			t.Errorf("ParseTier(%q) accepted", in)
		}
	}
}

func TestCountInt(t *testing.T) {
	tests := []struct {
		raw  string
		want int64
		ok   bool
	}{
		{"1", 1, true}, {"100000", 100000, true}, {"0", 0, true}, {"-5", -5, true}, {" 7 ", 7, true},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false}, {"1.5", 0, false}, {"1.0", 0, false}, {"1e3", 0, false},
		{`"10"`, 0, false}, {"true", 0, false}, {"null", 0, false}, {"", 0, false}, {"-", 0, false},
		{"007", 0, false}, {"-0", 0, true}, {"[1]", 0, false}, {"+1", 0, false},
	}
	for _, tt := range tests {
		var c Count
		if err := c.UnmarshalJSON([]byte(tt.raw)); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Int(); got != tt.want || ok != tt.ok {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

func TestGrantRequestValidate(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantCode string
	}{
		{"minimal", `{"userId":"u","tokens":5}`, ""},
		{"everything", `{"userId":"u","tokens":100000,"expiryDays":3650,"reason":"goodwill"}`, ""},
		{"null expiry", `{"userId":"u","tokens":5,"expiryDays":null}`, ""},
		{"unknown fields are ignored", `{"userId":"u","tokens":5,"extra":[1,2]}`, ""},
		{"no user", `{"tokens":5}`, "USER_REQUIRED"},
		{"blank user", `{"userId":" \t","tokens":5}`, "USER_REQUIRED"},
		{"user before tokens", `{"tokens":0}`, "USER_REQUIRED"},
		{"no tokens", `{"userId":"u"}`, "BAD_TOKENS"},
		{"zero", `{"userId":"u","tokens":0}`, "BAD_TOKENS"},
		{"above the maximum", `{"userId":"u","tokens":100001}`, "BAD_TOKENS"},
		{"a string", `{"userId":"u","tokens":"5"}`, "BAD_TOKENS"},
		{"an object", `{"userId":"u","tokens":{"n":5}}`, "BAD_TOKENS"},
		{"expiry zero", `{"userId":"u","tokens":5,"expiryDays":0}`, "BAD_BODY"},
		{"expiry too far", `{"userId":"u","tokens":5,"expiryDays":3651}`, "BAD_BODY"},
		{"reason too long", `{"userId":"u","tokens":5,"reason":"` + strings.Repeat("é", 501) + `"}`, "BAD_BODY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r GrantRequest
			if err := json.Unmarshal([]byte(tt.body), &r); err != nil {
				t.Fatal(err)
			}
			err := r.Validate()
			code := ""
			if e, ok := errs.As(err); ok {
				code = e.Code
			} else if err != nil {
				t.Fatalf("not an *errs.Error: %v", err)
			}
			if code != tt.wantCode {
				t.Errorf("got %v; want %q", err, tt.wantCode)
			}
			if code == "BAD_TOKENS" {
				if e, _ := errs.As(err); e.Fields["max"] != MaxGrant {
					t.Errorf("BAD_TOKENS carries max %v", e.Fields["max"])
				}
			}
		})
	}
	if ErrBadTokens.Error() == "" || !errors.Is(errs.Wrap(ErrBadTokens, errors.New("x")), ErrBadTokens) {
		t.Error("BAD_TOKENS does not match itself")
	}
}

// TestServiceRoles: role rules refuse before the store is reached.
func TestServiceRoles(t *testing.T) {
	s := NewService(nil, samplePrices(), func() time.Time { return time.Unix(0, 0) })
	var in GrantRequest
	if err := json.Unmarshal([]byte(`{"userId":"u","tokens":5}`), &in); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name string
		p    auth.Principal
	}{
		{"an owner's session", auth.Principal{UserID: "u", HouseID: "h", Role: auth.Owner, Cred: auth.CredSession}},
		{"an admin's key", auth.Principal{UserID: "u", HouseID: "h", Role: auth.Member, Cred: auth.CredKey, PlatformAdmin: true}},
	}
	for _, tt := range refused {
		if _, err := s.Grant(context.Background(), tt.p, in); !errors.Is(err, errs.Forbidden) {
			t.Errorf("grant by %s: %v; want FORBIDDEN", tt.name, err)
		}
	}
	for _, p := range []auth.Principal{{HouseID: "h"}, {Role: auth.Viewer}} {
		if _, err := s.Balance(context.Background(), p); !errors.Is(err, errs.Forbidden) {
			t.Errorf("balance by %+v: %v; want FORBIDDEN", p, err)
		}
	}
	if s.Catalog().DefaultPrice != 5 || s.Prices().Default != 5 {
		t.Error("the service does not serve its price list")
	}
}

func TestInsufficient(t *testing.T) {
	err := Insufficient(12, 7, 30)
	e, ok := errs.As(err)
	if !ok || !errors.Is(err, ErrInsufficientTokens) || e.Kind != errs.KindPayment || e.Fields["need"] != int64(12) || e.Fields["spendable"] != int64(7) || e.Fields["held"] != int64(30) {
		t.Errorf("Insufficient(12, 7, 30) = %#v", err)
	}
	if ErrInsufficientTokens.Fields != nil {
		t.Error("Insufficient changed the declared error")
	}
}
