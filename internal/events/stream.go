package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Reasons a Check gives to end a stream.
var (
	// ErrRevoked: the credential that opened the stream is no longer valid
	// (key revoked, session ended, seat gone, house switched). The client
	// must authenticate again; reconnecting with the same credential fails.
	ErrRevoked = errors.New("events: credential no longer valid")
	// ErrReauth: the credential is still good, but the connection has
	// lived as long as it may without a fresh handshake; reconnect.
	ErrReauth = errors.New("events: handshake again")
)

// Reasons a stream ends that only Stream raises.
var (
	// errUnverified: the credential could not be checked several times in a row.
	errUnverified = errors.New("events: credential could not be verified")
	// errDataFrame: the client sent a data frame on the write-only stream.
	errDataFrame = errors.New("events: the client sent a data frame")
	// errPeerGone: the client closed or broke the connection.
	errPeerGone = errors.New("events: peer closed the connection")
)

// Close reasons, the text of the close frame a stream ends with. Clients
// reconnect and replay after every one of them but "revoked".
const (
	ReasonLagging    = "lagging"    // 1013: fell behind; reconnect, then replay
	ReasonResync     = "resync"     // 1013: messages may have been missed; reconnect, then replay
	ReasonReauth     = "reauth"     // 1013: reconnect (the handshake refreshes the credential)
	ReasonShutdown   = "shutdown"   // 1001: the server is going away; reconnect, then replay
	ReasonRevoked    = "revoked"    // 1008: the credential is no longer valid; do not retry with it
	ReasonUnverified = "unverified" // 1011: the credential could not be checked; reconnect later
	ReasonWriteOnly  = "write-only" // 1008: the client sent a data frame; the stream only writes
	ReasonClosed     = "closed"     // 1000: the server ended the stream
)

