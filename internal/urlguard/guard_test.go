package urlguard

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.dny.dev/ssrf"
)

// receiver is a local https server the guard may reach through the test
// hook, counting the requests each path got.
type receiver struct {
	srv  *httptest.Server
	hits map[string]*atomic.Int64
}

func startReceiver(t *testing.T, tls bool, routes map[string]http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{hits: map[string]*atomic.Int64{}}
	mux := http.NewServeMux()
	for path, h := range routes {
		n := &atomic.Int64{}
		r.hits[path] = n
		mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) {
			n.Add(1)
			h(w, req)
		})
	}
	if tls {
		r.srv = httptest.NewTLSServer(mux)
	} else {
		r.srv = httptest.NewServer(mux)
	}
	t.Cleanup(r.srv.Close)
	return r
}

// options let a guard reach this receiver and trust its certificate.
func (r *receiver) options(t *testing.T) []Option {
	addr := netip.MustParseAddrPort(r.srv.Listener.Addr().String())
	opts := []Option{AllowLoopbackForTest(t, addr)}
	if c := r.srv.Certificate(); c != nil {
		pool := x509.NewCertPool()
		pool.AddCert(c)
		opts = append(opts, WithRootCAs(pool))
	}
	return opts
}

func TestPostReachesAnAllowedReceiver(t *testing.T) {
	var got http.Header
	var body []byte
	r := startReceiver(t, true, map[string]http.HandlerFunc{
		"POST /hook": func(w http.ResponseWriter, req *http.Request) {
			got = req.Header.Clone()
			body, _ = io.ReadAll(req.Body)
			_, _ = io.WriteString(w, strings.Repeat("x", 100))
		},
	})
	g := New(append(r.options(t), WithMaxBody(10))...)
	if err := g.Check(context.Background(), r.srv.URL+"/hook"); err != nil {
		t.Fatalf("Check of the allowed receiver: %v", err)
	}
	res, err := g.Post(context.Background(), r.srv.URL+"/hook", http.Header{"Content-Type": {"application/json"}, "Webhook-Id": {"msg_1"}}, []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || string(res.Body) != "xxxxxxxxxx" || !res.Truncated {
		t.Errorf("got %d %q truncated=%v", res.StatusCode, res.Body, res.Truncated)
	}
	if got.Get("Webhook-Id") != "msg_1" || got.Get("Content-Type") != "application/json" || string(body) != `{"a":1}` {
		t.Errorf("receiver got %v %s", got, body)
	}
}

func TestAllowedReceiverOpensNothingElse(t *testing.T) {
	s := startSink(t)
	r := startReceiver(t, true, map[string]http.HandlerFunc{"/": func(http.ResponseWriter, *http.Request) {}})
	g := New(r.options(t)...)
	other := "https://127.0.0.1:" + strconv.Itoa(s.port) + "/"
	if err := g.Check(context.Background(), other); Reason(err) != ReasonPrivateAddress {
		t.Errorf("Check(%s) = %v", other, err)
	}
	if _, err := g.Get(context.Background(), other); Reason(err) != ReasonPrivateAddress {
		t.Errorf("Get(%s) = %v", other, err)
	}
	if n := s.accepted.Load(); n != 0 {
		t.Errorf("accepted %d", n)
	}
}

// TestRebindingGainsNothing: the name is public when registered and
// loopback when dialled; the dialer's Control refuses it.
func TestRebindingGainsNothing(t *testing.T) {
	s := startSink(t)
	d := startDNS(t)
	d.set("rebind.attacker.example", []string{"93.184.215.14"}, []string{"127.0.0.1"})
	g := New(WithResolver(d.resolver()))
	raw := "https://rebind.attacker.example:" + strconv.Itoa(s.port) + "/"
	if err := g.Check(context.Background(), raw); err != nil {
		t.Fatalf("registration: %v", err)
	}
	_, err := g.Get(context.Background(), raw)
	if Reason(err) != ReasonPrivateAddress || !errors.Is(err, ssrf.ErrProhibitedIP) {
		t.Errorf("delivery: %v", err)
	}
	if n := s.accepted.Load(); n != 0 {
		t.Errorf("accepted %d", n)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	r := startReceiver(t, true, map[string]http.HandlerFunc{
		"/moved":  func(w http.ResponseWriter, req *http.Request) { http.Redirect(w, req, "/target", http.StatusFound) },
		"/target": func(http.ResponseWriter, *http.Request) {},
	})
	g := New(r.options(t)...)
	_, err := g.Post(context.Background(), r.srv.URL+"/moved", nil, []byte("{}"))
	re, ok := errors.AsType[*RedirectError](err)
	if !ok || !errors.Is(err, ErrRedirect) || re.StatusCode != http.StatusFound || !strings.HasSuffix(re.Location, "/target") {
		t.Fatalf("got %v", err)
	}
	if n := r.hits["/target"].Load(); n != 0 {
		t.Errorf("the redirect target was hit %d times", n)
	}
}

func TestRedirectsFollowedWhenAllowedAreCheckedAgain(t *testing.T) {
	s := startSink(t)
	sinkURL := "https://127.0.0.1:" + strconv.Itoa(s.port) + "/"
	r := startReceiver(t, true, map[string]http.HandlerFunc{
		"/moved": func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, "/target", http.StatusMovedPermanently)
		},
		"/private": func(w http.ResponseWriter, req *http.Request) { http.Redirect(w, req, sinkURL, http.StatusFound) },
		"/plain": func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, "http://example.com/", http.StatusFound)
		},
		"/loop":   func(w http.ResponseWriter, req *http.Request) { http.Redirect(w, req, "/loop", http.StatusFound) },
		"/target": func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "here") },
	})
	g := New(append(r.options(t), WithRedirects(2))...)
	ctx := context.Background()
	if res, err := g.Get(ctx, r.srv.URL+"/moved"); err != nil || string(res.Body) != "here" {
		t.Errorf("followed redirect: %v %v", res, err)
	}
	if _, err := g.Get(ctx, r.srv.URL+"/private"); Reason(err) != ReasonPrivateAddress {
		t.Errorf("redirect into loopback: %v", err)
	}
	if _, err := g.Get(ctx, r.srv.URL+"/plain"); Reason(err) != ReasonNotHTTPS {
		t.Errorf("redirect to http: %v", err)
	}
	if _, err := g.Get(ctx, r.srv.URL+"/loop"); !errors.Is(err, ErrRedirect) {
		t.Errorf("redirect loop: %v", err)
	}
	if n := s.accepted.Load(); n != 0 {
		t.Errorf("accepted %d", n)
	}
}

