package events

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultChannel is the PostgreSQL channel the relays LISTEN on.
const DefaultChannel = "studio_events"

// MaxPayload is the largest NOTIFY payload PostgreSQL accepts (it must be
// shorter than 8000 bytes). A message whose payload would be larger is
// sent as a reference, which receivers resolve with RelayOptions.Fetch.
const MaxPayload = 7999

// Execer runs one statement: *sql.DB, *sql.Conn and *sql.Tx satisfy it.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// FetchFunc returns the encoded message of a house's event, for a message
// too large to travel in a NOTIFY payload.
type FetchFunc func(ctx context.Context, house string, seq int64) ([]byte, error)

// RelayOptions configure a PGRelay. The zero value is the production
// setting.
type RelayOptions struct {
	// Channel is the LISTEN/NOTIFY channel; DefaultChannel when empty.
	// Every instance of one deployment must use the same channel.
	Channel string
	// Fetch resolves a message that was too large for its payload. When
	// nil, receivers end the house's subscriptions with ErrResync instead,
	// and their clients replay the event with GET /api/toolkit/jobs?since=N.
	Fetch FetchFunc
	// MaxBackoff caps the wait between reconnection attempts; 10 s when zero.
	MaxBackoff time.Duration
	// OnNotify, when set, hears of every other instance's notification
	// (its house), watched or not: a worker process wakes on it to claim
	// a job queued elsewhere. It must not block.
	OnNotify func(house string)
	// Replay, when set, returns the messages of a house's events after
	// seq, in seq order, at most limit: after the listening connection
	// dropped, the relay replays to each watched house what it missed
	// since the last event it delivered there, so its sockets stay open.
	// Without it, or when it fails, the house's subscribers are asked to
	// resync (their clients replay with GET /api/toolkit/jobs?since=N).
	Replay func(ctx context.Context, house string, seq int64, limit int) ([]Message, error)
}

// replayLimit is the most events the relay replays to a house after a
// dropped connection; a house that missed more is asked to resync.
const replayLimit = 256

// PGRelay carries committed messages to the sockets of every instance that
// shares one PostgreSQL database. It holds a dedicated connection that
// LISTENs on the channel and publishes the messages to its local Broker. A
// house's events (Notify, seq > 0) are delivered from the LISTEN on every
// instance, this one included, so that every socket receives them in the
// order PostgreSQL delivers notifications: the order their transactions
// committed, which for one house is eventSeq order (the store notifies
// inside the transaction that takes the seq). A message to one user
// (NotifyTo) is skipped by its own instance, which published it locally.
//
// A nil *PGRelay is valid (a single instance, SQLite): Notify does nothing.
//
// When the connection drops, the relay reconnects with backoff; once it
// listens again it replays to each watched house the events after the last
// one it delivered there (RelayOptions.Replay), and ends the subscriptions
// it cannot replay to with ErrResync: their clients replay themselves.
type PGRelay struct {
	id      string
	channel string
	broker  *Broker
	log     *slog.Logger
	opts    RelayOptions
	cfg     *pgx.ConnConfig

	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	conn *pgx.Conn // the listening connection; nil while reconnecting

	// last is, per watched house, the seq of the last event delivered
	// there; only the relay's goroutine uses it. An event at or below it
	// (one a replay delivered already) is skipped.
	last map[string]int64
}

// NewPGRelay connects to databaseURL, LISTENs and starts relaying to b.
// ctx bounds the first connection only; the relay runs until Close.
func NewPGRelay(ctx context.Context, databaseURL string, b *Broker, log *slog.Logger, opts RelayOptions) (*PGRelay, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("events relay: %w", err)
	}
	// Notice a dead peer within about half a minute rather than the
	// operating system's hours: the listener otherwise only ever reads.
	cfg.DialFunc = (&net.Dialer{
		Timeout:         10 * time.Second,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3},
	}).DialContext
	if opts.Channel == "" {
		opts.Channel = DefaultChannel
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 10 * time.Second
	}
	var raw [8]byte
	_, _ = crand.Read(raw[:])
	r := &PGRelay{
		id: hex.EncodeToString(raw[:]), channel: opts.Channel, broker: b,
		log: log.With("component", "events relay"), opts: opts, cfg: cfg, last: map[string]int64{},
	}
	conn, err := r.listen(ctx)
	if err != nil {
		return nil, err
	}
	r.conn = conn
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.wg.Go(func() { r.run(runCtx, conn) })
	return r, nil
}

