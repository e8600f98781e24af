package app

import (
	"fmt"
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
		DecodeMB: 1024, SweepEvery: time.Hour, SweepGrace: time.Hour, ShotDays: 30, ResendURL: "https://api.resend.com/", PolarURL: "https://api.polar.sh", AIImageModel: "gpt-image-1"}
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
		"STUDIO_SWEEP_GRACE": "0s", "STUDIO_RENDER_DEADLINE": "500ms",
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
