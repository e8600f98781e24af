package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/events"
)

// ErrUpgradeRequired answers a request to the job socket that is not a
// WebSocket handshake.
var ErrUpgradeRequired = errs.New(errs.KindUpgradeRequired, "UPGRADE_REQUIRED",
	"This route is a WebSocket: open it with a WebSocket (version 13) handshake.")

// socketSummary documents the job socket in the routes table.
const socketSummary = "Job events (WebSocket): every job state change of the house, pushed as it commits"

// socketTimings are the job socket's intervals; zero means the events
// package defaults (30 s). Tests shorten them.
type socketTimings struct {
	ping, check, write atomic.Int64 // time.Duration
}

// sessionRenewal mirrors account.Resolve: a session is renewed on use once
// its expiry is less than account.SessionTTL minus this far away.
const sessionRenewal = 24 * time.Hour

// jobSocket serves GET /api/toolkit/jobs/ws (SPEC §6). The authenticate
// middleware has resolved the principal (a key on the Authorization
// header, or the session cookie). The stream then carries every message
// published for the principal's house, and the messages published to the
// principal's user alone (a chat turn's chat.applied: a colleague's
// socket never hears another person's conversation), encoded once by the
// publisher: {"type":"job","job":{...}} and the other shapes of DECISIONS §1b.
//
// The subscription starts before the handshake is answered, so a client
// that replays with GET /api/toolkit/jobs?since=N after its socket opens
// misses nothing. A stream ends with a close frame whose reason tells the
// client what to do (events.Reason*): after "lagging", "resync", "reauth"
// and "shutdown" it reconnects and replays; after "revoked" it signs in
// again.
//
// Revocation: the credential is re-checked every 30 s, so a revoked key, an
// ended session or a lost seat ends the stream within 30 s (within 2 min
// while the database cannot answer). A check of a session never renews it,
// because a socket cannot send the renewed cookie back: a session socket
// closes with "reauth" when its session falls due for renewal (after at
// most 24 h), and the next handshake renews the session and its cookie.
func (s *Server) jobSocket(w http.ResponseWriter, r *http.Request) error {
	if !isWebSocketHandshake(r) {
		h := w.Header()
		h.Set("Upgrade", "websocket")
		h.Set("Connection", "Upgrade")
		h.Set("Sec-WebSocket-Version", "13")
		return ErrUpgradeRequired
	}
	p := auth.From(r.Context())
	// A browser sends the cookie on any site's handshake: only our own
	// pages may use it. A key is not ambient authority and needs no Origin.
	if p.Cred == auth.CredSession && !s.sameOrigin(r) {
		return s.badOrigin()
	}
	if s.svc.Events == nil {
		return errs.Wrap(errs.Internal, errors.New("job socket: no events broker"))
	}
	check := s.socketCheck(r, p)
	sub := s.svc.Events.SubscribeAs(p.HouseID, p.UserID)
	defer sub.Close()
	conn, err := events.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     s.originHosts(),
		InsecureSkipVerify: p.Cred != auth.CredSession,
	})
	if err != nil {
		// Accept has answered already; nothing else may be written.
		logFor(r.Context()).WarnContext(r.Context(), "job socket handshake failed", "err", err)
		return nil
	}
	end := events.Stream(r.Context(), conn, sub, events.StreamOptions{
		Ping:         time.Duration(s.sockets.ping.Load()),
		CheckEvery:   time.Duration(s.sockets.check.Load()),
		WriteTimeout: time.Duration(s.sockets.write.Load()),
		Check:        check,
		Log:          logFor(r.Context()),
	})
	logFor(r.Context()).DebugContext(r.Context(), "job socket closed", "house", p.HouseID, "reason", end)
	return nil
}

// isWebSocketHandshake reports whether r opens a WebSocket (RFC 6455 §4.1)
// in the version this server speaks.
func isWebSocketHandshake(r *http.Request) bool {
	return r.ProtoAtLeast(1, 1) &&
		headerHasToken(r.Header, "Connection", "upgrade") &&
		headerHasToken(r.Header, "Upgrade", "websocket") &&
		r.Header.Get("Sec-WebSocket-Version") == "13" &&
		r.Header.Get("Sec-WebSocket-Key") != ""
}

// headerHasToken reports whether a comma-separated header lists token,
// ignoring case.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// originHosts are the hosts whose pages may open a cookie-authenticated
// socket: the service's public origin and WEB_ORIGIN. The handler has
// already required the exact origin; this is the library's own check.
func (s *Server) originHosts() []string {
	var hosts []string
	for _, o := range []string{s.cfg.PublicOrigin, s.cfg.WebOrigin} {
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			hosts = append(hosts, u.Host)
		}
	}
	return hosts
}

// socketCheck returns the periodic re-check of the credential that opened
// the socket: the key row or the session row is read again, as every HTTP
// request does.
func (s *Server) socketCheck(r *http.Request, p auth.Principal) func(context.Context) error {
	verdict := func(q auth.Principal, err error) error {
		if e, ok := errs.As(err); ok && e.Kind == errs.KindUnauthorized {
			return events.ErrRevoked
		}
		if err != nil {
			return err
		}
		if !q.Role.Valid() {
			return events.ErrRevoked // the seat is gone
		}
		if q.HouseID != p.HouseID {
			return events.ErrReauth // the session switched house: follow it
		}
		return nil
	}
	if p.Cred == auth.CredKey {
		secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		secret = strings.TrimSpace(secret)
		return func(ctx context.Context) error {
			return verdict(s.svc.Keys.Resolve(ctx, secret))
		}
	}
	var token string
	if c, err := r.Cookie(SessionCookie); err == nil {
		token = c.Value
	}
	renewAt := sessionFrom(r.Context()).ExpiresAt.Time.Add(sessionRenewal - account.SessionTTL - time.Minute)
	return func(ctx context.Context) error {
		// Past renewAt, Resolve would renew the session row, and the
		// browser's cookie would not learn the new expiry.
		if !time.Now().Before(renewAt) {
			return events.ErrReauth
		}
		q, _, _, err := s.svc.Accounts.Resolve(ctx, token)
		return verdict(q, err)
	}
}

// socketRoutes are the routes of Job events (SPEC §6).
func (s *Server) socketRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/toolkit/jobs/ws", Class: KeyOrSession, Tag: "jobs", Summary: socketSummary,
			Out: []Out{{Status: 101}}, Errors: []*errs.Error{ErrUpgradeRequired, ErrBadOrigin}, Handler: s.jobSocket},
	}
}
