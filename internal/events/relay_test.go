package events

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func TestPayloadRoundTrip(t *testing.T) {
	msg := []byte(`{"type":"job","job":{"id":"x","error":"tab\tand\nnewline"}}`)
	p, err := decodePayload(encodePayload("inst", "house-1", "", 42, msg))
	if err != nil || p.instance != "inst" || p.house != "house-1" || p.seq != 42 || p.ref || p.msg != string(msg) {
		t.Fatalf("got %+v, %v", p, err)
	}
	big := []byte(strings.Repeat("x", MaxPayload))
	raw := encodePayload("inst", "house-1", "", 43, big)
	if len(raw) > MaxPayload {
		t.Fatalf("payload of %d bytes", len(raw))
	}
	if p, err := decodePayload(raw); err != nil || !p.ref || p.seq != 43 || p.msg != "" {
		t.Fatalf("large message: got %+v, %v; want a reference", p, err)
	}
	// A message to one user's sockets: v2, the user after the kind.
	if p, err := decodePayload(encodePayload("inst", "house-1", "user-7", 0, msg)); err != nil || p.user != "user-7" || p.house != "house-1" ||
		p.ref || p.msg != string(msg) {
		t.Fatalf("user message: got %+v, %v", p, err)
	}
	if p, err := decodePayload(encodePayload("inst", "house-1", "user-7", 0, big)); err != nil || !p.ref || p.user != "user-7" {
		t.Fatalf("large user message: got %+v, %v", p, err)
	}
	for _, bad := range []string{"", "v1\tinst\thouse\t1\tm", "v1\ti\th\t1\tm\tu\n{}", "v2\ti\th\t0\tm\t\n{}", "v2\ti\th\t1\tm\n{}", "v1\ti\th\tx\tm\n{}", "v1\ti\t\t1\tm\n{}", "v1\ti\th\t1\tq\n{}"} {
		if _, err := decodePayload(bad); err == nil {
			t.Errorf("decodePayload(%q) accepted", bad)
		}
	}
}

func TestNilRelay(t *testing.T) {
	var r *PGRelay
	if err := r.Notify(context.Background(), nil, "h", 1, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// instance is one "server": a broker and its relay.
type instance struct {
	b *Broker
	r *PGRelay
}

func pgURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" {
		t.Skip("TEST_DATABASE_URL is not set")
	}
	return u
}

