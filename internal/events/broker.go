// Package events carries committed state changes to the sockets that watch
// them: an in-process Broker fans each message out to the subscribers of a
// house, a PGRelay copies messages between instances that share one
// PostgreSQL database (LISTEN/NOTIFY), and Stream writes a subscription to
// a WebSocket.
//
// A message is published only after the transaction that made it has
// committed, already encoded as the complete JSON text the socket sends
// (for a job: {"type":"job","job":{...}}), so it is encoded once however
// many sockets receive it, and framed once for all the sockets a small
// pool of writers serves (see Socket).
//
// Delivery is at most once and live only. A subscriber that falls behind,
// or that may have missed messages for any other reason, is closed with a
// reason (ErrLagging, ErrResync) instead of being waited for; its client
// reconnects and replays what it missed with GET /api/toolkit/jobs?since=N,
// N being the highest eventSeq it holds. A client subscribes first and then
// replays, so the replay and the live stream overlap rather than leave a
// gap; it keeps, for each job, the state with the highest eventSeq.
package events

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// Reasons a subscription ends, as returned by Subscription.Err.
var (
	// ErrLagging: the subscriber's buffer was full when a message came.
	ErrLagging = errors.New("events: subscriber fell behind")
	// ErrResync: messages may have been lost upstream (the relay's
	// connection dropped, or a message could not be fetched).
	ErrResync = errors.New("events: messages may have been missed")
	// ErrClosed: the broker was closed because the server is shutting down.
	ErrClosed = errors.New("events: broker closed")
	// ErrUnsubscribed: the subscriber closed the subscription itself.
	ErrUnsubscribed = errors.New("events: unsubscribed")
)

// DefaultBuffer is how many messages a subscriber may fall behind before it
// is dropped, when Options.Buffer is zero.
const DefaultBuffer = 64

// Options configure a Broker.
type Options struct {
	// Buffer is each subscriber's queue length; DefaultBuffer when zero.
	Buffer int
}

// Message is one published message as a subscriber receives it. Data is
// shared by every subscriber and must not be modified.
type Message struct {
	Seq  int64  // the house's eventSeq of the change
	Data []byte // the complete encoded message

	frame []byte // Data as a text frame, shared by the pool's sockets (nil: build it)
}

// Broker fans messages out to the subscribers of each house, in process.
// Publish never blocks: a subscriber whose buffer is full is closed with
// ErrLagging. The zero value is not usable; call NewBroker.
type Broker struct {
	buffer int

	mu     sync.RWMutex
	houses map[string][]*Subscription // copy on write: a slice is never changed once stored
	count  int
	closed bool
}

// NewBroker returns an empty broker.
func NewBroker(opts Options) *Broker {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	return &Broker{buffer: opts.Buffer, houses: map[string][]*Subscription{}}
}

// Subscription is one subscriber's view of a house's messages. Receive
// from C until Done is closed; then Err tells why. Close it when done.
type Subscription struct {
	b     *Broker
	house string
	user  string // the user who opened it; "" hears only house-wide messages
	c     chan Message
	done  chan struct{}
	once  sync.Once
	err   error // written once, before done is closed

	sink atomic.Pointer[sink] // set when the pool writes this subscription to a socket
}

// Subscribe returns a subscription to the messages later published for
// house. After Close it returns a subscription that has already ended
// with ErrClosed.
func (b *Broker) Subscribe(house string) *Subscription {
	return b.SubscribeAs(house, "")
}

// SubscribeAs subscribes user to house: the subscription receives the
// house's messages and the messages published to that user in the house
// (PublishTo).
func (b *Broker) SubscribeAs(house, user string) *Subscription {
	s := &Subscription{b: b, house: house, user: user, c: make(chan Message, b.buffer), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		s.end(ErrClosed, false)
		return s
	}
	subs := b.houses[house]
	next := make([]*Subscription, len(subs), len(subs)+1)
	copy(next, subs)
	b.houses[house] = append(next, s)
	b.count++
	b.mu.Unlock()
	return s
}

// Publish hands msg to every current subscriber of house without waiting
// for any of them. Call it only after the change it reports has
// committed. msg is shared, not copied: do not modify it afterwards.
// Publish allocates nothing while no subscriber lags.
func (b *Broker) Publish(house string, seq int64, msg []byte) {
	b.publish(house, "", seq, msg)
}

