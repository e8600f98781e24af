package events

import (
	"log/slog"
	"testing"
)

// TestPublisherWithoutRelay checks that a single instance (no relay, as on
// SQLite) publishes a user's message to that user's subscriptions only.
func TestPublisherWithoutRelay(t *testing.T) {
	b := NewBroker(Options{})
	defer b.Close()
	mine, other := b.SubscribeAs("A", "u1"), b.SubscribeAs("A", "u2")
	defer mine.Close()
	defer other.Close()
	p := Publisher{Broker: b, Log: slog.New(slog.DiscardHandler)}
	p.PublishTo(t.Context(), "A", "u1", []byte(`{"type":"chat"}`))
	if m := recv(t, mine); m.Seq != 0 || string(m.Data) != `{"type":"chat"}` {
		t.Errorf("got %d %s", m.Seq, m.Data)
	}
	select {
	case m := <-other.C():
		t.Errorf("another user's subscription got %s", m.Data)
	default:
	}
}
