package pipeline

import (
	"slices"
	"testing"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/ts"
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

// TestAfter: what follows a settled develop, for each way it settled.
func TestAfter(t *testing.T) {
	steps := []Step{{Tool: "upscale"}, {Tool: "iron"}, {Tool: "packshot"}}
	frames := func(states ...FrameState) []Frame { // asset 0's steps in these states; asset 1 waits at every step
		var out []Frame
		for i, st := range states {
			out = append(out, Frame{AssetIndex: 0, Step: i, State: st, JobID: "a" + string(rune('0'+i))})
		}
		for i := range states {
			out = append(out, Frame{AssetIndex: 1, Step: i, State: Waiting, JobID: "b" + string(rune('0'+i))})
		}
		return out
	}
	cancelled := ts.Milli(1)
	ids := func(fs []Frame) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.JobID)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		frames    []Frame
		cancelled *ts.Time
		step      int
		status    job.Status
		start     string   // the frame started, "" for none
		drop      []string // the frames released
		err       bool
	}{
		{"the first step landed: the second starts", frames(Started, Waiting, Waiting), nil, 0, job.Done, "a1", nil, false},
		{"the middle step landed: the last starts", frames(Started, Started, Waiting), nil, 1, job.Done, "a2", nil, false},
		{"the last step landed: nothing follows", frames(Started, Started, Started), nil, 2, job.Done, "", nil, false},
		{"a step failed: the asset's later steps are released", frames(Started, Waiting, Waiting), nil, 0, job.Failed, "", []string{"a1", "a2"}, false},
		{"a step was cancelled: the same", frames(Started, Started, Waiting), nil, 1, job.Cancelled, "", []string{"a2"}, false},
		{"a landed step of a cancelled run: released", frames(Started, Waiting, Waiting), &cancelled, 0, job.Done, "", []string{"a1", "a2"}, false},
		{"later steps already dropped: nothing", frames(Started, Dropped, Dropped), nil, 0, job.Failed, "", nil, false},
		{"the step after is not the one waiting: an error", frames(Started, Started, Waiting), nil, 0, job.Done, "", nil, true},
	} {
		rec := Record{ID: "r", Steps: steps, AssetIDs: []string{"x", "y"}, Frames: tc.frames, CancelledAt: tc.cancelled}
		adv, err := After(rec, 0, tc.step, tc.status)
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v; want one: %v", tc.name, err, tc.err)
			continue
		}
		start := ""
		if adv.Start != nil {
			start = adv.Start.JobID
		}
		if start != tc.start || !slices.Equal(ids(adv.Drop), tc.drop) {
			t.Errorf("%s: start %q, drop %v; want %q, %v", tc.name, start, ids(adv.Drop), tc.start, tc.drop)
		}
	}
}