// Instance is the id this relay stamps on the messages it notifies.
func (r *PGRelay) Instance() string { return r.id }

// Close stops relaying and closes the connection. It is idempotent.
func (r *PGRelay) Close() error {
	if r == nil {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	return nil
}

// Notify sends msg, the house's event at seq, to every instance's sockets
// (this one's too) through ex. Called with the *sql.Tx that took seq,
// PostgreSQL delivers it at commit, in commit order, and never if the
// transaction rolls back, which is the intended use. On a nil relay Notify
// does nothing.
func (r *PGRelay) Notify(ctx context.Context, ex Execer, house string, seq int64, msg []byte) error {
	return r.notify(ctx, ex, house, "", seq, msg)
}

// NotifyTo sends msg to the sockets user opened in house on the other
// instances (Broker.PublishTo there), at once. A message too large for a
// payload cannot be fetched back (it is no job event): those sockets are
// asked to resync instead.
func (r *PGRelay) NotifyTo(ctx context.Context, ex Execer, house, user string, msg []byte) error {
	if user == "" || strings.ContainsAny(user, "\t\n") {
		return fmt.Errorf("events: notify: bad user id %q", user)
	}
	return r.notify(ctx, ex, house, user, 0, msg)
}

func (r *PGRelay) notify(ctx context.Context, ex Execer, house, user string, seq int64, msg []byte) error {
	if r == nil {
		return nil
	}
	if house == "" || strings.ContainsAny(house, "\t\n") {
		return fmt.Errorf("events: notify: bad house id %q", house)
	}
	payload := encodePayload(r.id, house, user, seq, msg)
	if _, err := ex.ExecContext(ctx, "SELECT pg_notify($1, $2)", r.channel, payload); err != nil {
		return fmt.Errorf("events: notify: %w", err)
	}
	return nil
}

// The payload is one header line, then the message:
//
//	v1 TAB instance TAB house TAB seq TAB kind LF message
//	v2 TAB instance TAB house TAB seq TAB kind TAB user LF message
//
// kind is "m" when the message follows and "r" (reference, no message)
// when it would not fit: the receiver fetches it. v2 is a message to one
// user's sockets; a house-wide message is v1, as before v2 existed.
const (
	payloadVersion     = "v1"
	payloadVersionUser = "v2"
)

func encodePayload(instance, house, user string, seq int64, msg []byte) string {
	var b strings.Builder
	version, tail := payloadVersion, ""
	if user != "" {
		version, tail = payloadVersionUser, "\t"+user
	}
	head := version + "\t" + instance + "\t" + house + "\t" + strconv.FormatInt(seq, 10) + "\t"
	if len(head)+2+len(tail)+len(msg) <= MaxPayload {
		b.Grow(len(head) + 2 + len(tail) + len(msg))
		b.WriteString(head)
		b.WriteString("m")
		b.WriteString(tail)
		b.WriteString("\n")
		b.Write(msg)
		return b.String()
	}
	return head + "r" + tail + "\n"
}

type payload struct {
	instance, house string
	user            string // v2: the one user whose sockets receive it
	seq             int64
	ref             bool
	msg             string
}

func decodePayload(s string) (payload, error) {
	head, msg, ok := strings.Cut(s, "\n")
	if !ok {
		return payload{}, errors.New("no header line")
	}
	f := strings.Split(head, "\t")
	user := ""
	switch {
	case len(f) == 5 && f[0] == payloadVersion:
	case len(f) == 6 && f[0] == payloadVersionUser && f[5] != "":
		user = f[5]
	default:
		return payload{}, fmt.Errorf("unknown header %q", head)
	}
	seq, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil || f[2] == "" || (f[4] != "m" && f[4] != "r") {
		return payload{}, fmt.Errorf("bad header %q", head)
	}
	return payload{instance: f[1], house: f[2], user: user, seq: seq, ref: f[4] == "r", msg: msg}, nil
}

// listen opens the dedicated connection and LISTENs on the channel.
func (r *PGRelay) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, r.cfg)
	if err != nil {
		return nil, fmt.Errorf("events relay: connect: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{r.channel}.Sanitize()); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("events relay: listen: %w", err)
	}
	return conn, nil
}

