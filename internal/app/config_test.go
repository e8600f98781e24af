package app

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"studio/internal/httpguard"
)

// TestLoadDefaults checks that an empty environment gives the table's
// defaults, and that each setting is read into the Config.
func TestLoadDefaults(t *testing.T) {
	c, err := Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Addr: ":8080", PublicURL: "http://localhost:8080", DataDir: "./data", WebOrigin: "http://localhost:8080",
		Signup: "open", FalURL: "https://queue.fal.run", Workers: 2, JobLease: 30 * time.Second, RenderDeadline: 10 * time.Minute, WorkerPoll: time.Second,
		Guard: httpguard.Options{HeaderTimeout: 5 * time.Second, BodyTimeout: 30 * time.Second, UploadTimeout: 5 * time.Minute,
			WriteTimeout: time.Minute, IdleTimeout: time.Minute, MaxPerClient: 256},
		DecodeMB: 1024, SweepEvery: time.Hour, SweepGrace: time.Hour, ShotDays: 30, ResendURL: "https://api.resend.com/", PolarURL: "https://api.polar.sh", AIImageModel: "gpt-image-1",
		FashnURL: "https://api.fashn.ai", EngineOrder: []string{"fashn", "fal", "image-api", "local"},
		publicFollows: true, webFollows: true}
	if fmt.Sprintf("%+v", c) != fmt.Sprintf("%+v", want) {
		t.Errorf("Load() =\n%+v\nwant\n%+v", c, want)
	}
	seen := map[string]bool{}
	for _, s := range Settings {
		if seen[s.Name] || s.set == nil || s.Help == "" || s.ShownDefault() == "" {
			t.Errorf("setting %s: listed twice, or without a setter, help or shown default", s.Name)
		}
		seen[s.Name] = true
	}
}

func TestLoad(t *testing.T) {
	env := map[string]string{
		"STUDIO_PUBLIC_URL": "https://studio.example.com/", "STUDIO_ADMIN_EMAILS": " Ada@Example.com, ,bo@example.com",
		"STUDIO_SIGNUP": "invite", "STUDIO_WORKERS": "8", "STUDIO_JOB_LEASE": "5s", "STUDIO_RENDER_DEADLINE": "15m", "DATABASE_URL": "postgres://x",
		"STUDIO_MAX_CONNS": "500", "STUDIO_MAX_CONNS_PER_CLIENT": "0", "STUDIO_BODY_TIMEOUT": "2s", "STUDIO_DECODE_BUDGET_MB": "64",
	}
	c, err := Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.PublicURL != "https://studio.example.com" || c.WebOrigin != "https://studio.example.com" ||
		strings.Join(c.AdminEmails, ",") != "ada@example.com,bo@example.com" || c.Signup != "invite" ||
		c.Workers != 8 || c.JobLease != 5*time.Second || c.RenderDeadline != 15*time.Minute || c.DatabaseURL != "postgres://x" ||
		c.Guard.MaxConns != 500 || c.Guard.MaxPerClient >= 0 || c.Guard.BodyTimeout != 2*time.Second || c.DecodeMB != 64 {
		t.Errorf("Load() = %+v", c)
	}
	for name, bad := range map[string]string{
		"STUDIO_PUBLIC_URL": "ftp://x", "STUDIO_SIGNUP": "closed", "STUDIO_WORKERS": "65",
		"STUDIO_JOB_LEASE": "10ms", "STUDIO_WORKER_POLL": "soon", "STUDIO_HEADER_TIMEOUT": "1ms",
		"STUDIO_MAX_CONNS": "-1", "STUDIO_MAX_CONNS_PER_CLIENT": "many", "STUDIO_DECODE_BUDGET_MB": "8",
		"STUDIO_SWEEP_GRACE": "0s", "STUDIO_RENDER_DEADLINE": "500ms", "STUDIO_ADDR": "8080",
	} {
		_, err := Load(func(k string) string {
			if k == name {
				return bad
			}
			return ""
		})
		if err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s=%q: %v; want an error naming %s", name, bad, err, name)
		}
	}
}

