package job

import (
	"context"
	"encoding/json"
	"testing"
)

// TestMessage checks the socket message of a job change (DECISIONS §1b):
// {"type":"job","job":{...}} with the job's eventSeq and no internal field,
// and that MessageAt rebuilds the same message from the store.
func TestMessage(t *testing.T) {
	j := Job{ID: "j1", Tool: "upscale", Status: Running, HouseID: "h1", EventSeq: 7, UserID: "secret"}
	msg, err := Message(j)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Type string         `json:"type"`
		Job  map[string]any `json:"job"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "job" || m.Job["id"] != "j1" || m.Job["status"] != "running" || m.Job["eventSeq"] != 7.0 {
		t.Errorf("message %s", msg)
	}
	if _, leaked := m.Job["UserID"]; leaked {
		t.Errorf("message leaks internal fields: %s", msg)
	}
	again, err := MessageAt(bySeq{j})(t.Context(), "h1", 7)
	if err != nil || string(again) != string(msg) {
		t.Errorf("MessageAt = %s, %v; want %s", again, err, msg)
	}
}

type bySeq struct{ j Job }

func (b bySeq) JobBySeq(context.Context, string, int64) (Job, error) { return b.j, nil }
