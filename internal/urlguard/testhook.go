package urlguard

import (
	"net/netip"
	"testing"
)

// AllowLoopbackForTest lets the guard reach exactly one loopback address
// and port (a test's local receiver, e.g. httptest.NewTLSServer's), at
// registration and at dial time; every other private address stays
// refused. It takes the test's testing.TB and panics outside a test binary
// (testing.Testing), so production code cannot enable it by accident; a
// non-loopback address fails the test.
//
// The webhook feature's tests use it like this: start the receiver with
// httptest.NewTLSServer, build the delivery worker's guard with
// urlguard.New(urlguard.AllowLoopbackForTest(t, addr),
// urlguard.WithRootCAs(pool)) where addr is the receiver's listener
// address (netip.MustParseAddrPort(srv.Listener.Addr().String())) and pool
// holds srv.Certificate(), and register the endpoint as srv.URL
// (https://127.0.0.1:PORT/...). The app wiring takes the guard (or its
// options) as a dependency, so the harness can pass this one in.
func AllowLoopbackForTest(tb testing.TB, addr netip.AddrPort) Option {
	tb.Helper()
	if !testing.Testing() {
		panic("urlguard: AllowLoopbackForTest outside a test binary")
	}
	if !addr.Addr().Unmap().IsLoopback() || addr.Port() == 0 {
		tb.Fatalf("urlguard: AllowLoopbackForTest wants a loopback address and port, got %s", addr)
	}
	addr = netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port())
	return func(g *Guard) { g.testAllow = append(g.testAllow, addr) }
}
