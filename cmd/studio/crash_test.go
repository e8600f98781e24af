package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/sqlstore"
)

// The test binary doubles as the studio program, so a test can run it as a
// child process and kill it: with STUDIO_AS_PROGRAM=1, or when it is run
// by the name studio (TestReadmeTour puts it on the tour's PATH so).
func TestMain(m *testing.M) {
	if os.Getenv("STUDIO_AS_PROGRAM") == "1" || filepath.Base(os.Args[0]) == "studio" {
		coreOptions = childOptions()
		os.Exit(program())
	}
	code := m.Run()
	if plain.dir != "" {
		_ = os.RemoveAll(plain.dir)
	}
	os.Exit(code)
}

// migratedData returns a new data folder holding a copy of a SQLite
// database migrated once per test binary (apptest's template, as the test
// apps use): migrating a fresh file costs some 4 CPU s under the race
// detector, in the process that opens it. The program still runs its
// migrations on open and finds none left to apply. The migrations of an
// empty folder are still run by TestMigrate, TestServeAndDrain and
// TestReadmeTour's service (and on an empty PostgreSQL schema by the
// cluster tests and TestSeveralInstances).
func migratedData(t *testing.T) string {
	t.Helper()
	return apptest.SQLite(t).DataDir
}

// startChild runs the program on dir and addr (SQLite, a one-second job
// lease); env adds or overrides settings. The child is killed when the test
// ends, if the test did not stop it, or when the test binary dies.
func startChild(t *testing.T, dir, addr string, logs io.Writer, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve")
	cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_DATA_DIR="+dir, "STUDIO_ADDR="+addr,
		"STUDIO_PUBLIC_URL=http://"+addr, "STUDIO_WORKERS=1", "STUDIO_JOB_LEASE=1s", "DATABASE_URL=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logs, logs
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails before it stopped the child (Fatal) leaves it to this.
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	deadline := time.Now().Add(serveWithin)
	for time.Now().Before(deadline) {
		if res, err := http.Get("http://" + addr + "/health"); err == nil {
			res.Body.Close()
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	t.Fatalf("child did not serve within %v", serveWithin)
	return nil
}

// TestWorkerKilledRecovers kills the process (SIGKILL) while it renders,
// starts it again on the same data, and checks every job settles and every
// hold resolves exactly once.
func TestWorkerKilledRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir, addr := migratedData(t), freeAddr(t)
	logs := &lockedWriter{w: new(bytes.Buffer)}
	first := startChild(t, dir, addr, logs)
	base := "http://" + addr
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	post := func(path, ctype string, body []byte, key string) map[string]any {
		req, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Origin", base)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		if res.StatusCode >= 300 {
			t.Fatalf("%s: %d %v", path, res.StatusCode, m)
		}
		return m
	}
	post("/api/auth/sign-up/email", "application/json", []byte(`{"name":"Crash","email":"crash@example.com","password":"a long password"}`), "")
	key := post("/api/keys", "application/json", []byte(`{"name":"k"}`), "")["key"].(string)
	img := product(400, 500)
	const n = 4
	for range n {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		_ = w.WriteField("tool", "upscale")
		_ = w.WriteField("quality", "1k")
		fw, _ := w.CreateFormFile("image", "p.jpg")
		_, _ = fw.Write(img)
		_ = w.Close()
		post("/api/toolkit/jobs/submit", w.FormDataContentType(), b.Bytes(), key)
	}
	jobs := func() []struct{ Status string } {
		req, _ := http.NewRequest("GET", base+"/api/toolkit/jobs?since=0", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := c.Do(req)
		if err != nil {
			return nil
		}
		defer res.Body.Close()
		var body struct{ Jobs []struct{ Status string } }
		_ = json.NewDecoder(res.Body).Decode(&body)
		return body.Jobs
	}
	deadline := time.Now().Add(30 * time.Second)
	for running := false; !running; {
		for _, j := range jobs() {
			running = running || j.Status == "running"
		}
		if time.Now().After(deadline) {
			t.Fatalf("no job started rendering:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	second := startChild(t, dir, addr, logs)
	deadline = time.Now().Add(300 * time.Second) // renders are slow under -race
	for {
		settled := 0
		js := jobs()
		for _, j := range js {
			if j.Status == "done" || j.Status == "failed" {
				settled++
			}
		}
		if len(js) == n && settled == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs did not settle after the restart: %+v\n%s", js, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = second.Process.Signal(syscall.SIGTERM)
	_ = second.Wait()

	db, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var house string
	var pending, resolved int
	if err := db.QueryTest(context.Background(), `SELECT organization_id FROM jobs LIMIT 1`, &house); err != nil {
		t.Fatal(err)
	}
	_ = db.QueryTest(context.Background(), `SELECT COUNT(*) FROM ledger_holds WHERE state = 'pending'`, &pending)
	_ = db.QueryTest(context.Background(), `SELECT COUNT(*) FROM ledger_holds WHERE state <> 'pending'`, &resolved)
	if pending != 0 || resolved != n {
		t.Errorf("holds: %d pending, %d resolved; want 0 and %d", pending, resolved, n)
	}
	if err := db.CheckLedger(context.Background(), house); err != nil {
		t.Errorf("ledger audit after the crash: %v", err)
	}
}

// product is a garment on a plain background, as JPEG.
func product(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{0xf2, 0xf1, 0xee, 0xff}
			if x > w/4 && x < 3*w/4 && y > h/5 && y < 4*h/5 {
				c = color.RGBA{uint8(60 + y*80/h), 0x30, 0x90, 0xff}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	return b.Bytes()
}

// serveWithin is how long a started program may take to answer /health.
// Its migrations of a fresh database take seconds on a quiet machine and
// took over a minute once on a starved one (load 30); a program that never
// serves fails either way, only later.
const serveWithin = 3 * time.Minute
