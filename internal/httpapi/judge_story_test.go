package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"studio/internal/apptest"
)

// TestJudgeStory is issue 10 tried as a new user would: develop a sharp
// packshot and one from a tiny source at 4k; the first verdict is clean
// with showScore false, the second flagged with retryFutile true and its
// redraw refused with nothing charged; answer a verdict and see the answer
// on it; take three frames again with a direction, twice, and receive the
// offer of a standing note; accept it and see it in the next develop's
// recorded prompt.
func TestJudgeStory(t *testing.T) {
	// Under the race detector a 4k frame (and the judge's look at it) is a
	// minute of instrumented pixels; a 64 px source is as futile to redraw
	// at 1k (the judge is calibrated so: 64 px at any tier is flagged with
	// retryFutile), so the tiny source's packshot is a 1k one there.
	tier := "4k"
	if raceEnabled {
		tier = "1k"
	}
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		ada := a.SignUp(t, "ada")
		k := a.Key(t, ada, "member")

		sharp := submitWith(t, a, k, "packshot", garmentPNG(t, 1000))
		tiny := submitWith(t, a, k, "packshot", garmentPNG(t, 64), "quality", tier)
		developAll(t, a)

		v, _ := verdictOf(t, a, k, sharp)
		// Clean, and a redraw futile: the local engine would render the
		// same frame again (DECISIONS §11).
		if v.Score == nil || *v.Score != 100 || v.ShowScore || v.Flagged || !v.RetryFutile || len(v.Findings) != 0 {
			t.Fatalf("the sharp packshot: %+v; want clean, its score not shown, a redraw futile", v)
		}
		v, _ = verdictOf(t, a, k, tiny)
		if !v.Flagged || !v.RetryFutile || !v.ShowScore || v.Score == nil || *v.Score >= 70 {
			t.Fatalf("the %s packshot of a 64 px source: %+v; want flagged, retry futile", tier, v)
		}
		codes := map[string]bool{}
		for _, f := range v.Findings {
			codes[f.Code] = f.Confidence == "sure"
		}
		if !codes["soft-focus"] || !codes["texture-artifact"] || !codes["background-bleed"] {
			t.Errorf("findings %+v; want it soft, its fabric interpolated, its outline bleeding", v.Findings)
		}

		before := houseBalance(t, a, ada.HouseID)
		res := a.Do(t, "POST", "/api/toolkit/judge/redraw", k, map[string]any{"jobId": tiny})
		if res.Status != 409 || res.Code != "REDRAW_REFUSED" || res.Map(t)["reason"] != "retryFutile" {
			t.Errorf("redraw of the tiny source's frame: %d %s", res.Status, res.Body)
		}
		if after := houseBalance(t, a, ada.HouseID); after.Balance != before.Balance || after.Held != before.Held {
			t.Errorf("the refused redraw charged: %+v -> %+v", before, after)
		}

		if res := a.Do(t, "POST", "/api/toolkit/judge/verdicts/"+tiny+"/label", k, map[string]any{"agrees": true, "note": "the source was a thumbnail"}); res.Status != 200 {
			t.Fatalf("answer: %d %s", res.Status, res.Body)
		}
		if v, _ = verdictOf(t, a, k, tiny); v.Answer == nil || !v.Answer.Agrees || v.Answer.Note == nil || *v.Answer.Note != "the source was a thumbnail" {
			t.Errorf("the answer on the verdict: %+v", v.Answer)
		}

		frames := []string{sharp, tiny, submitWith(t, a, k, "upscale", garmentPNG(t, 64))}
		developAll(t, a)
		var take wireTaken
		for i := range 2 {
			res := a.Do(t, "POST", "/api/toolkit/takes", k, map[string]any{"jobIds": frames, "direction": "Softer shadows and a tighter crop."})
			take = wireTaken{}
			res.JSON(t, &take)
			if res.Status != 202 || len(take.Jobs) != 3 || (i == 0) != (take.Offer == nil) {
				t.Fatalf("take %d: %d %s", i+1, res.Status, res.Body)
			}
			for _, tj := range take.Jobs { // not developed here: the next develop is the one to read
				a.Do(t, "POST", "/api/toolkit/jobs/"+tj.JobID+"/cancel", k, nil)
			}
		}
		ids := []string{}
		for _, ev := range take.Offer.Evidence {
			ids = append(ids, ev.JobID)
		}
		res = a.Do(t, "POST", "/api/toolkit/standing-notes", k, map[string]any{"text": take.Offer.Text, "evidenceJobIds": ids})
		var accepted struct{ Note wireStanding }
		res.JSON(t, &accepted)
		if res.Status != 201 || accepted.Note.ScopePhrase != "packshot and upscale develops" || len(accepted.Note.EvidenceJobIDs) != 6 {
			t.Fatalf("accepting the offer: %d %s", res.Status, res.Body)
		}

		next := submitWith(t, a, k, "upscale", garmentPNG(t, 64))
		developAll(t, a)
		d, ok, err := a.DB.JobDirection(context.Background(), ada.HouseID, next)
		if err != nil || !ok || !strings.Contains(d.Prompt, "Softer shadows and a tighter crop.") {
			t.Errorf("the next develop's recorded prompt: %q %v %v; want the standing note", d.Prompt, ok, err)
		}
	})
}
