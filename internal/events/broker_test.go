package events

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

func recv(t *testing.T, s *Subscription) Message {
	t.Helper()
	select {
	case m := <-s.C():
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
	}
	return Message{}
}

func TestBrokerFansOutPerHouse(t *testing.T) {
	b := NewBroker(Options{})
	a1, a2, other := b.Subscribe("A"), b.Subscribe("A"), b.Subscribe("B")
	defer a1.Close()
	defer a2.Close()
	defer other.Close()

	msg := []byte(`{"type":"job","job":{"id":"1","eventSeq":7}}`)
	b.Publish("A", 7, msg)
	for _, s := range []*Subscription{a1, a2} {
		m := recv(t, s)
		if m.Seq != 7 || string(m.Data) != string(msg) {
			t.Errorf("got %d %s", m.Seq, m.Data)
		}
		if &m.Data[0] != &msg[0] {
			t.Error("the message was copied; it should be shared")
		}
	}
	select {
	case m := <-other.C():
		t.Fatalf("house B received house A's message %s", m.Data)
	default:
	}
	b.Publish("nobody", 1, msg) // no subscriber: nothing happens
	if got := b.Subscribers(); got != 3 {
		t.Errorf("Subscribers = %d; want 3", got)
	}
}

// TestBrokerPublishTo: a message to one user reaches only the
// subscriptions that user opened in that house; house-wide messages still
// reach everyone.
func TestBrokerPublishTo(t *testing.T) {
	b := NewBroker(Options{})
	defer b.Close()
	tab1, tab2 := b.SubscribeAs("A", "u1"), b.SubscribeAs("A", "u1")
	colleague, anonymous, elsewhere := b.SubscribeAs("A", "u2"), b.Subscribe("A"), b.SubscribeAs("B", "u1")
	b.PublishTo("A", "u1", 0, []byte("mine"))
	b.PublishTo("A", "", 0, []byte("nobody's")) // no user: delivers nothing
	b.Publish("A", 1, []byte("all"))
	for _, s := range []*Subscription{tab1, tab2} {
		if m := recv(t, s); string(m.Data) != "mine" {
			t.Errorf("got %s; want mine", m.Data)
		}
		if m := recv(t, s); string(m.Data) != "all" {
			t.Errorf("got %s; want all", m.Data)
		}
		if s.User() != "u1" {
			t.Errorf("User = %q", s.User())
		}
	}
	for _, s := range []*Subscription{colleague, anonymous} {
		if m := recv(t, s); string(m.Data) != "all" {
			t.Errorf("got %s; want only the house-wide message", m.Data)
		}
	}
	select {
	case m := <-elsewhere.C():
		t.Fatalf("another house received %s", m.Data)
	default:
	}
}

func TestBrokerOrder(t *testing.T) {
	b := NewBroker(Options{Buffer: 100})
	s := b.Subscribe("A")
	defer s.Close()
	for i := range 100 {
		b.Publish("A", int64(i), []byte(fmt.Sprint(i)))
	}
	for i := range 100 {
		if m := recv(t, s); m.Seq != int64(i) {
			t.Fatalf("message %d has seq %d", i, m.Seq)
		}
	}
}

// TestBrokerLaggingDropped: a subscriber that stops reading is closed with
// ErrLagging once its buffer is full; Publish never waits for it and the
// other subscribers get every message.
func TestBrokerLaggingDropped(t *testing.T) {
	b := NewBroker(Options{Buffer: 4})
	slow, fast := b.Subscribe("A"), b.Subscribe("A")
	defer fast.Close()
	for i := range 20 {
		start := time.Now()
		b.Publish("A", int64(i), []byte("m"))
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Publish took %v", d)
		}
		if m := recv(t, fast); m.Seq != int64(i) {
			t.Fatalf("fast got seq %d; want %d", m.Seq, i)
		}
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("the slow subscriber is still open")
	}
	if !errors.Is(slow.Err(), ErrLagging) {
		t.Errorf("Err = %v; want ErrLagging", slow.Err())
	}
	if got := b.Subscribers(); got != 1 {
		t.Errorf("Subscribers = %d; want 1 (the slow one removed)", got)
	}
	if fast.Err() != nil {
		t.Errorf("fast subscriber ended: %v", fast.Err())
	}
}

