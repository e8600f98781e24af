package notify

import "encoding/json"

// message is the socket message of a new notification (DECISIONS §1b).
type message struct {
	Type         string       `json:"type"`
	Notification Notification `json:"notification"`
}

// Message encodes the socket message of a notification as it was raised:
// {"type":"notification","notification":{...}}. The store sends it with the
// transaction that raises the notification (sqlstore.OnEvents).
func Message(n Notification) ([]byte, error) {
	n.At(n.CreatedAt.Time)
	return json.Marshal(message{Type: "notification", Notification: n})
}
