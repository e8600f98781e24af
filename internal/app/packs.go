package app

import (
	"context"
	"encoding/json"
	"log/slog"

	"studio/internal/events"
	"studio/internal/notify"
	"studio/internal/sqlstore"
)

// noteEvents pushes a committed notification to the house's job sockets:
// this instance's through the broker, the other instances' through the
// PostgreSQL relay, as {"type":"notification","notification":{...}}
// (DECISIONS §1b).
type noteEvents struct {
	broker *events.Broker
	relay  *events.PGRelay
	db     *sqlstore.DB
	log    *slog.Logger
}

type noteMessage struct {
	Type         string              `json:"type"`
	Notification notify.Notification `json:"notification"`
}

// Notify publishes n; call it only after n committed.
func (e *noteEvents) Notify(ctx context.Context, n notify.Notification) {
	n.At(n.CreatedAt.Time)
	msg, err := json.Marshal(noteMessage{Type: "notification", Notification: n})
	if err != nil {
		e.log.Error("encode notification event", "notification", n.ID, "err", err)
		return
	}
	e.broker.Publish(n.HouseID, n.EventSeq, msg)
	if err := e.relay.Notify(ctx, e.db.Pool(), n.HouseID, n.EventSeq, msg); err != nil {
		// The other instances' clients find it with GET /api/notifications?since=.
		e.log.Warn("relay notification event", "notification", n.ID, "err", err)
	}
}
