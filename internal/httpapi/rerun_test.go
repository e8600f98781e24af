package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/judge"
)

func TestRedraw(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		k, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")
		clean := judgedFrame(t, a, owner)
		cut := mendableFrame(t, a, owner)
		futile := developedFrame(t, a, owner, "packshot", nil)
		writeVerdict(t, a, owner.HouseID, futile, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
			{Code: judge.SoftFocus, Where: "whole frame", Confidence: judge.Sure, FromInput: true}}})
		// A frame of a take, judged cut off by its crop: its redraw carries
		// the correction, and the local engine's mend after the take's own
		// direction (DECISIONS §11).
		soft := developedFrame(t, a, owner, "upscale", map[string]string{"correction": "an old one", "direction": "Warmer."})
		writeVerdict(t, a, owner.HouseID, soft, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
			{Code: judge.BackgroundBleed, Where: "left edge", Confidence: judge.NotSure}, {Code: judge.CropCut, Where: "the piece touches the top edge", Confidence: judge.Sure}}})
		// Judged soft, not from its input: the local engine renders the same
		// frame again and no direction of its sharpens it, so the redraw is
		// futile, even though the verdict (written by hand) does not say so.
		blurred := developedFrame(t, a, owner, "upscale", nil)
		writeVerdict(t, a, owner.HouseID, blurred, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
			{Code: judge.SoftFocus, Where: "all", Confidence: judge.Sure}}})
		unreadable := doneJob(t, a, owner, "upscale", nil)
		writeVerdict(t, a, owner.HouseID, unreadable, judge.Reading{Unreadable: true})
		ghost := doneJob(t, a, owner, "generate-character", nil)
		writeVerdict(t, a, owner.HouseID, ghost, judge.Reading{})
		gone := mendableFrame(t, a, owner)
		j, _ := a.DB.Job(context.Background(), owner.HouseID, gone)
		a.Do(t, "POST", "/api/toolkit/assets/batch/delete", k, map[string]any{"assetIds": []string{j.Inputs[0].AssetID}})
		// A frame whose option its tool no longer admits (written before the
		// declaration, or by hand).
		illegal := developedFrame(t, a, owner, "color-change", map[string]string{"color": "blue"})
		writeVerdict(t, a, owner.HouseID, illegal, judge.Reading{Judge: "pixels", Findings: []judge.Finding{
			{Code: judge.CropCut, Where: "the piece touches the left edge", Confidence: judge.Sure}}})
		unjudged := developedFrame(t, a, owner, "upscale", nil)
		queued := submitJob(t, a, k, "upscale")

		tests := []struct {
			name   string
			cred   apptest.Cred
			body   any
			status int
			code   string
			reason string
		}{
			{"jobId is required", k, map[string]any{}, 400, "JOB_ID_REQUIRED", ""},
			{"a key over 200 characters", k, map[string]any{"jobId": clean, "idempotencyKey": strings.Repeat("k", 201)}, 400, "BAD_IDEMPOTENCY_KEY", ""},
			{"viewer may not spend", viewer, map[string]any{"jobId": clean}, 403, "FORBIDDEN", ""},
			{"unknown frame", k, map[string]any{"jobId": uuid.NewString()}, 404, "NOT_FOUND", ""},
			{"a frame still queued", k, map[string]any{"jobId": queued}, 409, "NOT_DEVELOPED", ""},
			{"a frame not judged yet", k, map[string]any{"jobId": unjudged}, 409, "NOT_DEVELOPED", ""},
			{"a retry the input makes futile", k, map[string]any{"jobId": futile}, 409, "REDRAW_REFUSED", "retryFutile"},
			{"a local frame no direction mends", k, map[string]any{"jobId": blurred}, 409, "REDRAW_REFUSED", "retryFutile"},
			{"a clean local frame", k, map[string]any{"jobId": clean}, 409, "REDRAW_REFUSED", "retryFutile"},
			{"a frame the judge could not read", k, map[string]any{"jobId": unreadable}, 409, "REDRAW_REFUSED", "unreadable"},
			{"a tool no engine performs", k, map[string]any{"jobId": ghost}, 422, "UNKNOWN_TOOL", ""},
			{"inputs gone", k, map[string]any{"jobId": gone}, 422, "NO_INPUTS", ""},
			{"an option its tool does not admit", k, map[string]any{"jobId": illegal}, 400, "BAD_OPTION", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := houseBalance(t, a, owner.HouseID)
				res := a.Do(t, "POST", "/api/toolkit/judge/redraw", tt.cred, tt.body)
				if res.Status != tt.status || res.Code != tt.code || (tt.reason != "" && res.Map(t)["reason"] != tt.reason) {
					t.Fatalf("got %d %s; want %d %s %s", res.Status, res.Body, tt.status, tt.code, tt.reason)
				}
				if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held || after.Balance != before.Balance {
					t.Errorf("a refused redraw moved tokens: %+v -> %+v", before, after)
				}
			})
		}

		before := houseBalance(t, a, owner.HouseID)
		src, _ := a.DB.Job(context.Background(), owner.HouseID, soft)
		res := a.Do(t, "POST", "/api/toolkit/judge/redraw", k, map[string]any{"jobId": soft, "idempotencyKey": "redraw-1"})
		m := res.Map(t)
		want := "Correct what the judge found: the frame cuts the piece off; the background bleeds into the subject."
		if res.Status != 202 || m["status"] != "queued" || m["retryOfJobId"] != soft || m["tokens"] != float64(src.Cost) || m["correction"] != want {
			t.Fatalf("redraw: %d %s", res.Status, res.Body)
		}
		if after := houseBalance(t, a, owner.HouseID); after.Held != before.Held+src.Cost {
			t.Errorf("held %d -> %d; want the source frame's own cost %d more", before.Held, after.Held, src.Cost)
		}
		again := a.Do(t, "POST", "/api/toolkit/judge/redraw", k, map[string]any{"jobId": soft, "idempotencyKey": "redraw-1"}).Map(t)
		if again["jobId"] != m["jobId"] || again["tokens"] != float64(0) {
			t.Errorf("the same key again: %v; want the same job, nothing held", again)
		}
		if res := a.Do(t, "POST", "/api/toolkit/judge/redraw", k, map[string]any{"jobId": cut, "idempotencyKey": "redraw-1"}); res.Status != 409 || res.Code != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("the key for another frame: %d %s", res.Status, res.Body)
		}
		redrawn, _ := a.DB.Job(context.Background(), owner.HouseID, m["jobId"].(string))
		if redrawn.Params["correction"] != want || redrawn.Params["direction"] != "Warmer, wider crop" || redrawn.RetryOfJobID != soft || redrawn.Tier != src.Tier || redrawn.Tool != src.Tool {
			t.Errorf("the redraw's job: %+v", redrawn)
		}
		a.Do(t, "POST", "/api/toolkit/jobs/"+queued+"/cancel", k, nil) // only the redraw is rendered
		developAll(t, a)
		d, ok, err := a.DB.JobDirection(context.Background(), owner.HouseID, redrawn.ID)
		if err != nil || !ok || d.Prompt != "Warmer, wider crop\n"+want {
			t.Errorf("the prompt recorded for the redraw's provider: %q %v %v; want the direction, then the correction", d.Prompt, ok, err)
		}

		// Spend the rest: a redraw then is refused with nothing held.
		poor := a.SignUp(t, "poor")
		pk := a.Key(t, poor, "member")
		frame := mendableFrame(t, a, poor)
		for houseBalance(t, a, poor.HouseID).Balance >= 2 {
			if res := a.Do(t, "POST", "/api/toolkit/judge/redraw", pk, map[string]any{"jobId": frame}); res.Status != 202 {
				t.Fatalf("redraw: %d %s", res.Status, res.Body)
			}
		}
		held := houseBalance(t, a, poor.HouseID).Held
		if res := a.Do(t, "POST", "/api/toolkit/judge/redraw", pk, map[string]any{"jobId": frame}); res.Status != 402 || res.Code != "INSUFFICIENT_TOKENS" {
			t.Errorf("a redraw past the balance: %d %s", res.Status, res.Body)
		}
		if after := houseBalance(t, a, poor.HouseID).Held; after != held {
			t.Errorf("a refused redraw held %d", after-held)
		}
	})
}
