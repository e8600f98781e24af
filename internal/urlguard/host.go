package urlguard

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Refusal reasons, sent as the `reason` field of a BAD_URL answer.
const (
	ReasonMalformed        = "malformed"         // not an absolute URL with a host, or a host with illegal characters
	ReasonNotHTTPS         = "not-https"         // another scheme (http only where the guard allows it)
	ReasonUserinfo         = "userinfo"          // a user name or password in the URL
	ReasonInternalHostname = "internal-hostname" // localhost, *.internal, *.local, *.svc ...
	ReasonSingleLabel      = "single-label"      // a host name without a dot
	ReasonPrivateAddress   = "private-address"   // an address (literal or resolved) outside public unicast space
	ReasonNonCanonicalIP   = "non-canonical-ip"  // a public IPv4 address written in decimal, octal, hex or short form, or IPv4-mapped
	ReasonUnresolvable     = "unresolvable"      // the name has no address
)

// internalSuffixes are names that only mean something inside a network:
// a host equal to one of them, or ending in "." + one of them, is refused.
var internalSuffixes = []string{
	"localhost",   // RFC 6761
	"local",       // mDNS, RFC 6762
	"internal",    // ICANN's private-use TLD; cloud metadata (metadata.google.internal)
	"svc",         // Kubernetes services (svc.cluster.local, name.namespace.svc)
	"home.arpa",   // RFC 8375
	"localdomain", // the Unix default domain
}

// target is a URL's host after the syntax rules: a literal address, or a
// normalised name (lower case, no trailing dot) still to resolve.
type target struct {
	name string
	addr netip.Addr // valid for a literal address
	port uint16
}

// parseTarget applies every rule that needs no resolver. It returns a
// reason, or "" when the URL may go on to resolution.
func (g *Guard) parseTarget(u *url.URL) (target, string) {
	if u == nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" {
		return target{}, ReasonMalformed
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.allowHTTP {
			return target{}, ReasonNotHTTPS
		}
	default:
		return target{}, ReasonNotHTTPS
	}
	if u.User != nil {
		return target{}, ReasonUserinfo
	}
	t := target{port: 443}
	if strings.ToLower(u.Scheme) == "http" {
		t.port = 80
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return target{}, ReasonMalformed
		}
		t.port = uint16(n)
	}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return target{}, ReasonMalformed
		}
		t.addr = a
		if a.Is4In6() {
			// ::ffff:a.b.c.d is a.b.c.d written another way: refused as
			// private when that address is, else as non-canonical.
			if r := g.addrReason(a, t.port); r != "" {
				return t, r
			}
			return t, ReasonNonCanonicalIP
		}
		return t, g.addrReason(a, t.port)
	}
	host = strings.ToLower(host)
	host = strings.TrimSuffix(host, ".")
	if !isHostname(host) {
		return target{}, ReasonMalformed
	}
	if endsInNumber(host) {
		// As a browser's URL parser and inet_aton(3) do: a host whose last
		// label is a number is an IPv4 address or nothing.
		a, ok := parseIPv4(host)
		if !ok {
			return target{}, ReasonMalformed
		}
		t.addr = a
		if r := g.addrReason(a, t.port); r != "" {
			return t, r
		}
		if host != a.String() {
			return t, ReasonNonCanonicalIP
		}
		return t, ""
	}
	for _, s := range internalSuffixes {
		if host == s || strings.HasSuffix(host, "."+s) {
			return target{}, ReasonInternalHostname
		}
	}
	if !strings.Contains(host, ".") {
		return target{}, ReasonSingleLabel
	}
	t.name = host
	return t, ""
}

// addrReason is ReasonPrivateAddress unless a may be dialled.
func (g *Guard) addrReason(a netip.Addr, port uint16) string {
	if g.allowed(a, port) {
		return ""
	}
	return ReasonPrivateAddress
}

// isHostname reports whether h is ASCII letters, digits, hyphens and
// underscores in dot-separated labels of 1 to 63 characters, at most 253
// in all. Anything else (other Unicode forms of digits or letters, percent
// signs, spaces, a second trailing dot) is refused rather than guessed at.
func isHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// endsInNumber reports whether the last label of h is a decimal, octal or
// hex number (the WHATWG URL standard's "ends in a number").
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		for i := 0; i < len(last); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(last[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return last != ""
}

// parseIPv4 reads h the way inet_aton(3) does: one to four parts, each
// decimal, octal (a leading 0) or hex (0x); the last part fills the bytes
// the others leave, so 127.1, 2130706433, 0x7f.1 and 0177.0.0.1 are all
// 127.0.0.1.
func parseIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		rest := 8 * uint(4-i) // bits the last part fills
		if n >= 1<<rest {
			return netip.Addr{}, false
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" alone is zero, as browsers read it
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}
