package webhook_test

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"studio/internal/sqlstore"
	"studio/internal/urlguard"
	"studio/internal/webhook"
)

// fakeDNS is a UDP DNS server on loopback answering A and AAAA queries
// from a table the test changes as it goes (to rebind a name).
type fakeDNS struct {
	conn    net.PacketConn
	mu      sync.Mutex
	answers map[string][]netip.Addr // fqdn -> addresses
}

func startDNS(t *testing.T) *fakeDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{conn: conn, answers: map[string][]netip.Addr{}}
	go d.serve()
	t.Cleanup(func() { _ = conn.Close() })
	return d
}

func (d *fakeDNS) set(name string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var as []netip.Addr
	for _, a := range addrs {
		as = append(as, netip.MustParseAddr(a))
	}
	d.answers[strings.ToLower(name)+"."] = as
}

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
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		d.mu.Lock()
		addrs, known := d.answers[strings.ToLower(q.Name.String())]
		d.mu.Unlock()
		rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
		if !known {
			rh.RCode = dnsmessage.RCodeNameError
		}
		b := dnsmessage.NewBuilder(nil, rh)
		_ = b.StartQuestions()
		_ = b.Question(q)
		_ = b.StartAnswers()
		rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET}
		for _, a := range addrs {
			switch {
			case q.Type == dnsmessage.TypeA && a.Is4():
				_ = b.AResource(rr, dnsmessage.AResource{A: a.As4()})
			case q.Type == dnsmessage.TypeAAAA && !a.Is4():
				_ = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
		if out, err := b.Finish(); err == nil {
			_, _ = d.conn.WriteTo(out, from)
		}
	}
}

// TestNamesIntoPrivateSpace: names that resolve (through a resolver the
// test controls) into private space are refused at registration, and a
// name that resolved publicly at registration and points at a loopback
// listener by delivery time (DNS rebinding) is refused inside the dialer:
// the listener counts zero accepts.
func TestNamesIntoPrivateSpace(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepts atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	dns := startDNS(t)
	r := newReceiver(t) // only for the fixture's first endpoint
	f, s := newFixture(t, migratedDir(t), r, func(db *sqlstore.DB) *webhook.Service {
		return webhook.NewService(db, webhook.Options{Guard: urlguard.New(
			urlguard.WithResolver(dns.resolver()), urlguard.AllowLoopbackForTest(t, netip.MustParseAddrPort(r.srv.Listener.Addr().String())))})
	})
	for name, addrs := range map[string][]string{
		"loopback.example.com":  {"127.0.0.1"},
		"ten.example.com":       {"10.20.30.40"},
		"meta.example.com":      {"169.254.169.254"},
		"v6loop.example.com":    {"::1"},
		"mapped.example.com":    {"::ffff:127.0.0.1"},
		"ula.example.com":       {"fd00::1"},
		"mixed.example.com":     {"93.184.216.34", "192.168.0.10"},
		"mixed-six.example.com": {"93.184.216.34", "fe80::1"},
	} {
		dns.set(name, addrs...)
		_, err := s.Create(context.Background(), f.owner, webhook.CreateRequest{URL: "https://" + name + ":" + port + "/h", Events: []string{webhook.DevelopDone}})
		if urlguard.Reason(err) != urlguard.ReasonPrivateAddress {
			t.Errorf("%s -> %v: %v; want BAD_URL private-address", name, addrs, err)
		}
	}

	// Public at registration, loopback at delivery.
	dns.set("rebind.example.com", "93.184.216.34")
	e, err := s.Create(context.Background(), f.owner, webhook.CreateRequest{URL: "https://rebind.example.com:" + port + "/h", Events: []string{webhook.DevelopDone}})
	if err != nil {
		t.Fatal(err)
	}
	dns.set("rebind.example.com", "127.0.0.1")
	f.endpoint = e
	f.enqueue(t)
	if did, err := s.One(context.Background()); !did || err != nil {
		t.Fatalf("send: %v %v", did, err)
	}
	ds := f.deliveries(t, s)
	if len(ds) != 1 || ds[0].Status != webhook.Pending || ds[0].LastError == nil || !strings.Contains(*ds[0].LastError, "private-address") {
		t.Fatalf("deliveries %+v; want the attempt refused as private-address", ds)
	}
	if n := accepts.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections; want 0", n)
	}
}