// TestAddr: STUDIO_ADDR is an address net.Listen takes, and a malformed
// one is refused by name before anything starts.
func TestAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		":8080": true, "127.0.0.1:18081": true, "[::1]:8080": true, "localhost:0": true, "0.0.0.0:80": true,
		"8080": false, "localhost": false, ":http": false, ":65536": false, "127.0.0.1:-1": false, "::1:8080": false, "http://localhost:8080": false,
	} {
		_, err := Load(func(k string) string {
			if k == "STUDIO_ADDR" {
				return addr
			}
			return ""
		})
		if ok != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), "STUDIO_ADDR: must be host:port") {
			t.Errorf("STUDIO_ADDR=%q: %v; want accepted %v", addr, err, ok)
		}
	}
}

// TestPublicURLFollowsAddr: with STUDIO_PUBLIC_URL unset, the public URL
// (and the web origin, unless WEB_ORIGIN is set) is where STUDIO_ADDR is
// reached at (localhost for a loopback address, as the tour writes it), so
// that a service moved to another port still takes its own pages' Origin;
// Listening names the port the system chose for port 0.
func TestPublicURLFollowsAddr(t *testing.T) {
	cases := []struct {
		name                   string
		env                    map[string]string
		bound                  string // the listener's address, for Listening
		wantPublic, wantOrigin string
	}{
		{name: "default", wantPublic: "http://localhost:8080", wantOrigin: "http://localhost:8080"},
		{name: "a port on every interface", env: map[string]string{"STUDIO_ADDR": ":18081"},
			wantPublic: "http://localhost:18081", wantOrigin: "http://localhost:18081"},
		{name: "a loopback address", env: map[string]string{"STUDIO_ADDR": "127.0.0.1:18081"},
			wantPublic: "http://localhost:18081", wantOrigin: "http://localhost:18081"},
		{name: "another address", env: map[string]string{"STUDIO_ADDR": "192.0.2.7:18081"},
			wantPublic: "http://192.0.2.7:18081", wantOrigin: "http://192.0.2.7:18081"},
		{name: "a host name", env: map[string]string{"STUDIO_ADDR": "studio.internal:18081"},
			wantPublic: "http://studio.internal:18081", wantOrigin: "http://studio.internal:18081"},
		{name: "the unspecified address", env: map[string]string{"STUDIO_ADDR": "0.0.0.0:9000"}, wantPublic: "http://localhost:9000", wantOrigin: "http://localhost:9000"},
		{name: "IPv6 loopback", env: map[string]string{"STUDIO_ADDR": "[::1]:9000"}, wantPublic: "http://localhost:9000", wantOrigin: "http://localhost:9000"},
		{name: "IPv6", env: map[string]string{"STUDIO_ADDR": "[2001:db8::7]:9000"}, wantPublic: "http://[2001:db8::7]:9000", wantOrigin: "http://[2001:db8::7]:9000"},
		{name: "IPv6 everywhere", env: map[string]string{"STUDIO_ADDR": "[::]:9000"}, wantPublic: "http://localhost:9000", wantOrigin: "http://localhost:9000"},
		{name: "port 0 follows the bound port", env: map[string]string{"STUDIO_ADDR": "127.0.0.1:0"}, bound: "127.0.0.1:40123",
			wantPublic: "http://localhost:40123", wantOrigin: "http://localhost:40123"},
		{name: "a set public URL stays", env: map[string]string{"STUDIO_ADDR": "127.0.0.1:0", "STUDIO_PUBLIC_URL": "https://studio.example.com/"}, bound: "127.0.0.1:40123",
			wantPublic: "https://studio.example.com", wantOrigin: "https://studio.example.com"},
		{name: "a set web origin stays", env: map[string]string{"STUDIO_ADDR": ":0", "WEB_ORIGIN": "https://app.example.com"}, bound: "[::]:40123",
			wantPublic: "http://localhost:40123", wantOrigin: "https://app.example.com"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(func(k string) string { return c.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if c.bound != "" {
				bound, err := net.ResolveTCPAddr("tcp", c.bound)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Listening(bound)
			}
			if cfg.PublicURL != c.wantPublic || cfg.WebOrigin != c.wantOrigin {
				t.Errorf("public URL %q, web origin %q; want %q and %q", cfg.PublicURL, cfg.WebOrigin, c.wantPublic, c.wantOrigin)
			}
		})
	}
}
