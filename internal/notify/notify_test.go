package notify

import (
	"encoding/json"
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, seq := range []int64{1, 42, 1 << 40} {
		got, err := ParseCursor(Cursor(seq))
		if err != nil || got != seq {
			t.Errorf("cursor of %d: %d %v", seq, got, err)
		}
	}
	for _, bad := range []string{"", "nope", Cursor(0), "bjE6LTE"} {
		if _, err := ParseCursor(bad); err != ErrBadCursor {
			t.Errorf("ParseCursor(%q) = %v; want BAD_CURSOR", bad, err)
		}
	}
}

func TestMatures(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	n := New("id", "house", "", KindPackReady, "pack", "p", nil, now)
	n.At(now.Add(4 * time.Second))
	if n.MaturesInMs != 6000 || n.Payload == nil {
		t.Errorf("at 4 s: %+v", n)
	}
	n.At(now.Add(time.Minute))
	if n.MaturesInMs != 0 {
		t.Errorf("after a minute: %d", n.MaturesInMs)
	}
}

// TestMessage checks the socket message of a new notification (DECISIONS
// §1b): as it was raised, so maturing in the full grace period.
func TestMessage(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	msg, err := Message(New("id", "house", "", KindPackReady, "pack", "p", nil, now))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Type         string         `json:"type"`
		Notification map[string]any `json:"notification"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "notification" || m.Notification["id"] != "id" || m.Notification["maturesInMs"] != float64(Grace.Milliseconds()) {
		t.Errorf("message %s", msg)
	}
}
