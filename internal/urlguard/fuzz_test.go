package urlguard

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseTarget: whatever the URL, a target that passes the syntax rules
// is either a public literal address or a dotted ASCII name outside the
// internal suffixes.
func FuzzParseTarget(f *testing.F) {
	for _, v := range refusedVectors {
		f.Add(v.at(443))
	}
	for _, v := range allowedVectors {
		f.Add(v)
	}
	g := New()
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		tg, reason := g.parseTarget(u)
		if reason != "" {
			return
		}
		switch {
		case tg.addr.IsValid():
			if g.guardian.SafeAddr(tg.addr) != nil || tg.addr.Zone() != "" {
				t.Fatalf("%q passed with address %s", raw, tg.addr)
			}
		case tg.name != "":
			if !isHostname(tg.name) || !strings.Contains(tg.name, ".") || endsInNumber(tg.name) {
				t.Fatalf("%q passed with name %q", raw, tg.name)
			}
			for _, s := range internalSuffixes {
				if tg.name == s || strings.HasSuffix(tg.name, "."+s) {
					t.Fatalf("%q passed with internal name %q", raw, tg.name)
				}
			}
		default:
			t.Fatalf("%q passed with no target", raw)
		}
	})
}

// FuzzMappedJudgedAsIPv4: an IPv4 address and its IPv4-mapped form get the
// same answer from the resolved-address check and from the dialer's
// Control, whatever the address and port.
func FuzzMappedJudgedAsIPv4(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "93.184.215.14", "8.8.8.8", "0.0.0.0", "100.64.1.1"} {
		a := netip.MustParseAddr(s).As4()
		f.Add(a[0], a[1], a[2], a[3], uint16(443))
	}
	g := New()
	f.Fuzz(func(t *testing.T, a, b, c, d byte, port uint16) {
		v4 := netip.AddrFrom4([4]byte{a, b, c, d})
		mapped := netip.AddrFrom16(v4.As16())
		if g.allowed(v4, port) != g.allowed(mapped, port) {
			t.Fatalf("%s and %s judged apart", v4, mapped)
		}
		e4 := g.control("tcp4", netip.AddrPortFrom(v4, port).String(), nil)
		e6 := g.control("tcp6", netip.AddrPortFrom(mapped, port).String(), nil)
		if (e4 == nil) != (e6 == nil) {
			t.Fatalf("Control: %s %v, %s %v", v4, e4, mapped, e6)
		}
	})
}