// PublishTo hands msg to the subscriptions user opened in house only (a
// conversation's push: a colleague's sockets never receive it). user must
// not be empty.
func (b *Broker) PublishTo(house, user string, seq int64, msg []byte) {
	if user == "" {
		return
	}
	b.publish(house, user, seq, msg)
}

func (b *Broker) publish(house, user string, seq int64, msg []byte) {
	b.mu.RLock()
	subs := b.houses[house]
	b.mu.RUnlock()
	m := Message{Seq: seq, Data: msg}
	var lagging []*Subscription
	// Sockets written by the pool: framed once for all of them, handed
	// to the pool a batch at a time so that its writers start at once.
	var kick [64]*sink
	n := 0
	for _, s := range subs {
		if user != "" && s.user != user {
			continue
		}
		if m.frame == nil && s.sink.Load() != nil {
			m.frame = textFrame(msg)
		}
		select {
		case s.c <- m:
			// The sink is read after the send: a socket that joins the
			// pool meanwhile either is seen here or sees the message.
			if k := s.sink.Load(); k != nil && k.scheduled.CompareAndSwap(false, true) {
				kick[n] = k
				if n++; n == len(kick) {
					writers.push(kick[:n])
					n = 0
				}
			}
		default:
			lagging = append(lagging, s)
		}
	}
	if n > 0 {
		writers.push(kick[:n])
	}
	for _, s := range lagging {
		s.end(ErrLagging, true)
	}
}

// Resync ends every subscription of house with ErrResync, so that its
// clients reconnect and replay.
func (b *Broker) Resync(house string) {
	b.resync(house, "")
}

// resync ends the subscriptions of house (only user's, when user is set)
// with ErrResync.
func (b *Broker) resync(house, user string) {
	b.mu.RLock()
	subs := b.houses[house]
	b.mu.RUnlock()
	for _, s := range subs {
		if user == "" || s.user == user {
			s.end(ErrResync, true)
		}
	}
}

// ResyncAll ends every subscription with ErrResync.
func (b *Broker) ResyncAll() {
	for _, s := range b.detach(false) {
		s.end(ErrResync, false)
	}
}

// Close ends every subscription with ErrClosed; later subscriptions end
// at once. Publish after Close delivers nothing. Close is idempotent,
// and does nothing on a nil broker.
func (b *Broker) Close() {
	if b == nil {
		return
	}
	for _, s := range b.detach(true) {
		s.end(ErrClosed, false)
	}
}

// detach removes and returns every subscription, marking the broker
// closed when close is set.
func (b *Broker) detach(close bool) []*Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	var all []*Subscription
	for _, subs := range b.houses {
		all = append(all, subs...)
	}
	clear(b.houses)
	b.count = 0
	if close {
		b.closed = true
	}
	return all
}

// Subscribers reports how many subscriptions are open, for all houses.
func (b *Broker) Subscribers() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.count
}

func (b *Broker) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	subs := b.houses[s.house]
	i := slices.Index(subs, s)
	if i < 0 {
		return
	}
	if len(subs) == 1 {
		delete(b.houses, s.house)
	} else {
		next := make([]*Subscription, 0, len(subs)-1)
		next = append(next, subs[:i]...)
		b.houses[s.house] = append(next, subs[i+1:]...)
	}
	b.count--
}

// C delivers the house's messages in the order they were published.
func (s *Subscription) C() <-chan Message { return s.c }

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns nil while the subscription is open, then the reason it
// ended: ErrLagging, ErrResync, ErrClosed or ErrUnsubscribed.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// House is the house the subscription watches.
func (s *Subscription) House() string { return s.house }

// User is the user who opened the subscription ("" for none).
func (s *Subscription) User() string { return s.user }

// Close ends the subscription (ErrUnsubscribed, unless it had already
// ended for another reason). It is idempotent.
func (s *Subscription) Close() { s.end(ErrUnsubscribed, true) }

// end records the reason, closes Done and, when detach is set, takes the
// subscription off its house's list. Only the first call counts.
func (s *Subscription) end(err error, detach bool) {
	s.once.Do(func() {
		s.err = err
		close(s.done)
		if detach {
			s.b.remove(s)
		}
	})
}

// watched reports whether house has a subscriber.
func (b *Broker) watched(house string) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.houses[house]) > 0
}

// houseList returns the houses that have a subscriber.
func (b *Broker) houseList() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]string, 0, len(b.houses))
	for house := range b.houses {
		out = append(out, house)
	}
	return out
}
