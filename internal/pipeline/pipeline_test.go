package pipeline

import (
	"testing"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
)

func TestCheck(t *testing.T) {
	steps, err := Check([]Step{
		{Tool: "remove-background"},
		{Tool: "packshot", Options: map[string]string{"bg": " white ", "runId": "mine", "quality": "4k"}},
		{Tool: "upscale", Quality: ledger.Tier4K},
	})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Quality != ledger.Tier1K || steps[1].Options["bg"] != "white" || len(steps[1].Options) != 1 || steps[2].Quality != ledger.Tier4K {
		t.Errorf("normalised plan %+v", steps)
	}
	for _, tc := range []struct {
		name  string
		steps []Step
		code  string
		step  any
	}{
		{"none", nil, "STEPS_REQUIRED", nil},
		{"seven", make([]Step, 7), "TOO_MANY_STEPS", nil},
		{"unknown", []Step{{Tool: "upscale"}, {Tool: "fly"}}, "UNKNOWN_TOOL", 1},
		{"tier", []Step{{Tool: "upscale", Quality: "5k"}}, "BAD_QUALITY", 0},
		{"two inputs", []Step{{Tool: "cleanup"}}, "BAD_STEP", 0},
		{"after video", []Step{{Tool: "lookbook-video"}, {Tool: "iron"}}, "BAD_STEP", 1},
		{"option", []Step{{Tool: "fit-adjust", Options: map[string]string{"fit": "baggy"}}}, "BAD_OPTION", 0},
		{"option needs an input", []Step{{Tool: "packshot", Options: map[string]string{"bg": "image"}}}, "BAD_STEP", 0},
	} {
		_, err := Check(tc.steps)
		e, ok := errs.As(err)
		if !ok || e.Code != tc.code || (tc.step != nil && e.Fields["step"] != tc.step) {
			t.Errorf("%s: %v %+v; want %s at step %v", tc.name, err, e, tc.code, tc.step)
		}
	}
	if _, err := Check([]Step{{Tool: "upscale"}, {Tool: "lookbook-video"}}); err != nil {
		t.Errorf("a video as the last step: %v", err)
	}
}

func TestView(t *testing.T) {
	steps := []Step{{Tool: "upscale", Quality: "1k"}, {Tool: "iron", Quality: "1k"}}
	rec := Record{ID: "r", Steps: steps, AssetIDs: []string{"a", "b", "c"}, Frames: []Frame{
		{AssetIndex: 0, Step: 0, State: Started, JobStatus: job.Done, HoldState: ledger.Posted, Tokens: 2, ResultAssetID: "x", ResultURL: "u/x"},
		{AssetIndex: 0, Step: 1, State: Started, JobStatus: job.Running, HoldState: ledger.Pending, Tokens: 3},
		{AssetIndex: 1, Step: 0, State: Started, JobStatus: job.Failed, HoldState: ledger.Voided, Tokens: 2},
		{AssetIndex: 1, Step: 1, State: Dropped, HoldState: ledger.Voided, Tokens: 3},
		{AssetIndex: 2, Step: 0, State: Started, JobStatus: job.Done, HoldState: ledger.Posted, Tokens: 2, ResultAssetID: "y", ResultURL: "u/y"},
		{AssetIndex: 2, Step: 1, State: Started, JobStatus: job.Done, HoldState: ledger.Posted, Tokens: 3, ResultAssetID: "z", ResultURL: "u/z"},
	}}
	r := View(rec)
	if r.State != "developing" || r.Counts != (Counts{Assets: 3, Done: 1, Failed: 1, Active: 1}) ||
		r.Tokens != (Tokens{Held: 15, Spent: 7, Released: 5, Pending: 3}) {
		t.Errorf("run %+v", r)
	}
	if a := r.Assets[0]; a.State != "developing" || a.Step != 1 || a.ResultAssetID != nil {
		t.Errorf("asset a %+v", a)
	}
	if a := r.Assets[1]; a.State != "failed" || a.Steps[1].Status != "dropped" || a.Steps[1].JobID != nil {
		t.Errorf("asset b %+v", a)
	}
	if a := r.Assets[2]; a.State != "done" || *a.ResultAssetID != "z" || *a.ResultURL != "u/z" {
		t.Errorf("asset c %+v", a)
	}
}
