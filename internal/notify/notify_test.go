package notify

import (
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
