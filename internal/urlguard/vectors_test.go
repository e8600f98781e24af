package urlguard

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// vector is a URL the guard must refuse. {P} is the port of a loopback
// listener that counts accepts: a vector marked dial is also sent through
// the client, and if the guard let it through the connection could only
// land on this machine, where the listener would count it.
type vector struct {
	url, reason string
	dial        bool
}

var refusedVectors = []vector{
	// IPv4 loopback in every spelling a resolver or browser accepts.
	{"https://127.0.0.1:{P}/", ReasonPrivateAddress, true},
	{"https://127.0.0.2:{P}/", ReasonPrivateAddress, true},
	{"https://2130706433:{P}/", ReasonPrivateAddress, true},
	{"https://0x7f000001:{P}/", ReasonPrivateAddress, true},
	{"https://0X7F000001:{P}/", ReasonPrivateAddress, true},
	{"https://0177.0.0.1:{P}/", ReasonPrivateAddress, true},
	{"https://0177.0000.0000.0001:{P}/", ReasonPrivateAddress, true},
	{"https://0x7f.0x0.0x0.0x1:{P}/", ReasonPrivateAddress, true},
	{"https://0x7f.1:{P}/", ReasonPrivateAddress, true},
	{"https://0177.1:{P}/", ReasonPrivateAddress, true},
	{"https://127.1:{P}/", ReasonPrivateAddress, true},
	{"https://127.0.1:{P}/", ReasonPrivateAddress, true},
	{"https://017700000001:{P}/", ReasonPrivateAddress, true},
	{"https://127.000.000.001:{P}/", ReasonPrivateAddress, true},
	{"https://127.0.0.1.:{P}/", ReasonPrivateAddress, true},
	{"https://0177.0.0.1.:{P}/", ReasonPrivateAddress, true},
	{"https://%31%32%37.0.0.1:{P}/", ReasonMalformed, true},
	{"https://0:{P}/", ReasonPrivateAddress, true},
	{"https://0.0.0.0:{P}/", ReasonPrivateAddress, true},
	{"https://0x0:{P}/", ReasonPrivateAddress, true},
	// IPv6 loopback, unspecified and IPv4-mapped loopback.
	{"https://[::1]:{P}/", ReasonPrivateAddress, true},
	{"https://[0:0:0:0:0:0:0:1]:{P}/", ReasonPrivateAddress, true},
	{"https://[::]:{P}/", ReasonPrivateAddress, true},
	{"https://[::ffff:127.0.0.1]:{P}/", ReasonPrivateAddress, true},
	{"https://[::ffff:7f00:1]:{P}/", ReasonPrivateAddress, true},
	{"https://[0:0:0:0:0:ffff:127.0.0.1]:{P}/", ReasonPrivateAddress, true},
	{"https://[::1%25lo]:{P}/", ReasonPrivateAddress, true},
	// Names that only mean something inside a network.
	{"https://localhost:{P}/", ReasonInternalHostname, true},
	{"https://LOCALHOST:{P}/", ReasonInternalHostname, true},
	{"https://localhost.:{P}/", ReasonInternalHostname, true},
	{"https://LocalHost.:{P}/", ReasonInternalHostname, true},
	{"https://app.localhost:{P}/", ReasonInternalHostname, true},
	{"https://%6c%6f%63%61%6c%68%6f%73%74:{P}/", ReasonMalformed, true},
	{"https://metadata.google.internal:{P}/", ReasonInternalHostname, true},
	{"https://api.internal:{P}/", ReasonInternalHostname, true},
	{"https://printer.local:{P}/", ReasonInternalHostname, true},
	{"https://INTRANET.LOCAL.:{P}/", ReasonInternalHostname, true},
	{"https://db.default.svc:{P}/", ReasonInternalHostname, true},
	{"https://kubernetes.default.svc.cluster.local:{P}/", ReasonInternalHostname, true},
	{"https://router.home.arpa:{P}/", ReasonInternalHostname, true},
	{"https://box.localdomain:{P}/", ReasonInternalHostname, true},
	{"https://intranet:{P}/", ReasonSingleLabel, true},
	{"https://Intranet.:{P}/", ReasonSingleLabel, true},
	// Hosts that are not host names.
	{"https://ｌｏｃａｌｈｏｓｔ:{P}/", ReasonMalformed, true},
	{"https://①②⑦.⓪.⓪.①:{P}/", ReasonMalformed, true},
	{"https://1.2.3.4.5:{P}/", ReasonMalformed, true},
	{"https://256.1.1.1:{P}/", ReasonMalformed, true},
	{"https://0x100000000:{P}/", ReasonMalformed, true},
	{"https://example.123:{P}/", ReasonMalformed, true},
	{"https://127.0.0.1..:{P}/", ReasonMalformed, true},
	{"https://[127.0.0.1]:{P}/", ReasonMalformed, true},
	{"https://127.0.0.1:0/", ReasonMalformed, true},
	{"https:///x", ReasonMalformed, true},
	{"//127.0.0.1:{P}/", ReasonMalformed, true},
	{"javascript:alert(1)", ReasonMalformed, true},
	{"file:///etc/passwd", ReasonMalformed, true},
	// Schemes and user-information tricks.
	{"http://127.0.0.1:{P}/", ReasonNotHTTPS, true},
	{"HTTP://www.example.com/", ReasonNotHTTPS, false},
	{"gopher://127.0.0.1:{P}/", ReasonNotHTTPS, true},
	{"https://example.com@127.0.0.1:{P}/", ReasonUserinfo, true},
	{"https://user:pass@localhost:{P}/", ReasonUserinfo, true},
	{"https://127.0.0.1:{P}#@example.com/", ReasonPrivateAddress, true},
	{"https://127.0.0.1:{P}?@example.com/", ReasonPrivateAddress, true},
	// Names that resolve into private space (through the test's resolver).
	{"https://loop.attacker.example:{P}/", ReasonPrivateAddress, true},
	{"https://LOOP.Attacker.Example.:{P}/", ReasonPrivateAddress, true},
	{"https://loop6.attacker.example:{P}/", ReasonPrivateAddress, true},
	{"https://mapped.attacker.example:{P}/", ReasonPrivateAddress, true},
	{"https://both.attacker.example:{P}/", ReasonPrivateAddress, true},
	{"https://zero.attacker.example:{P}/", ReasonPrivateAddress, true},
	{"https://127.0.0.1.nip.io:{P}/", ReasonPrivateAddress, true},
	{"https://rfc1918.attacker.example/", ReasonPrivateAddress, false},
	{"https://metadata.attacker.example/", ReasonPrivateAddress, false},
	{"https://cgnat.attacker.example/", ReasonPrivateAddress, false},
	{"https://ula.attacker.example/", ReasonPrivateAddress, false},
	{"https://mixed.attacker.example/", ReasonPrivateAddress, false},
	{"https://nx.attacker.example/", ReasonUnresolvable, false},
	// Other private and reserved IPv4 space (checked, never dialled).
	{"https://10.0.0.1/", ReasonPrivateAddress, false},
	{"https://10.255.255.255/", ReasonPrivateAddress, false},
	{"https://10.1/", ReasonPrivateAddress, false},
	{"https://172.16.0.1/", ReasonPrivateAddress, false},
	{"https://172.31.255.254/", ReasonPrivateAddress, false},
	{"https://192.168.1.1/", ReasonPrivateAddress, false},
	{"https://192.168.257/", ReasonPrivateAddress, false},
	{"https://0xc0a80101/", ReasonPrivateAddress, false},
	{"https://169.254.169.254/latest/meta-data/", ReasonPrivateAddress, false},
	{"https://0xa9fea9fe/", ReasonPrivateAddress, false},
	{"https://2852039166/", ReasonPrivateAddress, false},
	{"https://0251.0376.0251.0376/", ReasonPrivateAddress, false},
	{"https://100.64.0.1/", ReasonPrivateAddress, false},
	{"https://100.127.255.254/", ReasonPrivateAddress, false},
	{"https://224.0.0.1/", ReasonPrivateAddress, false},
	{"https://239.255.255.250/", ReasonPrivateAddress, false},
	{"https://255.255.255.255/", ReasonPrivateAddress, false},
	{"https://198.18.0.1/", ReasonPrivateAddress, false},
	// IPv6 private space and IPv4 embedded in IPv6.
	{"https://[fc00::1]/", ReasonPrivateAddress, false},
	{"https://[fd12:3456:789a::1]/", ReasonPrivateAddress, false},
	{"https://[fe80::1]/", ReasonPrivateAddress, false},
	{"https://[fe80::1%25eth0]/", ReasonPrivateAddress, false},
	{"https://[ff02::1]/", ReasonPrivateAddress, false},
	{"https://[::ffff:10.0.0.1]/", ReasonPrivateAddress, false},
	{"https://[::ffff:a9fe:a9fe]/", ReasonPrivateAddress, false},
	{"https://[::10.0.0.1]/", ReasonPrivateAddress, false},
	{"https://[64:ff9b::a9fe:a9fe]/", ReasonPrivateAddress, false},
	{"https://[64:ff9b::127.0.0.1]/", ReasonPrivateAddress, false},
	{"https://[2002:7f00:1::1]/", ReasonPrivateAddress, false},
	{"https://[2002:a9fe:a9fe::]/", ReasonPrivateAddress, false},
	{"https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", ReasonPrivateAddress, false},
	{"https://[2001:db8::1]/", ReasonPrivateAddress, false},
	// A public IPv4 address written IPv4-mapped.
	{"https://[::ffff:93.184.215.14]/", ReasonNonCanonicalIP, false},
	{"https://[::ffff:5db8:d70e]/", ReasonNonCanonicalIP, false},
	// A public address in a form resolvers disagree about.
	{"https://134744072/", ReasonNonCanonicalIP, false},
	{"https://010.010.010.010/", ReasonNonCanonicalIP, false},
	{"https://8.8.2056/", ReasonNonCanonicalIP, false},
}

