// Package urlguard is the one way the service reaches a URL a user gave it
// (webhook endpoints, invite previews, analyst research): a registration
// check that answers BAD_URL with a reason, and an HTTP client that checks
// the address it actually dials, so a name that resolves (or re-resolves)
// into private space gains nothing.
//
// Refused, at registration and at every dial: schemes other than https
// (http only with [AllowHTTP]); user names or passwords in the URL;
// localhost and names under .localhost, .local, .internal, .svc,
// .home.arpa, .localdomain; single-label names; and every address outside
// public unicast space as code.dny.dev/ssrf defines it (loopback, RFC 1918,
// link-local, CGNAT, 0.0.0.0/8, multicast, documentation and benchmarking
// ranges, and every IPv6 address outside 2000::/3, which includes ::1,
// fc00::/7, fe80::/10, IPv4-mapped, IPv4-compatible and NAT64 forms; 6to4
// and Teredo are denied inside it). An IPv6 literal with a zone is refused.
// An IPv4-mapped address is judged as its IPv4 address: a resolved one
// (Go answers names from /etc/hosts that way) passes when that address is
// public; a mapped literal in a URL is refused, private-address or, when
// public, non-canonical-ip.
// A host whose last label is a number is read the way inet_aton(3) and
// browsers read it (2130706433, 0x7f.1, 0177.0.0.1 and 127.1 are
// 127.0.0.1) and refused when private; a public address written that way
// is refused too (non-canonical-ip), since resolvers disagree about such
// names. Host names must be ASCII (punycode for the rest). Any port is
// allowed: a port on a public address is no door into our network.
//
// The client dials through net.Dialer.Control set to an ssrf.Guardian,
// uses no proxy (whatever the environment says), follows no redirect (a 3xx
// is a *RedirectError; [WithRedirects] lets a caller follow a few, each hop
// checked again), gives up after 10 s in all, and reads at most a small
// prefix of the answer (64 KiB unless [WithMaxBody] says otherwise).
package urlguard

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"studio/internal/errs"
)

// ErrBadURL is the refusal of a URL; its `reason` field is one of the
// Reason constants.
var ErrBadURL = errs.New(errs.KindInvalid, "BAD_URL", "The URL is refused.")

var reasonMessages = map[string]string{
	ReasonMalformed:        "The URL is not a valid absolute URL with a host name.",
	ReasonNotHTTPS:         "The URL must use https.",
	ReasonUserinfo:         "The URL must not carry a user name or password.",
	ReasonInternalHostname: "The URL names a host that exists only inside a network.",
	ReasonSingleLabel:      "The URL's host must be a fully qualified domain name.",
	ReasonPrivateAddress:   "The URL points into private or reserved address space.",
	ReasonNonCanonicalIP:   "The URL writes an IP address in a non-standard form.",
	ReasonUnresolvable:     "The URL's host name does not resolve.",
}

func refuse(reason string, cause error) *errs.Error {
	e := errs.With(errs.Msg(ErrBadURL, reasonMessages[reason]), "reason", reason)
	if cause != nil {
		e = errs.Wrap(e, cause)
	}
	return e
}

// Reason returns the reason of a BAD_URL refusal in err's chain, or "".
func Reason(err error) string {
	if e, ok := errs.As(err); ok && e.Code == ErrBadURL.Code {
		r, _ := e.Fields["reason"].(string)
		return r
	}
	return ""
}

// Defaults.
const (
	DefaultTimeout = 10 * time.Second
	DefaultMaxBody = 64 << 10
)

// Guard checks URLs and sends requests to them. It is safe for concurrent
// use; build it once with New.
type Guard struct {
	timeout      time.Duration
	maxBody      int64
	maxRedirects int
	allowHTTP    bool
	resolver     *net.Resolver
	rootCAs      *x509.CertPool
	testAllow    []netip.AddrPort // loopback address and port a test receiver listens on

	guardian *ssrf.Guardian
	client   *http.Client
}

// Option configures a Guard.
type Option func(*Guard)

// WithTimeout bounds a whole exchange (dial, TLS, redirects, reading the
// answer); default 10 s.
func WithTimeout(d time.Duration) Option { return func(g *Guard) { g.timeout = d } }

// WithMaxBody caps the bytes read from an answer; default 64 KiB.
func WithMaxBody(n int64) Option { return func(g *Guard) { g.maxBody = n } }

// WithResolver resolves names with r, at registration and at dial time.
func WithResolver(r *net.Resolver) Option { return func(g *Guard) { g.resolver = r } }

// WithRootCAs trusts pool instead of the system roots.
func WithRootCAs(pool *x509.CertPool) Option { return func(g *Guard) { g.rootCAs = pool } }

// AllowHTTP accepts http URLs as well as https. Webhooks never use it;
// invite previews may, since a portfolio page on plain http is still a
// page a person wants to see, and a preview sends no secret.
func AllowHTTP() Option { return func(g *Guard) { g.allowHTTP = true } }

// WithRedirects follows up to n redirects, each target checked like the
// first URL (syntax here, address at dial time). The default, 0, follows
// none: a 3xx answer is a *RedirectError.
func WithRedirects(n int) Option { return func(g *Guard) { g.maxRedirects = n } }

