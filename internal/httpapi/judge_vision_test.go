package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"studio/internal/ai/aitest"
	"studio/internal/app"
	"studio/internal/apptest"
)

// TestVisionJudge: with AI_BASE_URL set, the vision judge looks at every
// frame through an OpenAI-compatible endpoint (the local stand-in speaking
// the protocol); its findings join the local judge's measured ones. An
// answer outside the schema is asked again once, then the local verdict
// stands; a failing endpoint is tried again later, and after three claims
// the local verdict stands; a provider out of credit leaves it at once.
func TestVisionJudge(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		srv := aitest.New(t)
		a := apptest.New(t, e, func(c *app.Config) { c.AIBaseURL, c.AIModel = srv.URL, "judge-model" })
		owner := a.SignUp(t, "owner")
		k := a.Key(t, owner, "member")
		ctx := context.Background()

		srv.Answer(aitest.Answer{Content: mustJSON(t, map[string]any{
			"findings": []map[string]string{
				{"code": "hands-wrong", "where": "left hand shows six fingers", "confidence": "sure"},
				{"code": "crop-cut", "where": "right cuff", "confidence": "not-sure"},
			},
			"note": "The left hand has six fingers.",
		}), Usage: aitest.Usage{PromptTokens: 900, CompletionTokens: 60, Cost: 0.0012}})
		id := submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		// The source is 64 px: the local judge measures it soft too, and its
		// findings join the model's.
		v, raw := verdictOf(t, a, k, id)
		weights := map[string]int{"hands-wrong": 20, "soft-focus": 10, "texture-artifact": 10}
		lost, seen := 0, map[string]string{}
		for _, f := range v.Findings {
			seen[f.Code] = f.Confidence
			if f.Confidence == "sure" {
				lost += weights[f.Code]
			}
			if f.Code == "hands-wrong" && (f.Label != "Hands are malformed." || f.Where != "left hand shows six fingers") {
				t.Errorf("the model's finding: %+v", f)
			}
		}
		if seen["hands-wrong"] != "sure" || seen["crop-cut"] != "not-sure" || seen["soft-focus"] != "sure" || v.Score == nil || *v.Score != 100-lost ||
			!v.ShowScore || !v.RetryFutile {
			t.Errorf("the vision verdict: %+v", v)
		}
		for _, never := range []string{"note", "model", "cost", "latencyMs"} {
			if _, ok := raw[never]; ok {
				t.Errorf("%s is on the wire", never)
			}
		}
		stored, err := a.DB.Verdict(ctx, owner.HouseID, id)
		if err != nil || stored.Judge != "vision" || stored.Model != "judge-model" || stored.Cost != 960 || stored.CostUSD != 0.0012 ||
			!strings.Contains(stored.Note, "six fingers") || !strings.Contains(stored.Note, "local pixel judge") || stored.LatencyMs < 0 {
			t.Errorf("what operators keep: %+v %v", stored, err)
		}
		chats := srv.Chats()
		if len(chats) != 1 {
			t.Fatalf("%d requests; want one", len(chats))
		}
		req := chats[0]
		schema, _ := json.Marshal(req.ResponseFormat)
		if req.Model != "judge-model" || !strings.Contains(string(schema), `"soft-focus"`) || !strings.Contains(string(schema), `"strict":true`) ||
			len(req.Messages[len(req.Messages)-1].Images()) != 2 || !strings.Contains(req.Messages[0].Text(), "The frame is soft or blurred.") {
			t.Errorf("the request: model %s, schema %s, %d images", req.Model, schema, len(req.Messages[len(req.Messages)-1].Images()))
		}

		// Outside the schema twice: the local verdict stands.
		srv.Answer(aitest.JSON(map[string]any{"findings": []map[string]string{{"code": "blurry", "where": "all", "confidence": "sure"}}, "note": ""}),
			aitest.JSON(map[string]any{"verdict": "fine"}))
		id = submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		if v, _ := verdictOf(t, a, k, id); len(v.Findings) == 0 || strings.Contains(fmt.Sprint(v.Findings), "hands-wrong") {
			t.Errorf("after two answers outside the schema: %+v; want the local verdict", v)
		}
		if stored, _ := a.DB.Verdict(ctx, owner.HouseID, id); stored.Judge != "pixels" || !strings.Contains(stored.Note, "outside the schema") {
			t.Errorf("stored %+v", stored)
		}

		// A failing endpoint: the frame waits and is tried again; the third claim lets the local verdict stand.
		id = submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		for try := 1; try <= 3; try++ {
			srv.Answer(aitest.Fail(400, "invalid_request_error", "", "The model is overloaded."))
			developAll(t, a)
			_, err := a.DB.Verdict(ctx, owner.HouseID, id)
			if (try < 3) != (err != nil) {
				t.Fatalf("after failure %d: verdict err %v", try, err)
			}
			if _, err := a.DB.RawExec(ctx, `UPDATE judge_tasks SET not_before = 0`); err != nil {
				t.Fatal(err)
			}
		}
		if stored, _ := a.DB.Verdict(ctx, owner.HouseID, id); stored.Judge != "pixels" || !strings.Contains(stored.Note, "failed 3 times") {
			t.Errorf("stored %+v", stored)
		}

		// Out of credit: the local verdict stands at once.
		srv.Answer(aitest.Answer{Err: aitest.OutOfCredit()})
		id = submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		if stored, err := a.DB.Verdict(ctx, owner.HouseID, id); err != nil || stored.Judge != "pixels" || !strings.Contains(stored.Note, "out of credit") {
			t.Errorf("stored %+v %v", stored, err)
		}
		if n := srv.Pending(); n != 0 {
			t.Errorf("%d scripted answers were not asked for", n)
		}
	})
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