var allowedVectors = []string{
	"https://example.com/hook",
	"https://Example.COM./hook",
	"https://hooks.example.com:8443/p?q=1",
	"https://example.com#@127.0.0.1/",
	"https://xn--bcher-kva.example/",
	"https://under_score.example.com/",
	"https://8.8.8.8/",
	"https://[2606:4700:4700::1111]/",
	"https://1.1.1.1:8443/",
	// A name answered IPv4-mapped, as Go's resolver answers /etc/hosts.
	"https://hosts-file.example.com/",
}

// sink is a loopback listener on one port (IPv4 and, where the machine
// has it, IPv6) that counts every connection it accepts.
type sink struct {
	port     int
	accepted atomic.Int64
}

func startSink(t *testing.T) *sink {
	t.Helper()
	s := &sink{}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	lns := []net.Listener{ln}
	if ln6, err := net.Listen("tcp6", "[::1]:"+strconv.Itoa(s.port)); err == nil {
		lns = append(lns, ln6)
	}
	for _, l := range lns {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				s.accepted.Add(1)
				_ = c.Close()
			}
		}()
		t.Cleanup(func() { _ = l.Close() })
	}
	return s
}

// attackerDNS answers every name the vectors resolve.
func attackerDNS(t *testing.T) *fakeDNS {
	d := startDNS(t)
	for _, n := range []string{
		"loop.attacker.example", "127.0.0.1.nip.io",
		// The name rules refuse these first; if they did not, the
		// dialer would still meet loopback.
		"metadata.google.internal", "api.internal", "printer.local", "intranet.local",
		"db.default.svc", "kubernetes.default.svc.cluster.local", "router.home.arpa",
		"box.localdomain", "app.localhost", "intranet", "localhost",
	} {
		d.set(n, []string{"127.0.0.1"})
	}
	d.set("loop6.attacker.example", []string{"::1"})
	d.set("mapped.attacker.example", []string{"::ffff:127.0.0.1"})
	d.set("both.attacker.example", []string{"127.0.0.1", "::1"})
	d.set("zero.attacker.example", []string{"0.0.0.0"})
	d.set("rfc1918.attacker.example", []string{"10.1.2.3"})
	d.set("metadata.attacker.example", []string{"169.254.169.254"})
	d.set("cgnat.attacker.example", []string{"100.64.1.1"})
	d.set("ula.attacker.example", []string{"fd00::1"})
	d.set("mixed.attacker.example", []string{"93.184.215.14", "10.0.0.1"})
	d.set("example.com", []string{"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"})
	d.set("hooks.example.com", []string{"93.184.215.14"})
	d.set("hosts-file.example.com", []string{"::ffff:93.184.215.14"})
	d.set("xn--bcher-kva.example", []string{"93.184.215.15"})
	d.set("under_score.example.com", []string{"93.184.215.16"})
	return d
}

