package job

import (
	"context"
	"encoding/json"
)

// message is the socket message of a job change (DECISIONS §1b).
type message struct {
	Type string `json:"type"`
	Job  Job    `json:"job"`
}

// Message encodes the socket message of a job change:
// {"type":"job","job":{...}}. The store sends it with the transaction that
// takes the change's eventSeq (sqlstore.OnEvents).
func Message(j Job) ([]byte, error) { return json.Marshal(message{Type: "job", Job: j}) }

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
