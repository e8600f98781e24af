package ai_test

import (
	"context"
	"testing"
	"time"

	"studio/internal/ai"
)

func TestUsageAdd(t *testing.T) {
	tests := []struct {
		name     string
		start, v ai.Usage
		want     ai.Usage
	}{
		{"into nothing", ai.Usage{}, ai.Usage{Model: "m", PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, CostUSD: 0.5, Latency: time.Second, Attempts: 1},
			ai.Usage{Model: "m", PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, CostUSD: 0.5, Latency: time.Second, Attempts: 1}},
		{"sums, the newer model wins", ai.Usage{Model: "a", PromptTokens: 1, Attempts: 2, Latency: time.Second}, ai.Usage{Model: "b", PromptTokens: 2, Attempts: 1, Latency: time.Second},
			ai.Usage{Model: "b", PromptTokens: 3, Attempts: 3, Latency: 2 * time.Second}},
		{"an unnamed model keeps the known one", ai.Usage{Model: "a"}, ai.Usage{TotalTokens: 4}, ai.Usage{Model: "a", TotalTokens: 4}},
	}
	for _, tt := range tests {
		u := tt.start
		u.Add(tt.v)
		if u != tt.want {
			t.Errorf("%s: %+v; want %+v", tt.name, u, tt.want)
		}
	}
}

func TestTally(t *testing.T) {
	m := &ai.Meter{}
	ctx := ai.WithMeter(context.Background(), m)
	ai.Tally(ctx, ai.Usage{Model: "m", PromptTokens: 100, Attempts: 2})
	ai.Tally(ctx, ai.Usage{Model: "m", PromptTokens: 5}) // asked nothing: not tallied
	ai.Tally(ctx, ai.Usage{PromptTokens: 20, Attempts: 1})
	ai.Tally(context.Background(), ai.Usage{PromptTokens: 1000, Attempts: 1}) // no meter
	if got, want := m.Usage(), (ai.Usage{Model: "m", PromptTokens: 120, Attempts: 3}); got != want {
		t.Errorf("metered %+v; want %+v", got, want)
	}
}
