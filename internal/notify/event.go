package notify

import (
	"context"
	"encoding/json"
	"log/slog"
)

// message is the socket message of a new notification (DECISIONS §1b).
type message struct {
	Type         string       `json:"type"`
	Notification Notification `json:"notification"`
}

// Message encodes the socket message of a notification as it was raised:
// {"type":"notification","notification":{...}}.
func Message(n Notification) ([]byte, error) {
	n.At(n.CreatedAt.Time)
	return json.Marshal(message{Type: "notification", Notification: n})
}

// Publisher sends a committed change's encoded message to the house's
// listeners (events.Publisher).
type Publisher interface {
	Publish(ctx context.Context, house string, seq int64, msg []byte)
}

// Announcer pushes each committed notification to the house's job sockets;
// the other instances' clients that miss it find it with
// GET /api/notifications?since=.
type Announcer struct {
	Pub Publisher
	Log *slog.Logger
}

// Notify publishes n; call it only after n committed.
func (a Announcer) Notify(ctx context.Context, n Notification) {
	msg, err := Message(n)
	if err != nil {
		a.Log.Error("encode a notification event", "notification", n.ID, "err", err)
		return
	}
	a.Pub.Publish(ctx, n.HouseID, n.EventSeq, msg)
}