// New returns a guard.
func New(opts ...Option) *Guard {
	g := &Guard{timeout: DefaultTimeout, maxBody: DefaultMaxBody, resolver: net.DefaultResolver}
	for _, o := range opts {
		o(g)
	}
	g.guardian = ssrf.New(ssrf.WithAnyPort())
	dialer := &net.Dialer{Timeout: g.timeout, Resolver: g.resolver, Control: g.control}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if err := g.checkDialHost(addr); err != nil {
				return nil, err
			}
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: g.rootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: g.timeout,
		MaxIdleConns:        16,
		IdleConnTimeout:     30 * time.Second,
	}
	g.client = &http.Client{Transport: tr, Timeout: g.timeout, CheckRedirect: g.checkRedirect}
	return g
}

// allowed reports whether a may be dialled on port. An IPv4-mapped
// address is judged as the IPv4 address it is: Go's resolver answers names
// from /etc/hosts in that form, and the dialer connects to the IPv4 address.
func (g *Guard) allowed(a netip.Addr, port uint16) bool {
	a = a.Unmap()
	if a.Zone() != "" {
		return false
	}
	if slices.Contains(g.testAllow, netip.AddrPortFrom(a, port)) {
		return true
	}
	return g.guardian.SafeAddr(a) == nil
}

// control is the dialer's Control: it sees the address about to be
// connected, after resolution, and refuses it before any packet leaves.
func (g *Guard) control(network, address string, c syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return g.guardian.Safe(network, address, c) // refuses what does not parse
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if len(g.testAllow) > 0 && slices.Contains(g.testAllow, ap) {
		return nil
	}
	if ap.Addr().Zone() != "" {
		return fmt.Errorf("%w: %s has a zone", ssrf.ErrProhibitedIP, address)
	}
	return g.guardian.SafeAddrPort(ap)
}

// checkDialHost applies the host rules to the address the transport is
// about to dial (the request's host, or a redirect's).
func (g *Guard) checkDialHost(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return refuse(ReasonMalformed, err)
	}
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(host, port)}
	if _, reason := g.parseTarget(u); reason != "" {
		return refuse(reason, nil)
	}
	return nil
}

// Check applies every rule to rawURL, resolving its host name: nil, or
// BAD_URL with the reason. Registration calls it; delivery checks again at
// dial time.
func (g *Guard) Check(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return refuse(ReasonMalformed, err)
	}
	t, reason := g.parseTarget(u)
	if reason != "" {
		return refuse(reason, nil)
	}
	if t.addr.IsValid() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", t.name)
	if err != nil || len(addrs) == 0 {
		return refuse(ReasonUnresolvable, err)
	}
	for _, a := range addrs {
		if !g.allowed(a, t.port) {
			return refuse(ReasonPrivateAddress, fmt.Errorf("%s resolves to %s", t.name, a))
		}
	}
	return nil
}

// ErrRedirect is in the chain of every *RedirectError.
var ErrRedirect = errors.New("urlguard: redirect not followed")

// RedirectError is a 3xx answer the guard did not follow.
type RedirectError struct {
	StatusCode int
	Location   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("urlguard: %d redirect to %s not followed", e.StatusCode, e.Location)
}

func (e *RedirectError) Unwrap() error { return ErrRedirect }

func (g *Guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > g.maxRedirects {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &RedirectError{StatusCode: status, Location: req.URL.String()}
	}
	if _, reason := g.parseTarget(req.URL); reason != "" {
		return refuse(reason, nil)
	}
	return nil
}

// Response is what came back: the status, the headers and at most the
// guard's cap of the body (Truncated when there was more).
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	Truncated  bool
}

// Do checks req's URL, sends it and reads the answer's prefix. Errors:
// BAD_URL (reason set) when the URL or a dialled address is refused, a
// *RedirectError for an unfollowed 3xx, or the transport's error
// (timeouts included).
func (g *Guard) Do(req *http.Request) (*Response, error) {
	if _, reason := g.parseTarget(req.URL); reason != "" {
		return nil, refuse(reason, nil)
	}
	res, err := g.client.Do(req)
	if err != nil {
		if e, ok := errors.AsType[*errs.Error](err); ok {
			return nil, e
		}
		if errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedNetwork) || errors.Is(err, ssrf.ErrInvalidHostPort) {
			return nil, refuse(ReasonPrivateAddress, err)
		}
		if re, ok := errors.AsType[*RedirectError](err); ok {
			return nil, re
		}
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, g.maxBody+1))
	if err != nil {
		return nil, err
	}
	out := &Response{StatusCode: res.StatusCode, Header: res.Header, Body: body}
	if int64(len(body)) > g.maxBody {
		out.Body, out.Truncated = body[:g.maxBody], true
	}
	return out, nil
}

// Get fetches rawURL.
func (g *Guard) Get(ctx context.Context, rawURL string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, refuse(ReasonMalformed, err)
	}
	return g.Do(req)
}

// Post sends body to rawURL with the given headers (Content-Type among
// them).
func (g *Guard) Post(ctx context.Context, rawURL string, header http.Header, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, refuse(ReasonMalformed, err)
	}
	for k, v := range header {
		req.Header[k] = slices.Clone(v)
	}
	return g.Do(req)
}
