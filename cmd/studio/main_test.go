package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"studio/internal/app"
)

func TestVersionAndHelp(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, os.Getenv, &out, io.Discard); err != nil || !strings.Contains(out.String(), app.Version) {
		t.Errorf("version: %v %q", err, out.String())
	}
	out.Reset()
	_ = run(context.Background(), []string{"serve", "--help"}, os.Getenv, &out, io.Discard)
	for _, s := range app.Settings {
		if !strings.Contains(out.String(), s.Name) || !strings.Contains(out.String(), s.ShownDefault()) {
			t.Errorf("serve --help lacks %s with its default %q", s.Name, s.ShownDefault())
		}
	}
	if err := run(context.Background(), []string{"bogus"}, os.Getenv, &out, io.Discard); err == nil {
		t.Error("an unknown command succeeded")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeAndDrain runs the real program on the embedded defaults: it
// creates its data folder, answers /health, says in one line beside its
// JSON log where to open it (the public URL follows STUDIO_ADDR), and on
// cancellation finishes an in-flight request before it returns.
func TestServeAndDrain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	env := map[string]string{"STUDIO_ADDR": addr, "STUDIO_DATA_DIR": dir}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	said := &lockedWriter{w: new(bytes.Buffer)}
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, &lockedWriter{w: &logs}, said)
	}()

	// A fresh folder is migrated before the service listens: seconds under
	// the race detector, and more on a loaded machine. The wait is a bound
	// on a hang, not a measure of start-up.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		res, err := http.Get("http://" + addr + "/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve returned before answering /health: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /health within 3 minutes: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "studio.db")); err != nil {
		t.Errorf("data folder not created: %v", err)
	}
	waitFor(t, said, "\n")
	if want := "studio: open http://localhost:" + port + "/ (sign in; http://localhost:" + port + "/docs is the API reference)\n"; said.String() != want {
		t.Errorf("serve said %q beside its log; want one line %q", said, want)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v after cancel", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	if _, err := http.Get("http://" + addr + "/health"); err == nil {
		t.Error("still serving after shutdown")
	}
}

// TestMigrate checks that migrate opens only the database: a blob store
// and a fal endpoint that do not answer do not stop it, and it creates no
// blob folder.
func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	env := map[string]string{
		"STUDIO_DATA_DIR": dir,
		"BLOB_URL":        "s3://no-such-bucket?endpoint=http://127.0.0.1:1&region=us-east-1",
		"FAL_KEY":         "key", "FAL_URL": "http://127.0.0.1:1",
	}
	if err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "migrations applied (sqlite)") {
		t.Errorf("migrate said %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "studio.db")); err != nil {
		t.Errorf("no database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "blobs")); !os.IsNotExist(err) {
		t.Errorf("migrate touched the blob store: %v", err)
	}
}