// channel returns a channel name of the test's own, so that parallel runs
// on one database do not hear each other.
func channel() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "studio_events_test_" + hex.EncodeToString(b[:])
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newInstance(t *testing.T, url string, opts RelayOptions) instance {
	t.Helper()
	b := NewBroker(Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := NewPGRelay(ctx, url, b, quietLog(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		r.Close()
	})
	return instance{b: b, r: r}
}

func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// publish does what the store does: notify inside the committing
// transaction; every instance's relay, this one's too, delivers it.
func (in instance) publish(t *testing.T, db *sql.DB, house string, seq int64, msg []byte) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.r.Notify(ctx, tx, house, seq, msg); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// expectOnly fails unless s receives each of the seqs given exactly once,
// and then nothing more for a moment. Messages from different instances
// may interleave (each carries its eventSeq), so the order is not checked.
func expectOnly(t *testing.T, s *Subscription, seqs ...int64) {
	t.Helper()
	want := map[int64]bool{}
	for _, seq := range seqs {
		want[seq] = true
	}
	for len(want) > 0 {
		select {
		case m := <-s.C():
			if !want[m.Seq] {
				t.Fatalf("got seq %d (%s) unexpected or twice", m.Seq, m.Data)
			}
			delete(want, m.Seq)
		case <-s.Done():
			t.Fatalf("subscription ended: %v", s.Err())
		case <-time.After(5 * time.Second):
			t.Fatalf("seqs %v did not arrive", want)
		}
	}
	select {
	case m := <-s.C():
		t.Fatalf("unexpected seq %d (%s)", m.Seq, m.Data)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestRelayTwoInstances: a message notified on one instance reaches the
// subscribers of both exactly once, its own through its own LISTEN (so that
// every instance delivers a house's events in one order); other houses get
// nothing.
func TestRelayTwoInstances(t *testing.T) {
	url := pgURL(t)
	ch := channel()
	one, two := newInstance(t, url, RelayOptions{Channel: ch}), newInstance(t, url, RelayOptions{Channel: ch})
	db := openDB(t, url)
	onOne, onTwo, otherHouse := one.b.Subscribe("A"), two.b.Subscribe("A"), two.b.Subscribe("B")

	one.publish(t, db, "A", 1, []byte(`{"type":"job","job":{"eventSeq":1}}`))
	two.publish(t, db, "A", 2, []byte(`{"type":"job","job":{"eventSeq":2}}`))
	expectOnly(t, onOne, 1, 2)
	expectOnly(t, onTwo, 1, 2)
	expectOnly(t, otherHouse)

	// A rolled-back transaction notifies nobody.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := one.r.Notify(context.Background(), tx, "A", 3, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	expectOnly(t, onTwo)

	if err := one.r.Notify(context.Background(), db, "bad\thouse", 4, []byte(`{}`)); err == nil {
		t.Error("a house id with a tab was accepted")
	}
}

// TestRelayToOneUser: a message published to one user reaches that user's
// subscribers on both instances once, and no colleague's in the house; a
// message too large for a payload asks only that user's sockets to resync.
func TestRelayToOneUser(t *testing.T) {
	url := pgURL(t)
	ch := channel()
	one, two := newInstance(t, url, RelayOptions{Channel: ch}), newInstance(t, url, RelayOptions{Channel: ch})
	db := openDB(t, url)
	mineOne, mineTwo, colleague, anonymous := one.b.SubscribeAs("A", "u1"), two.b.SubscribeAs("A", "u1"), two.b.SubscribeAs("A", "u2"), two.b.Subscribe("A")
	pub := Publisher{Broker: one.b, Relay: one.r, DB: db, Log: quietLog()}
	pub.PublishTo(t.Context(), "A", "u1", []byte(`{"type":"chat.applied"}`))
	for _, s := range []*Subscription{mineOne, mineTwo} {
		if m := recv(t, s); string(m.Data) != `{"type":"chat.applied"}` {
			t.Errorf("got %s", m.Data)
		}
	}
	// A house-wide message after it: whoever did not get the user's
	// message sees this one first.
	one.publish(t, db, "A", 9, []byte(`{"type":"job"}`))
	expectOnly(t, colleague, 9)
	expectOnly(t, anonymous, 9)
	expectOnly(t, mineTwo, 9)

	if err := pub.Relay.NotifyTo(t.Context(), db, "A", "u2", []byte(strings.Repeat("x", MaxPayload))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-colleague.Done():
		if !errors.Is(colleague.Err(), ErrResync) {
			t.Errorf("colleague ended with %v; want ErrResync", colleague.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the large message's user was not asked to resync")
	}
	expectOnly(t, mineTwo)
	if mineTwo.Err() != nil || anonymous.Err() != nil {
		t.Errorf("others ended: %v, %v", mineTwo.Err(), anonymous.Err())
	}
	if err := one.r.NotifyTo(t.Context(), db, "A", "", []byte(`{}`)); err == nil {
		t.Error("an empty user was accepted")
	}
}

// TestRelayLargeMessage: a message too large for NOTIFY travels as a
// reference; a receiver with Fetch publishes what it fetches, one without
// asks the house's subscribers to resync.
func TestRelayLargeMessage(t *testing.T) {
	url := pgURL(t)
	ch := channel()
	big := []byte(`{"type":"job","job":{"error":"` + strings.Repeat("x", 9000) + `"}}`)
	var fetched atomic.Int32
	fetch := func(ctx context.Context, house string, seq int64) ([]byte, error) {
		fetched.Add(1)
		if house != "A" || seq != 5 {
			return nil, errors.New("unknown event")
		}
		return big, nil
	}
	sender := newInstance(t, url, RelayOptions{Channel: ch})
	withFetch := newInstance(t, url, RelayOptions{Channel: ch, Fetch: fetch})
	without := newInstance(t, url, RelayOptions{Channel: ch})
	db := openDB(t, url)
	got, resynced := withFetch.b.Subscribe("A"), without.b.Subscribe("A")

	sender.publish(t, db, "A", 5, big)
	select {
	case m := <-got.C():
		if m.Seq != 5 || string(m.Data) != string(big) {
			t.Fatalf("got seq %d, %d bytes", m.Seq, len(m.Data))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the large message did not arrive")
	}
	select {
	case <-resynced.Done():
		if !errors.Is(resynced.Err(), ErrResync) {
			t.Fatalf("ended with %v; want ErrResync", resynced.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the subscriber without a fetch was not asked to resync")
	}
	if n := fetched.Load(); n != 1 {
		t.Errorf("fetched %d times; want 1", n)
	}
}

// TestRelayReconnects: when the listening connection drops, the relay
// reconnects, asks its subscribers to resync (they may have missed
// messages) and relays again.
func TestRelayReconnects(t *testing.T) {
	url := pgURL(t)
	ch := channel()
	one, two := newInstance(t, url, RelayOptions{Channel: ch}), newInstance(t, url, RelayOptions{Channel: ch, MaxBackoff: 200 * time.Millisecond})
	db := openDB(t, url)
	before := two.b.Subscribe("A")

	two.r.mu.Lock()
	_ = two.r.conn.PgConn().Conn().Close() // as if the network failed
	two.r.mu.Unlock()

	select {
	case <-before.Done():
		if !errors.Is(before.Err(), ErrResync) {
			t.Fatalf("ended with %v; want ErrResync", before.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no resync after the connection dropped")
	}
	after := two.b.Subscribe("A")
	one.publish(t, db, "A", 9, []byte(`{}`))
	expectOnly(t, after, 9)
}

// TestRelayReplaysAfterReconnect: when the listening connection drops, the
// relay replays to a watched house the events after the last it delivered
// there, so its subscribers stay open and miss nothing; an event the
// replay delivered is not delivered again when its notification comes.
func TestRelayReplaysAfterReconnect(t *testing.T) {
	url := pgURL(t)
	ch := channel()
	replayed := make(chan int64, 1)
	replay := func(_ context.Context, house string, seq int64, limit int) ([]Message, error) {
		replayed <- seq
		if house != "A" || limit < 2 {
			return nil, errors.New("unexpected replay")
		}
		// Committed while the connection was down.
		return []Message{{Seq: 2, Data: []byte(`{"seq":2}`)}, {Seq: 3, Data: []byte(`{"seq":3}`)}}, nil
	}
	one := newInstance(t, url, RelayOptions{Channel: ch})
	two := newInstance(t, url, RelayOptions{Channel: ch, MaxBackoff: 200 * time.Millisecond, Replay: replay})
	db := openDB(t, url)
	sub, fresh := two.b.Subscribe("A"), two.b.Subscribe("B") // B has had no event: it can only resync
	one.publish(t, db, "A", 1, []byte(`{"seq":1}`))
	expectOnly(t, sub, 1)

	two.r.mu.Lock()
	_ = two.r.conn.PgConn().Conn().Close() // as if the network failed
	two.r.mu.Unlock()
	select {
	case seq := <-replayed:
		if seq != 1 {
			t.Errorf("replayed after %d; want after 1, the last event delivered", seq)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no replay after the connection dropped")
	}
	one.publish(t, db, "A", 3, []byte(`{"seq":3}`)) // notified as the replay ran: delivered once
	one.publish(t, db, "A", 4, []byte(`{"seq":4}`))
	for _, want := range []int64{2, 3, 4} {
		if m := recv(t, sub); m.Seq != want {
			t.Fatalf("got seq %d; want %d: in order, each once", m.Seq, want)
		}
	}
	expectOnly(t, sub)
	if sub.Err() != nil {
		t.Errorf("the replayed subscription ended: %v", sub.Err())
	}
	select {
	case <-fresh.Done():
		if !errors.Is(fresh.Err(), ErrResync) {
			t.Errorf("B's subscription ended with %v; want ErrResync", fresh.Err())
		}
	case <-time.After(5 * time.Second):
		t.Error("B's subscription, with nothing to replay from, was not asked to resync")
	}
}

func TestRelayBadURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := NewPGRelay(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", NewBroker(Options{}), quietLog(), RelayOptions{}); err == nil {
		t.Fatal("connected to nothing")
	}
	if _, err := NewPGRelay(ctx, "::not a url", NewBroker(Options{}), quietLog(), RelayOptions{}); err == nil {
		t.Fatal("parsed a bad URL")
	}
}