func TestBrokerCloseAndResync(t *testing.T) {
	b := NewBroker(Options{})
	a, c := b.Subscribe("A"), b.Subscribe("C")
	b.Resync("A")
	<-a.Done()
	if !errors.Is(a.Err(), ErrResync) || c.Err() != nil {
		t.Fatalf("after Resync(A): A %v, C %v", a.Err(), c.Err())
	}
	b.ResyncAll()
	<-c.Done()
	if !errors.Is(c.Err(), ErrResync) {
		t.Fatalf("after ResyncAll: %v", c.Err())
	}
	open := b.Subscribe("A")
	b.Close()
	<-open.Done()
	if !errors.Is(open.Err(), ErrClosed) {
		t.Fatalf("after Close: %v", open.Err())
	}
	late := b.Subscribe("A")
	<-late.Done()
	if !errors.Is(late.Err(), ErrClosed) || b.Subscribers() != 0 {
		t.Fatalf("subscribe after Close: %v, %d subscribers", late.Err(), b.Subscribers())
	}
	b.Publish("A", 1, []byte("x")) // no panic, nothing delivered
	b.Close()
	var nilBroker *Broker
	nilBroker.Close()
}

func TestSubscriptionClose(t *testing.T) {
	b := NewBroker(Options{})
	s := b.Subscribe("A")
	if s.Err() != nil || s.House() != "A" {
		t.Fatal("fresh subscription")
	}
	s.Close()
	s.Close()
	if !errors.Is(s.Err(), ErrUnsubscribed) || b.Subscribers() != 0 {
		t.Fatalf("after Close: %v, %d subscribers", s.Err(), b.Subscribers())
	}
}

// TestBrokerConcurrent runs publishers, subscribers that come and go and
// lagging readers at once, for the race detector.
func TestBrokerConcurrent(t *testing.T) {
	b := NewBroker(Options{Buffer: 8})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for p := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				b.Publish(fmt.Sprint("h", (p+i)%3), int64(i), []byte("m"))
				if i%64 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for i := 0; i < 50; i++ {
				s := b.Subscribe(fmt.Sprint("h", i%3))
				for range i % 10 {
					select {
					case <-s.C():
					case <-s.Done():
					case <-stop:
					}
				}
				s.Close()
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	b.Close()
	if b.Subscribers() != 0 {
		t.Errorf("%d subscribers left", b.Subscribers())
	}
}

// TestPublishAllocs: delivering a message allocates nothing, however many
// subscribers the house has.
func TestPublishAllocs(t *testing.T) {
	b := NewBroker(Options{Buffer: 1})
	subs := make([]*Subscription, 1000)
	for i := range subs {
		subs[i] = b.Subscribe("A")
	}
	msg := []byte(`{"type":"job","job":{}}`)
	allocs := testing.AllocsPerRun(200, func() {
		b.Publish("A", 1, msg)
		for _, s := range subs {
			<-s.C()
		}
	})
	if allocs != 0 {
		t.Errorf("Publish to 1000 subscribers: %v allocations; want 0", allocs)
	}
	b.Close()
}

// BenchmarkPublish measures Publish to 1,000 subscribers of one house,
// their channels drained between runs.
//
//	go test -run '^$' -bench BenchmarkPublish -benchmem ./internal/events
func BenchmarkPublish(b *testing.B) {
	br := NewBroker(Options{Buffer: 1})
	subs := make([]*Subscription, 1000)
	for i := range subs {
		subs[i] = br.Subscribe("A")
	}
	msg := []byte(`{"type":"job","job":{"id":"0190c5d2-8d41-7c3e-a0a3-2f1d0e1b7a55","status":"done","eventSeq":42}}`)
	b.ReportAllocs()
	for b.Loop() {
		br.Publish("A", 1, msg)
		for _, s := range subs {
			<-s.C()
		}
	}
	br.Close()
}
