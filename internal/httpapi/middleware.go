package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"studio/internal/account"
	"studio/internal/auth"
	"studio/internal/errs"
)

// reqInfo is what the outer middleware learns about a request as it goes:
// the id it logs with, the house once known, and the status written.
type reqInfo struct {
	log    *slog.Logger
	id     string
	house  string
	status int
	bytes  int64
}

type infoKey struct{}

func info(ctx context.Context) *reqInfo {
	i, _ := ctx.Value(infoKey{}).(*reqInfo)
	return i
}

// logFor returns the server's logger for the request, with its id.
func logFor(ctx context.Context) *slog.Logger {
	if i := info(ctx); i != nil {
		return i.log.With("request_id", i.id)
	}
	return slog.Default()
}

// statusWriter records the status and size of an answer; it carries the
// request's reqInfo, so a request costs one allocation for both.
type statusWriter struct {
	http.ResponseWriter
	info *reqInfo
	ri   reqInfo
}

func (w *statusWriter) WriteHeader(code int) {
	if w.info.status == 0 {
		w.info.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.info.status == 0 {
		w.info.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.info.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flush, hijack).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RequestMeter counts answered requests (the /metrics series) by the
// ServeMux pattern that matched, never the path, so no id reaches a label.
type RequestMeter interface {
	Request(pattern, method string, status int, took time.Duration)
}

// Observe wraps a handler mounted beside the API (the console's pages) as
// the API's own routes are wrapped: a request id, one log line, a panic
// turned into a 500, and m told of the answer when m is not nil.
func Observe(log *slog.Logger, m RequestMeter, next http.Handler) http.Handler {
	return observeWith(log, m, next)
}

func observe(log *slog.Logger, next http.Handler) http.Handler { return observeWith(log, nil, next) }

// observeWith gives every request an X-Request-Id (the client's, when it
// sent a sane one), turns a panic into a 500 that names the request id,
// logs one JSON line per request with the house, status and duration, and
// tells m (when set) the pattern that matched, the status and duration.
func observeWith(log *slog.Logger, m RequestMeter, next http.Handler) http.Handler {
	rl := newRequestLog(log)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, ri: reqInfo{log: log, id: r.Header.Get("X-Request-Id")}}
		ri := &sw.ri
		sw.info = ri
		if !saneID(ri.id) {
			ri.id = newRequestID()
		}
		w.Header()["X-Request-Id"] = []string{ri.id}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, ri))
		defer func() {
			v := recover()
			if v == http.ErrAbortHandler {
				// The handler cut the answer short on purpose (a stream that
				// failed, or whose client left): log the line, then let net/http
				// drop the connection. A client that left is a 499.
				if errors.Is(r.Context().Err(), context.Canceled) {
					ri.status = StatusClientClosed
				}
				defer panic(v)
			} else if v != nil {
				log.ErrorContext(r.Context(), "panic", "request_id", ri.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if ri.status == 0 {
					writeError(sw, r, errs.Internal)
				}
			}
			end := time.Now()
			rl.write(r.Context(), line{id: ri.id, method: r.Method, path: logPath(r.URL.Path), house: ri.house,
				status: ri.status, bytes: ri.bytes, at: end, duration: end.Sub(start)})
			if m != nil {
				// The mux that routed r set its pattern on r itself.
				m.Request(r.Pattern, r.Method, ri.status, end.Sub(start))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

func saneID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// newRequestID returns 32 hex digits unique to the request: a counter
// mixed with this process's random seed (splitmix64, a bijection, so no
// two requests of a process share an id, and ids of two processes differ
// but by chance). An id names a request in the logs; it is no secret, so
// it need not cost a read of the system's random source per request.
func newRequestID() string {
	n := reqIDCount.Add(1)
	var b [32]byte
	putHex(b[:16], splitmix(reqIDSeed[0]+n))
	putHex(b[16:], splitmix(reqIDSeed[1]^n))
	return string(b[:])
}

var (
	reqIDSeed = func() (s [2]uint64) {
		var b [16]byte
		_, _ = rand.Read(b[:])
		return [2]uint64{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}
	}()
	reqIDCount atomic.Uint64
)

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func putHex(dst []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		dst[i] = digits[v&0xf]
		v >>= 4
	}
}

// SessionCookie names the browser session cookie.
const SessionCookie = "studio_session"

type sessionKey struct{}

// authenticate resolves the request's principal as the route's class asks
// and refuses it otherwise. Role rules are the services' business.
func (s *Server) authenticate(class Class, next http.Handler) http.Handler {
	if class.Internal() { // the analyst's bearer tokens, compared in constant time; unset admits no one
		return appHandler(func(w http.ResponseWriter, r *http.Request) error {
			if s.svc.Analyst == nil {
				return errs.Unauthorized
			}
			if err := s.svc.Analyst.Check(r.Header.Get("Authorization"), class == AnalystAction); err != nil {
				return err
			}
			next.ServeHTTP(w, r)
			return nil
		})
	}
	if !class.Credentialed() {
		return next
	}
	return appHandler(func(w http.ResponseWriter, r *http.Request) error {
		p, sess, err := s.principal(w, r, class)
		if err != nil {
			return err
		}
		if i := info(r.Context()); i != nil {
			i.house = p.HouseID
		}
		ctx := auth.With(r.Context(), p)
		if p.Cred == auth.CredSession {
			ctx = context.WithValue(ctx, sessionKey{}, sess)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
		return nil
	})
}

var (
	errKeyNotAccepted = errs.Msg(errs.Unauthorized, "This route needs a browser session; an API key is not accepted.")
	errKeyNotOperator = errs.Msg(errs.Forbidden, "This route is for platform administrators' browser sessions; an API key is never accepted.")
)

func (s *Server) principal(w http.ResponseWriter, r *http.Request, class Class) (auth.Principal, account.Session, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		if class != KeyOrSession && class != PlatformAdmin {
			return auth.Principal{}, account.Session{}, errKeyNotAccepted
		}
		secret, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			return auth.Principal{}, account.Session{}, errs.Unauthorized
		}
		p, err := s.svc.Keys.Resolve(r.Context(), strings.TrimSpace(secret))
		if err == nil && class == PlatformAdmin { // a valid key, even an admin's, is no operator (issue 16)
			return auth.Principal{}, account.Session{}, errKeyNotOperator
		}
		return p, account.Session{}, err
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return auth.Principal{}, account.Session{}, errs.Unauthorized
	}
	p, sess, renewed, err := s.svc.Accounts.Resolve(r.Context(), c.Value)
	if err != nil {
		return auth.Principal{}, account.Session{}, err
	}
	if !safeMethod(r.Method) && !s.sameOrigin(r) {
		return auth.Principal{}, account.Session{}, s.badOrigin()
	}
	if class == PlatformAdmin {
		if err := p.MayOperate(); err != nil {
			return auth.Principal{}, account.Session{}, err
		}
	}
	if renewed {
		s.setSessionCookie(w, c.Value, sess)
	}
	return p, sess, nil
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin reports whether the request's Origin is the service's own or
// the configured web origin.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o != "" && (o == s.cfg.PublicOrigin || o == s.cfg.WebOrigin)
}

// badOrigin is BAD_ORIGIN naming the Origin a cookie-signed request must
// carry and the setting that decides it: a service moved to another
// address without its public URL refuses its own pages, and says why.
func (s *Server) badOrigin() error {
	if s.cfg.WebOrigin == "" || s.cfg.WebOrigin == s.cfg.PublicOrigin {
		return errs.Msg(ErrBadOrigin, fmt.Sprintf("The request's Origin is not this service's: a request signed in with a cookie must send Origin: %s (set by STUDIO_PUBLIC_URL).",
			s.cfg.PublicOrigin))
	}
	return errs.Msg(ErrBadOrigin, fmt.Sprintf("The request's Origin is not this service's: a request signed in with a cookie must send Origin: %s or %s (set by STUDIO_PUBLIC_URL and WEB_ORIGIN).",
		s.cfg.PublicOrigin, s.cfg.WebOrigin))
}

func (s *Server) setSessionCookie(w http.ResponseWriter, token string, sess account.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/",
		Expires: sess.ExpiresAt.Time, MaxAge: int(time.Until(sess.ExpiresAt.Time).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookie,
	})
}

func clearSessionCookie(w http.ResponseWriter, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure})
}

func sessionFrom(ctx context.Context) account.Session {
	s, _ := ctx.Value(sessionKey{}).(account.Session)
	return s
}
