package job

import (
	"context"
	"encoding/json"
	"log/slog"
)

// message is the socket message of a job change (DECISIONS §1b).
type message struct {
	Type string `json:"type"`
	Job  Job    `json:"job"`
}

// Message encodes the socket message of a job change:
// {"type":"job","job":{...}}.
func Message(j Job) ([]byte, error) { return json.Marshal(message{Type: "job", Job: j}) }

// Publisher sends a committed change's encoded message to the house's
// listeners (events.Publisher).
type Publisher interface {
	Publish(ctx context.Context, house string, seq int64, msg []byte)
}

// Announcer is the Notifier that publishes each job change as its socket
// message, encoded once.
type Announcer struct {
	Pub Publisher
	Log *slog.Logger
}

// JobChanged publishes j's message; call it only after the change committed.
func (a Announcer) JobChanged(ctx context.Context, j Job) {
	msg, err := Message(j)
	if err != nil {
		a.Log.Error("encode a job event", "job", j.ID, "err", err)
		return
	}
	a.Pub.Publish(ctx, j.HouseID, j.EventSeq, msg)
}

// MessageAt rebuilds the message of the house's change at seq from the
// store: the relay's fetch for a message too large for a NOTIFY payload.
func MessageAt(store interface {
	JobBySeq(ctx context.Context, house string, seq int64) (Job, error)
}) func(ctx context.Context, house string, seq int64) ([]byte, error) {
	return func(ctx context.Context, house string, seq int64) ([]byte, error) {
		j, err := store.JobBySeq(ctx, house, seq)
		if err != nil {
			return nil, err
		}
		return Message(j)
	}
}
