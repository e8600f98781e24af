package events

import (
	"context"
	"log/slog"
)

// Publisher tells every listener of a house about a committed change: this
// instance's sockets through the Broker, the other instances' through the
// PGRelay (nil on SQLite: one instance). Call Publish only after the change
// committed, with the message already encoded.
type Publisher struct {
	Broker *Broker
	Relay  *PGRelay
	DB     Execer // where the relay's NOTIFY runs
	Log    *slog.Logger
}

// Publish sends msg, the house's change at seq. A failed relay is logged,
// not returned: the other instances' clients replay what they missed with
// ?since= on their next reconnect.
func (p Publisher) Publish(ctx context.Context, house string, seq int64, msg []byte) {
	p.Broker.Publish(house, seq, msg)
	if err := p.Relay.Notify(context.WithoutCancel(ctx), p.DB, house, seq, msg); err != nil {
		p.Log.Warn("relay an event", "house", house, "seq", seq, "err", err)
	}
}

// PublishTo sends msg to the sockets user opened in house, on every
// instance. It is not a job event (eventSeq 0), so it is never replayed.
func (p Publisher) PublishTo(ctx context.Context, house, user string, msg []byte) {
	p.Broker.PublishTo(house, user, 0, msg)
	if err := p.Relay.NotifyTo(context.WithoutCancel(ctx), p.DB, house, user, msg); err != nil {
		p.Log.Warn("relay a message to a user", "house", house, "err", err)
	}
}
