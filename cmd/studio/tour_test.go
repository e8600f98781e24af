package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// tourSetup is the README tour's first block: build the binary, put it on
// PATH, start the service. The harness does the same (the program built
// once for this package's tests as bin/studio, the service in the
// background, on a free port, with a fresh data folder); a change to the
// block fails here until the harness follows it.
var tourSetup = []string{
	"go build -o bin/studio ./cmd/studio",
	`export PATH="$PWD/bin:$PATH"`,
	"studio serve",
}

// tourBase is the tour's line naming the service's URL; the harness
// changes its port, nothing else.
const tourBase = "BASE=http://localhost:8080"

// TestReadmeTour runs every command of the README's "Trying it with curl"
// with bash against the built binary, so the tour cannot rot: each shell
// block in turn, under set -euo pipefail, in a fresh folder, against a
// service the harness started there as the tour says (studio serve). A
// reader whose port 8080 is taken changes only the port, and so does the
// harness: it sets STUDIO_ADDR=127.0.0.1:<a free port> and nothing else
// (the public URL follows the address; the data stay in ./data, where
// studio tokens grant finds them), and BASE's port.
func TestReadmeTour(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, tool := range []string{"bash", "curl", "jq", "go"} { // go builds the program (plainProgram)
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the tour needs %s (make test installs it): %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := tourBlocks(t, filepath.Join(root, "README.md"))
	if got := strings.Split(strings.TrimSpace(blocks[0]), "\n"); !slices.Equal(got, tourSetup) {
		t.Fatalf("the tour's first block is %q; the harness runs %q: update one or the other", got, tourSetup)
	}
	script := strings.Join(blocks[1:], "\n")
	if strings.Count(script, tourBase+"\n") != 1 {
		t.Fatalf("the tour must set %s once", tourBase)
	}

	// The tour's bin/studio, in a temporary bin folder: this package's
	// program without the race detector (the tour develops a 2k packshot
	// and a look), the build TestScale runs too (plainProgram), named
	// studio so that it runs as the program (TestMain). It is the
	// command's main package with this package's tests beside it, which
	// only add TestMain's switch; the tour's own `go build` of
	// ./cmd/studio is the one scripts/mcp-inspector.sh makes in every
	// make test.
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(plainProgram(t), filepath.Join(bin, "studio")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work") // the reader's shell: the repository's docs, and room for the files the tour writes
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "docs"), filepath.Join(work, "docs")); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	base := strings.Replace(strings.TrimPrefix(tourBase, "BASE="), ":8080", ":"+port, 1)
	env := tourEnv(map[string]string{
		"PATH":        bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"STUDIO_ADDR": addr,
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var serveLog bytes.Buffer
	serve := exec.CommandContext(ctx, filepath.Join(bin, "studio"), "serve")
	serve.Dir, serve.Env, serve.Stdout, serve.Stderr = work, env, &serveLog, &serveLog
	serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
	serve.WaitDelay = 30 * time.Second
	dieWithTest(serve)
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = serve.Process.Signal(os.Interrupt)
		_ = serve.Wait()
		if t.Failed() {
			t.Logf("studio serve's log:\n%s", tail(serveLog.String(), 4000))
		}
	}()
	waitHealthy(t, base)

	start := time.Now()
	// The harness appends one line: the key the tour minted, on stderr, for the checks below.
	run := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+strings.Replace(script, tourBase+"\n", "BASE="+base+"\n", 1)+
		"\necho \"tour-key=$KEY\" >&2\n")
	run.Dir, run.Env = work, env
	var out, errOut bytes.Buffer
	run.Stdout, run.Stderr = &out, &errOut
	if err := run.Run(); err != nil {
		t.Fatalf("the tour failed: %v\nstdout:\n%s\nstderr:\n%s", err, tail(out.String(), 4000), tail(errOut.String(), 4000))
	}
	t.Logf("the tour ran in %v", time.Since(start).Round(time.Millisecond))
	got := out.String()

	// What the reader is told to expect.
	for _, want := range []string{`"status":"ok"`, `"error":"BAD_OPTION"`, `"legal":["#rrggbb"]`, `"option":"color"`, `"locked"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the tour's output lacks %s:\n%s", want, tail(got, 4000))
		}
	}
	f, err := os.Open(filepath.Join(work, "packshot.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := jpeg.DecodeConfig(f); err != nil || max(cfg.Width, cfg.Height) != 2048 {
		t.Errorf("packshot.jpg: %dx%d %v; want a 2k JPEG", cfg.Width, cfg.Height, err)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	var balance struct{ Balance, Grant, Held int64 }
	for _, l := range lines {
		if strings.HasPrefix(l, `{"balance":`) {
			if err := json.Unmarshal([]byte(l), &balance); err != nil {
				t.Fatal(err)
			}
		}
	}
	// 60 + 200 granted, less packshot 2k (6), upscale 1k (2), the look's
	// base frame and two variations, local proofs at 1 token each
	// (DECISIONS §11): nothing held at the end.
	if balance.Balance != 260-6-2-1-2 || balance.Held != 0 {
		t.Errorf("balance %+v; want %d spendable and nothing held", balance, 260-6-2-1-2)
	}
	var assets struct{ Assets []json.RawMessage }
	_, key, _ := strings.Cut(errOut.String(), "tour-key=")
	res := getJSON(t, base+"/api/toolkit/assets", strings.TrimSpace(key))
	if err := json.Unmarshal(res, &assets); err != nil {
		t.Fatal(err)
	}
	// The garment, the model, and five frames: the upscale's input was the garment again.
	if len(assets.Assets) != 7 {
		t.Errorf("the library holds %d assets; want 7 (two uploads and five frames)", len(assets.Assets))
	}
}

// tourBlocks returns the ```sh blocks of the README's tour section.
func tourBlocks(t *testing.T, readme string) []string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## Trying it with curl\n")
	if i < 0 {
		t.Fatal(`README.md has no "## Trying it with curl" section`)
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(s, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) < 2 {
		t.Fatalf("the tour has %d shell blocks; want the setup and the tour", len(blocks))
	}
	return blocks
}

// tourEnv is the process environment without the settings that would
// send the service elsewhere (a database, a bucket, providers), with set.
func tourEnv(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || strings.HasPrefix(k, "STUDIO_") || slices.Contains([]string{"DATABASE_URL", "BLOB_URL", "FAL_KEY",
			"AI_BASE_URL", "AI_API_KEY", "AI_MODEL", "AI_IMAGE_BASE_URL", "AI_IMAGE_API_KEY", "AI_IMAGE_MODEL", "SMTP_URL", "WEB_ORIGIN"}, k) {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(base + "/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /health within 30 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func getJSON(t *testing.T, url, key string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b.String())
	}
	return b.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