// CloseStatus maps the reason a stream ended to the status and text of
// its close frame.
func CloseStatus(err error) (websocket.StatusCode, string) {
	switch {
	case errors.Is(err, ErrLagging):
		return websocket.StatusTryAgainLater, ReasonLagging
	case errors.Is(err, ErrResync):
		return websocket.StatusTryAgainLater, ReasonResync
	case errors.Is(err, ErrReauth):
		return websocket.StatusTryAgainLater, ReasonReauth
	case errors.Is(err, ErrClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return websocket.StatusGoingAway, ReasonShutdown
	case errors.Is(err, ErrRevoked):
		return websocket.StatusPolicyViolation, ReasonRevoked
	case errors.Is(err, errUnverified):
		return websocket.StatusInternalError, ReasonUnverified
	case errors.Is(err, errDataFrame):
		return websocket.StatusPolicyViolation, ReasonWriteOnly
	}
	return websocket.StatusNormalClosure, ReasonClosed
}

// Defaults of StreamOptions.
const (
	DefaultPing         = 30 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	DefaultCheckEvery   = 30 * time.Second
	// checkFailures is how many checks in a row may fail (not refuse)
	// before the stream ends: a revocation then ends a stream within
	// (checkFailures+1) x CheckEvery even while the database is away.
	checkFailures = 3
)

// StreamOptions configure Stream. The zero value is the production setting
// without a credential check.
type StreamOptions struct {
	// Ping is the time between pings; DefaultPing when zero. A ping not
	// answered within WriteTimeout ends the stream.
	Ping time.Duration
	// WriteTimeout bounds each write (past it a watchdog closes the
	// connection) and each ping; DefaultWriteTimeout when zero.
	WriteTimeout time.Duration
	// Check, when set, re-verifies the credential every CheckEvery. It
	// returns ErrRevoked or ErrReauth to end the stream; any other error
	// counts as a failed check, and several in a row end it too.
	Check func(ctx context.Context) error
	// CheckEvery is the time between checks; DefaultCheckEvery when zero.
	CheckEvery time.Duration
	// Log, when set, receives failed checks.
	Log *slog.Logger
}

// Stream writes sub's messages to sock as text frames until the
// subscription ends, the credential check ends it, the peer goes away or
// a write fails; then it closes sock with a status that tells the client
// why (CloseStatus) and returns that reason. It owns sock and has closed
// it when it returns; the caller still closes sub. When sock can be
// written raw (see Socket), the pool writes the messages and Stream
// takes over only a socket that cannot take a frame at once.
//
// The stream is write-only. A reader goroutine serves the control frames
// (pongs, the client's close) and ends the stream on a data frame. It does
// what conn.CloseRead does, except that the close for a data frame is sent
// from Stream's goroutine: CloseRead's own close waits for its goroutine
// to end from inside that goroutine, a 15 s stall in v1.8.15.
func Stream(ctx context.Context, sock *Socket, sub *Subscription, opts StreamOptions) error {
	conn := sock.Conn
	if opts.Ping <= 0 {
		opts.Ping = DefaultPing
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.CheckEvery <= 0 {
		opts.CheckEvery = DefaultCheckEvery
	}
	peer, stopReading := context.WithCancel(ctx)
	var dataFrame atomic.Bool
	var readErr error // written before reading is closed
	reading := make(chan struct{})
	go func() {
		defer close(reading)
		defer stopReading()
		_, _, readErr = conn.Reader(peer)
		if readErr == nil {
			dataFrame.Store(true)
		}
	}()
	defer func() {
		conn.CloseNow() // ends the reader, if the stream ended another way
		<-reading
	}()
	ping := time.NewTicker(opts.Ping)
	defer ping.Stop()
	var check <-chan time.Time
	if opts.Check != nil {
		t := time.NewTicker(opts.CheckEvery)
		defer t.Stop()
		check = t.C
	}
	// broken names why a write or a ping failed: the client's close,
	// when the reader saw one, or the error.
	broken := func(op string, err error) error {
		conn.CloseNow()
		<-reading
		if websocket.CloseStatus(readErr) != -1 {
			return errPeerGone
		}
		return fmt.Errorf("events: %s: %w", op, err)
	}
	watchdog := time.AfterFunc(time.Hour, func() { conn.CloseNow() })
	watchdog.Stop()
	defer watchdog.Stop()
	// With a sink, the pool writes the messages; Stream writes what it is
	// handed, and stops the data frames before its close frame.
	msgs := sub.C()
	var handoff chan []byte
	closeWith := closeConn
	if k := sock.sink; k != nil {
		msgs, handoff = nil, k.handoff
		k.attach(sub, opts.WriteTimeout)
		closeWith = func(conn *websocket.Conn, reason error) error {
			k.stop()
			return closeConn(conn, reason)
		}
	}
	failed := 0
	for {
		select {
		case frame := <-handoff:
			if err := sock.sink.drain(frame); err != nil {
				return broken("write", err)
			}
		case m := <-msgs:
			// Each write has WriteTimeout: the watchdog closes conn if
			// it has not finished by then. The write's own context is a
			// fresh, never-cancelled one (the request's may be gone), so
			// that a write allocates nothing; a context with a deadline
			// per write costs about eight allocations per socket.
			watchdog.Reset(opts.WriteTimeout)
			err := conn.Write(context.Background(), websocket.MessageText, m.Data)
			watchdog.Stop()
			if err != nil {
				return broken("write", err)
			}
		case <-sub.Done():
			return closeWith(conn, sub.Err())
		case <-ping.C:
			pctx, cancel := context.WithTimeout(context.Background(), opts.WriteTimeout)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return broken("ping", err)
			}
		case <-check:
			cctx, cancel := context.WithTimeout(context.Background(), opts.WriteTimeout)
			err := opts.Check(cctx)
			cancel()
			switch {
			case err == nil:
				failed = 0
			case errors.Is(err, ErrRevoked), errors.Is(err, ErrReauth):
				return closeWith(conn, err)
			default:
				failed++
				if opts.Log != nil {
					opts.Log.Warn("socket credential check failed", "house", sub.House(), "failures", failed, "err", err)
				}
				if failed >= checkFailures {
					return closeWith(conn, fmt.Errorf("%w: %w", errUnverified, err))
				}
			}
		case <-peer.Done():
			switch {
			case dataFrame.Load():
				return closeWith(conn, errDataFrame)
			case ctx.Err() != nil:
				return closeWith(conn, ctx.Err())
			}
			return errPeerGone
		}
	}
}

// closeConn closes conn with the status for reason and returns reason.
func closeConn(conn *websocket.Conn, reason error) error {
	code, text := CloseStatus(reason)
	_ = conn.Close(code, text)
	return reason
}
