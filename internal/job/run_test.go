package job

import (
	"testing"
	"time"

	"studio/internal/ledger"
	"studio/internal/ts"
)

func TestGroup(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	at := func(min int) ts.Time { return ts.Of(t0.Add(time.Duration(min) * time.Minute)) }
	done := func(min int) *ts.Time { v := at(min); return &v }
	prices := ledger.Prices{Default: 2} // every tool at the default
	jobs := []Job{
		{ID: "a", Tool: "upscale", Status: Done, CreatedAt: at(0), ResultAssetID: "ra", FinishedAt: done(1)},
		{ID: "b", Tool: "upscale", Status: Failed, CreatedAt: at(9), FinishedAt: done(10)},
		{ID: "c", Tool: "upscale", Status: Queued, CreatedAt: at(25)}, // more than 10 minutes after b: a new run
		{ID: "d", Tool: "packshot", Status: Running, CreatedAt: at(1), Params: map[string]string{"runId": "r1"}},
		{ID: "e", Tool: "packshot", Status: Queued, CreatedAt: at(50), Params: map[string]string{"runId": "r1"}},
		{ID: "f", Tool: "lookbook", Status: Cancelled, CreatedAt: at(2), FinishedAt: done(3), Params: map[string]string{"lookId": "L", "stage": "lock"}},
		{ID: "g", Tool: "mystery", Status: Done, CreatedAt: at(3), FinishedAt: done(4)},
	}
	runs := Group(jobs, prices)
	got := map[string]*Run{}
	for _, r := range runs {
		got[r.ID] = r
	}
	tests := []struct {
		id, kind, state string
		counts          Counts
		again           *int64
		finished        bool
	}{
		{"run.a", "batch", "done", // a frame landed, so the run is done even though another failed
			Counts{Total: 2, Done: 1, Failed: 1}, ptr(4), true},
		{"run.c", "single", "queued", Counts{Total: 1, Active: 1}, ptr(2), false},
		{"run.r1", "batch", "developing", Counts{Total: 2, Active: 2}, ptr(4), false},
		{"look.L.lock", "lookbook", "cancelled", Counts{Total: 1, Cancelled: 1}, ptr(2), true},
		{"run.g", "single", "done", Counts{Total: 1, Done: 1}, ptr(2), true}, // no price row: the default
	}
	if len(runs) != len(tests) {
		t.Fatalf("got %d runs; want %d", len(runs), len(tests))
	}
	for _, tt := range tests {
		r := got[tt.id]
		if r == nil {
			t.Errorf("no run %s", tt.id)
			continue
		}
		if r.Kind != tt.kind || r.State != tt.state || r.Counts != tt.counts || (r.FinishedAt != nil) != tt.finished {
			t.Errorf("%s: kind %s state %s counts %+v finished %v", tt.id, r.Kind, r.State, r.Counts, r.FinishedAt)
		}
		if (r.AgainCost == nil) != (tt.again == nil) || (r.AgainCost != nil && *r.AgainCost != *tt.again) {
			t.Errorf("%s: againCost %v; want %v", tt.id, r.AgainCost, tt.again)
		}
	}
	if runs[0].ID != "run.c" {
		t.Errorf("newest run first: got %s", runs[0].ID)
	}
	if th := got["run.a"].ThumbAssetID; th == nil || *th != "ra" {
		t.Errorf("thumb = %v; want ra", th)
	}
}

func ptr(v int64) *int64 { return &v }
