package urlguard

import (
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
