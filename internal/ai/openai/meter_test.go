package openai_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"studio/internal/ai"
	"studio/internal/ai/aitest"
	"studio/internal/ai/openai"
)

// TestMeter: a meter riding the context sums every JSON call made with it,
// answered or not; a call made without it is not metered.
func TestMeter(t *testing.T) {
	good := `{"name":"Slip dress","kind":"clothes","fit":null}`
	for _, c := range []struct {
		name    string
		answers []aitest.Answer
		calls   int
		bad     bool
		prompt  int64
		usd     float64
		tries   int
	}{
		{"one answer", []aitest.Answer{{Content: good, Usage: aitest.Usage{PromptTokens: 100, CompletionTokens: 10, Cost: 0.001}}}, 1, false, 100, 0.001, 1},
		{"two calls", []aitest.Answer{{Content: good, Usage: aitest.Usage{PromptTokens: 100, Cost: 0.001}},
			{Content: good, Usage: aitest.Usage{PromptTokens: 50, Cost: 0.0005}}}, 2, false, 150, 0.0015, 2},
		{"asked again, then a bad answer", []aitest.Answer{{Content: `{}`, Usage: aitest.Usage{PromptTokens: 100, Cost: 0.001}},
			{Content: `no`, Usage: aitest.Usage{PromptTokens: 120, Cost: 0.002}}}, 1, true, 220, 0.003, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := aitest.New(t)
			srv.Answer(c.answers...)
			client := openai.New(srv.Config())
			m := &ai.Meter{}
			ctx := ai.WithMeter(context.Background(), m)
			for range c.calls {
				var out item
				if _, err := client.JSON(ctx, itemRequest(t), &out); (err != nil) != c.bad || (c.bad && !errors.Is(err, ai.ErrBadOutput)) {
					t.Fatalf("JSON: %v", err)
				}
			}
			u := m.Usage()
			if u.PromptTokens != c.prompt || math.Abs(u.CostUSD-c.usd) > 1e-12 || u.Attempts != c.tries || u.Model == "" {
				t.Errorf("metered %+v; want %d prompt tokens, $%v, %d requests", u, c.prompt, c.usd, c.tries)
			}
		})
	}
	srv := aitest.New(t)
	srv.Answer(aitest.Answer{Content: good})
	var out item
	m := &ai.Meter{}
	if _, err := openai.New(srv.Config()).JSON(context.Background(), itemRequest(t), &out); err != nil || m.Usage().Attempts != 0 {
		t.Errorf("an unmetered call: %v %+v", err, m.Usage())
	}
}
