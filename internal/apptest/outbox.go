package apptest

import (
	"slices"
	"sync"

	"studio/internal/mail"
)

// Outbox keeps every letter the app's mailer delivered, as its recipient
// got it: links whole. The e-mail log keeps them with their secrets masked
// (mail.Message.Secrets), so a test that follows a link reads it here.
type Outbox struct {
	mu      sync.Mutex
	letters []mail.Message
}

func (o *Outbox) add(m mail.Message) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.letters = append(o.letters, m)
}

// To lists the letters delivered to an address, newest first.
func (o *Outbox) To(addr string) []mail.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []mail.Message
	for _, m := range slices.Backward(o.letters) {
		if m.To == addr {
			out = append(out, m)
		}
	}
	return out
}
