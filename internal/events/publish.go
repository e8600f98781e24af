package events

import (
	"context"
	"log/slog"
)

// Publisher sends a message to one user's sockets of a house, on every
// instance: this instance's through the Broker, the other instances'
// through the PGRelay (nil on SQLite: one instance). A house's job and
// notification events do not pass here: the store sends them with the
// transaction that takes their eventSeq, in seq order (sqlstore.OnEvents).
type Publisher struct {
	Broker *Broker
	Relay  *PGRelay
	DB     Execer // where the relay's NOTIFY runs
	Log    *slog.Logger
}

// PublishTo sends msg to the sockets user opened in house, on every
// instance. It is not a job event (eventSeq 0), so it is never replayed.
func (p Publisher) PublishTo(ctx context.Context, house, user string, msg []byte) {
	p.Broker.PublishTo(house, user, 0, msg)
	if err := p.Relay.NotifyTo(context.WithoutCancel(ctx), p.DB, house, user, msg); err != nil {
		p.Log.Warn("relay a message to a user", "house", house, "err", err)
	}
}
