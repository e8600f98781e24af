package job

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

type pubRecord struct {
	house string
	seq   int64
	msg   []byte
}

type recordPub struct{ got []pubRecord }

func (r *recordPub) Publish(_ context.Context, house string, seq int64, msg []byte) {
	r.got = append(r.got, pubRecord{house, seq, msg})
}

// TestAnnouncer checks the socket message of a job change (DECISIONS §1b):
// published once, for the job's house and eventSeq, as {"type":"job","job":{...}}.
func TestAnnouncer(t *testing.T) {
	pub := &recordPub{}
	a := Announcer{Pub: pub, Log: slog.New(slog.DiscardHandler)}
	j := Job{ID: "j1", Tool: "upscale", Status: Running, HouseID: "h1", EventSeq: 7, UserID: "secret"}
	a.JobChanged(t.Context(), j)
	if len(pub.got) != 1 || pub.got[0].house != "h1" || pub.got[0].seq != 7 {
		t.Fatalf("published %+v; want one message for h1 at 7", pub.got)
	}
	var m struct {
		Type string         `json:"type"`
		Job  map[string]any `json:"job"`
	}
	if err := json.Unmarshal(pub.got[0].msg, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "job" || m.Job["id"] != "j1" || m.Job["status"] != "running" || m.Job["eventSeq"] != 7.0 {
		t.Errorf("message %s", pub.got[0].msg)
	}
	if _, leaked := m.Job["UserID"]; leaked {
		t.Errorf("message leaks internal fields: %s", pub.got[0].msg)
	}
	again, err := MessageAt(bySeq{j})(t.Context(), "h1", 7)
	if err != nil || string(again) != string(pub.got[0].msg) {
		t.Errorf("MessageAt = %s, %v; want the published message", again, err)
	}
}

type bySeq struct{ j Job }

func (b bySeq) JobBySeq(context.Context, string, int64) (Job, error) { return b.j, nil }