func TestTimeoutBoundsTheExchange(t *testing.T) {
	release := make(chan struct{})
	r := startReceiver(t, true, map[string]http.HandlerFunc{
		// The receiver never answers: when the guard gives up, the
		// handler aborts rather than write an empty 200 that a loaded
		// machine could deliver before the connection closes.
		"/slow": func(w http.ResponseWriter, req *http.Request) {
			select {
			case <-req.Context().Done():
			case <-release:
			}
			panic(http.ErrAbortHandler)
		},
	})
	defer close(release)
	g := New(append(r.options(t), WithTimeout(300*time.Millisecond))...)
	start := time.Now()
	_, err := g.Get(context.Background(), r.srv.URL+"/slow")
	if err == nil || Reason(err) != "" {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestNoProxy(t *testing.T) {
	s := startSink(t)
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:"+strconv.Itoa(s.port))
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:"+strconv.Itoa(s.port))
	r := startReceiver(t, true, map[string]http.HandlerFunc{"/": func(http.ResponseWriter, *http.Request) {}})
	g := New(r.options(t)...)
	if g.client.Transport.(*http.Transport).Proxy != nil {
		t.Fatal("the transport has a proxy function")
	}
	if _, err := g.Get(context.Background(), r.srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if n := s.accepted.Load(); n != 0 {
		t.Errorf("the proxy was contacted %d times", n)
	}
}

func TestHTTPOnlyWhenAllowed(t *testing.T) {
	r := startReceiver(t, false, map[string]http.HandlerFunc{"/": func(http.ResponseWriter, *http.Request) {}})
	if _, err := New(r.options(t)...).Get(context.Background(), r.srv.URL+"/"); Reason(err) != ReasonNotHTTPS {
		t.Errorf("http without AllowHTTP: %v", err)
	}
	res, err := New(append(r.options(t), AllowHTTP())...).Get(context.Background(), r.srv.URL+"/")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("http with AllowHTTP: %v %v", res, err)
	}
	if err := New(AllowHTTP()).Check(context.Background(), "ftp://example.com/"); Reason(err) != ReasonNotHTTPS {
		t.Errorf("ftp with AllowHTTP: %v", err)
	}
}

type fatalTB struct {
	testing.TB
	fatal bool
}

func (f *fatalTB) Helper()               {}
func (f *fatalTB) Fatalf(string, ...any) { f.fatal = true }

func TestAllowLoopbackForTestWantsLoopback(t *testing.T) {
	for _, a := range []string{"10.0.0.1:443", "93.184.215.14:443", "127.0.0.1:0"} {
		tb := &fatalTB{TB: t}
		AllowLoopbackForTest(tb, netip.MustParseAddrPort(a))
		if !tb.fatal {
			t.Errorf("%s accepted", a)
		}
	}
}

func TestReason(t *testing.T) {
	if Reason(nil) != "" || Reason(errors.New("x")) != "" {
		t.Error("reason of a plain error")
	}
	err := New().Check(context.Background(), "http://example.com/")
	if e, ok := errors.AsType[interface{ Error() string }](err); !ok || Reason(e) != ReasonNotHTTPS {
		t.Errorf("got %v", err)
	}
}
