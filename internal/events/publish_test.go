package events

import (
	"log/slog"
	"testing"
)

// TestPublisherWithoutRelay checks that a single instance (no relay, as on
// SQLite) publishes to the local broker.
func TestPublisherWithoutRelay(t *testing.T) {
	b := NewBroker(Options{})
	defer b.Close()
	s := b.Subscribe("A")
	defer s.Close()
	p := Publisher{Broker: b, Log: slog.New(slog.DiscardHandler)}
	p.Publish(t.Context(), "A", 3, []byte(`{"type":"job"}`))
	if m := recv(t, s); m.Seq != 3 || string(m.Data) != `{"type":"job"}` {
		t.Errorf("got %d %s", m.Seq, m.Data)
	}
}
