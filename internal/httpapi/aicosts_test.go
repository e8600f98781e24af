package httpapi_test

import (
	"math"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/apptest"
	"studio/internal/ops"
)

// withCost is the answer a stated cost comes with (usage.cost, as gateways
// state it).
func withCost(a aitest.Answer, usd float64) aitest.Answer {
	a.Usage = aitest.Usage{PromptTokens: 100, CompletionTokens: 20, Cost: usd}
	return a
}

// TestAICostsStated: the operators' ai-costs add what providers stated to
// the tokens settled: the vision judge's looks (no hold pays for them; a
// look answered outside the schema twice leaves the local verdict and
// still costs),
// the DNA reads (the first free, a re-read 2 tokens, a failed one
// charging nothing), the upload's classify read, and every AI lane call,
// delivered or not (a bad answer asked twice costs twice and charges the
// house nothing).
func TestAICostsStated(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		a := apptest.New(t, e, withAI(srv))
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")

		// An upscale (2 tokens) whose frame the vision judge reads.
		srv.Answer(withCost(aitest.JSON(map[string]any{"findings": []map[string]string{}, "note": ""}), 0.0012))
		submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		srv.Answer(withCost(aitest.Answer{Content: `{}`}, 0.001), withCost(aitest.Answer{Content: `no`}, 0.001))
		submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		// Two DNA reads: the first free, the second 2 tokens.
		srv.Answer(withCost(aReading("Quiet coastal tailoring."), 0.01))
		readDNA(t, a, k, dnaForm(t, fivePhotos(t)[:1]))
		srv.Answer(withCost(aReading("Quiet coastal tailoring, washed."), 0.02))
		readDNA(t, a, k, dnaForm(t, fivePhotos(t)[:1]))
		srv.Answer(withCost(aitest.Answer{Content: `{}`}, 0.003), withCost(aitest.Answer{Content: `no`}, 0.003))
		want(t, a.Do(t, "POST", "/api/toolkit/brand/dna", k, dnaForm(t, fivePhotos(t)[:1])), 502, "AI_BAD_OUTPUT")
		// The upload's classify read (1 token).
		srv.Answer(withCost(goodAnswers["describe-item"], 0.005))
		upload(t, a, k, jpegOf(t, 32, 32), "classify", "1")
		// A lane that delivers (1 token), and one whose answers miss the
		// schema twice: 502, nothing charged, both requests stated.
		srv.Answer(withCost(goodAnswers["describe-item"], 0.004))
		if res := a.Do(t, "POST", "/api/toolkit/ai/describe-item", k, imagePart(t, garmentPNG(t, 64))); res.Status != 200 {
			t.Fatalf("describe-item: %d %s", res.Status, res.Body)
		}
		srv.Answer(withCost(aitest.Answer{Content: `{"nope": 1}`}, 0.001), withCost(aitest.Answer{Content: `not JSON`}, 0.001))
		want(t, a.Do(t, "POST", "/api/toolkit/ai/prompt-builder", k, map[string]any{"subject": "a linen shirt"}), 502, "AI_BAD_OUTPUT")
		if n := srv.Pending(); n != 0 {
			t.Fatalf("%d scripted answers were not asked for", n)
		}

		var c ops.Costs
		res := a.Do(t, "GET", "/api/toolkit/admin/ai-costs", op.Session(), nil)
		res.JSON(t, &c)
		got := map[string]ops.ToolCost{}
		for _, tc := range c.ByTool {
			got[tc.Tool] = tc
		}
		near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
		for _, w := range []ops.ToolCost{
			{Tool: "upscale", Tokens: 4, N: 2},
			{Tool: "judge", CostUSD: 0.0032},
			{Tool: "brand-dna", Tokens: 2, CostUSD: 0.036, N: 1},
			{Tool: "classify", Tokens: 1, CostUSD: 0.005, N: 1},
			{Tool: "describe-item", Tokens: 1, CostUSD: 0.004, N: 1},
			{Tool: "prompt-builder", CostUSD: 0.002},
		} {
			g := got[w.Tool]
			if g.Tokens != w.Tokens || g.N != w.N || !near(g.CostUSD, w.CostUSD) {
				t.Errorf("%s: %+v; want %+v", w.Tool, g, w)
			}
		}
		if len(c.ByTool) != 6 || c.ByTool[0].Tool != "upscale" || c.ByTool[1].Tool != "brand-dna" || c.ByTool[len(c.ByTool)-1].Tool != "prompt-builder" {
			t.Errorf("byTool %s; want six rows, most tokens first, then most dollars", res.Body)
		}
		if c.TotalTokensSettled != 8 || !near(c.TotalCostUSD, 0.0502) || len(c.Daily) != 1 ||
			c.Daily[0].Tokens != 8 || !near(c.Daily[0].CostUSD, 0.0502) {
			t.Errorf("totals %s; want 8 tokens and $0.0502, today", res.Body)
		}
	})
}