// run receives notifications until ctx ends, reconnecting when the
// connection is lost.
func (r *PGRelay) run(ctx context.Context, conn *pgx.Conn) {
	defer func() {
		if c := r.setConn(nil); c != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = c.Close(closeCtx)
			cancel()
		}
	}()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err == nil {
			r.deliver(ctx, n.Payload)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("connection lost; reconnecting", "err", err)
		if c := r.setConn(nil); c != nil {
			_ = c.Close(context.Background())
		}
		if conn = r.reconnect(ctx); conn == nil {
			return
		}
		r.setConn(conn)
		// Whatever was notified while we were away is lost to our clients:
		// replay it from the store, or ask them to.
		r.catchUp(ctx)
	}
}

// catchUp replays to every watched house the events after the last one
// delivered there, now that the relay listens again (what commits from now
// on arrives as notifications, skipped when the replay had it already). A
// house with no delivered event yet, or whose replay fails or is too long,
// is asked to resync.
func (r *PGRelay) catchUp(ctx context.Context) {
	replayed, resynced := 0, 0
	for _, house := range r.broker.houseList() {
		last, known := r.last[house]
		var msgs []Message
		err := errors.New("no replay")
		if known && r.opts.Replay != nil {
			replayCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			msgs, err = r.opts.Replay(replayCtx, house, last, replayLimit)
			cancel()
			if err == nil && len(msgs) >= replayLimit {
				err = errors.New("too many events missed")
			}
		}
		if err != nil {
			r.broker.Resync(house)
			delete(r.last, house)
			resynced++
			continue
		}
		for _, m := range msgs {
			r.publish(house, m.Seq, m.Data)
		}
		replayed++
	}
	for house := range r.last {
		if !r.broker.watched(house) {
			delete(r.last, house)
		}
	}
	r.log.Info("listening again", "houses replayed", replayed, "houses asked to resync", resynced)
}

// publish delivers a house-wide event to the local broker once, in seq
// order: an event at or below the last delivered to the house is skipped.
func (r *PGRelay) publish(house string, seq int64, msg []byte) {
	if last, ok := r.last[house]; ok && seq <= last {
		return
	}
	r.last[house] = seq
	r.broker.Publish(house, seq, msg)
}

// reconnect retries listen with capped, jittered exponential backoff. It
// returns nil when ctx ends first.
func (r *PGRelay) reconnect(ctx context.Context) *pgx.Conn {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		connCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		conn, err := r.listen(connCtx)
		cancel()
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		r.log.Warn("reconnect failed", "attempt", attempt, "err", err)
		wait = min(wait*2, r.opts.MaxBackoff)
	}
}

func (r *PGRelay) setConn(c *pgx.Conn) *pgx.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.conn
	r.conn = c
	return old
}

// deliver publishes one notification to the local broker, unless nobody
// here watches its house or it is this instance's message to one user.
func (r *PGRelay) deliver(ctx context.Context, raw string) {
	p, err := decodePayload(raw)
	if err != nil {
		r.log.Warn("payload ignored", "err", err)
		return
	}
	own := p.instance == r.id
	if own && p.user != "" {
		return
	}
	if !own && r.opts.OnNotify != nil {
		r.opts.OnNotify(p.house)
	}
	if !r.broker.watched(p.house) {
		delete(r.last, p.house)
		return
	}
	if p.user != "" {
		if p.ref {
			r.broker.resync(p.house, p.user) // nothing to fetch a user's message from
			return
		}
		r.broker.PublishTo(p.house, p.user, p.seq, []byte(p.msg))
		return
	}
	if !p.ref {
		r.publish(p.house, p.seq, []byte(p.msg))
		return
	}
	if r.opts.Fetch == nil {
		r.broker.Resync(p.house)
		return
	}
	fetchCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	msg, err := r.opts.Fetch(fetchCtx, p.house, p.seq)
	cancel()
	if err != nil {
		r.log.Warn("fetch of a large message failed; house asked to resync", "house", p.house, "seq", p.seq, "err", err)
		r.broker.Resync(p.house)
		return
	}
	r.publish(p.house, p.seq, msg)
}