func (v vector) at(port int) string { return strings.ReplaceAll(v.url, "{P}", strconv.Itoa(port)) }

// TestRefusedVectors: every vector is refused by Check with its reason;
// those marked dial are refused by the client as well, and the loopback
// listener they would reach accepts nothing; every literal address among
// them is refused by the dialer's Control too.
func TestRefusedVectors(t *testing.T) {
	if len(refusedVectors) < 50 {
		t.Fatalf("only %d vectors", len(refusedVectors))
	}
	s := startSink(t)
	g := New(WithResolver(attackerDNS(t).resolver()))
	ctx := context.Background()
	dialled := 0
	for _, v := range refusedVectors {
		raw := v.at(s.port)
		if err := g.Check(ctx, raw); Reason(err) != v.reason {
			t.Errorf("Check(%q) = %v; want reason %s", raw, err, v.reason)
		}
		if v.dial {
			dialled++
			res, err := g.Get(ctx, raw)
			if err == nil {
				t.Errorf("Get(%q) answered %d", raw, res.StatusCode)
			} else if Reason(err) != v.reason {
				t.Errorf("Get(%q) = %v; want reason %s", raw, err, v.reason)
			}
		}
		if u, err := url.Parse(raw); err == nil && v.reason != ReasonNonCanonicalIP {
			// (A non-canonical address is refused for its spelling; the
			// public address it spells may be dialled.)
			if a, err := netip.ParseAddr(u.Hostname()); err == nil {
				ap := netip.AddrPortFrom(a, uint16(s.port)).String()
				if g.control("tcp6", ap, nil) == nil {
					t.Errorf("Control let %s through", ap)
				}
			}
		}
	}
	if n := s.accepted.Load(); n != 0 {
		t.Errorf("the loopback listener accepted %d connections", n)
	}
	t.Logf("%d refused vectors (%d also sent through the client), %d allowed", len(refusedVectors), dialled, len(allowedVectors))
}

func TestAllowedVectors(t *testing.T) {
	g := New(WithResolver(attackerDNS(t).resolver()))
	for _, raw := range allowedVectors {
		if err := g.Check(context.Background(), raw); err != nil {
			t.Errorf("Check(%q) = %v", raw, err)
		}
	}
}
