package urlguard

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// fakeDNS is a UDP DNS server on loopback that answers A and AAAA queries
// from a table the test controls; a name may answer differently on each
// query (rebinding). Unknown names are NXDOMAIN.
type fakeDNS struct {
	conn net.PacketConn

	mu      sync.Mutex
	answers map[string][][]netip.Addr // fqdn -> answer sets, consumed in order, the last repeating
	queries map[string]int
}

func startDNS(t *testing.T) *fakeDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{conn: conn, answers: map[string][][]netip.Addr{}, queries: map[string]int{}}
	go d.serve()
	t.Cleanup(func() { _ = conn.Close() })
	return d
}

// set makes name answer with addrs (A and AAAA split by family); with
// several sets, each query (per type) takes the next one.
func (d *fakeDNS) set(name string, sets ...[]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var parsed [][]netip.Addr
	for _, s := range sets {
		var as []netip.Addr
		for _, a := range s {
			as = append(as, netip.MustParseAddr(a))
		}
		parsed = append(parsed, as)
	}
	d.answers[strings.ToLower(name)+"."] = parsed
}

// resolver sends every query to this server, whatever /etc/resolv.conf says.
func (d *fakeDNS) resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", addr)
	}}
}

func (d *fakeDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := d.answer(buf[:n]); ok {
			_, _ = d.conn.WriteTo(out, from)
		}
	}
}

func (d *fakeDNS) answer(msg []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(q.Name.String())
	d.mu.Lock()
	sets, known := d.answers[name]
	key := name + q.Type.String()
	i := d.queries[key]
	d.queries[key]++
	d.mu.Unlock()

	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if known {
		set := sets[min(i, len(sets)-1)]
		rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
		for _, a := range set {
			switch {
			case q.Type == dnsmessage.TypeA && a.Is4():
				_ = b.AResource(rr, dnsmessage.AResource{A: a.As4()})
			case q.Type == dnsmessage.TypeAAAA && !a.Is4():
				_ = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
	}
	out, err := b.Finish()
	return out, err == nil
}
