package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeStopsAtOnce: serve opens its listener before anything else, so
// a taken port or a malformed STUDIO_ADDR ends the process at once with one
// plain line and a non-zero status, before it creates its data folder or
// writes a log line.
func TestServeStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cases := []struct{ name, addr, want string }{
		{"port in use", taken.Addr().String(), "studio: cannot listen on " + taken.Addr().String() + " (STUDIO_ADDR): address already in use"},
		{"no host:port", "8080", `studio: STUDIO_ADDR: must be host:port or :port, such as 127.0.0.1:8080 or :8080; got "8080"`},
		{"port out of range", "127.0.0.1:70000", `studio: STUDIO_ADDR: must be host:port or :port, such as 127.0.0.1:8080 or :8080; got "127.0.0.1:70000"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a hang
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "serve")
			cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_ADDR="+c.addr, "STUDIO_DATA_DIR="+dir, "DATABASE_URL=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			t.Logf("exited after %v", time.Since(start).Round(time.Millisecond))
			if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.ExitCode() != 1 {
				t.Errorf("exit: %v; want status 1", err)
			}
			if stderr.String() != c.want+"\n" || stdout.Len() != 0 {
				t.Errorf("stderr %q, stdout %q; want one line %q and nothing else", stderr.String(), stdout.String(), c.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the data folder was made before the listener failed: %v", err)
			}
		})
	}
}

// TestRolesAsProcesses runs `studio serve --worker=false` and `studio
// worker` as processes on one data folder. The serving process runs no
// worker: a develop submitted to it stays queued. The worker process
// holds no listening socket, answers nothing on STUDIO_ADDR, and
// develops the queued job.
func TestRolesAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := migratedData(t)
	serveLog, said := &lockedWriter{w: new(bytes.Buffer)}, &lockedWriter{w: new(bytes.Buffer)}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	serve := startRole(t, serveLog, said, "STUDIO_DATA_DIR="+dir, "STUDIO_ADDR="+addr, "serve", "--worker=false")
	waitFor(t, said, "\n") // serving
	if !listens(t, serve.Process.Pid) {
		t.Fatal("the serving process holds no listening socket: the check below proves nothing")
	}
	c := newClient(t, "http://localhost:"+port) // the public URL follows STUDIO_ADDR
	id := c.submitUpscale(t)
	if s := c.jobStatus(t, id); s != "queued" {
		t.Fatalf("job %s before any worker runs; want queued", s)
	}

	workLog := &lockedWriter{w: new(bytes.Buffer)}
	workAddr := freeAddr(t)
	work := startRole(t, workLog, workLog, "STUDIO_DATA_DIR="+dir, "STUDIO_ADDR="+workAddr, "STUDIO_WORKER_POLL=50ms", "worker")
	waitFor(t, workLog, `"msg":"workers running"`)
	if listens(t, work.Process.Pid) {
		t.Error("the worker process holds a listening socket")
	}
	if conn, err := net.DialTimeout("tcp", workAddr, 5*time.Second); err == nil {
		conn.Close()
		t.Errorf("something answers on the worker's STUDIO_ADDR %s", workAddr)
	}
	deadline := time.Now().Add(3 * time.Minute) // renders are slow under -race on a loaded machine
	for s := c.jobStatus(t, id); s != "done"; s = c.jobStatus(t, id) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 3 minutes of the worker process:\n%s", s, workLog)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range []*exec.Cmd{work, serve} {
		if err := p.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(); err != nil {
			t.Errorf("%s: %v", strings.Join(p.Args[1:], " "), err)
		}
	}
	if strings.Contains(workLog.String(), `"msg":"serving"`) {
		t.Errorf("the worker process served:\n%s", workLog)
	}
	if strings.Contains(serveLog.String(), "workers running") {
		t.Errorf("serve --worker=false ran workers:\n%s", serveLog)
	}
}

// startRole runs this test binary as studio with args, its output to
// stdout and stderr; the test's end stops it.
func startRole(t *testing.T, stdout, stderr *lockedWriter, envAndArgs ...string) *exec.Cmd {
	t.Helper()
	i := 0
	for i < len(envAndArgs) && strings.Contains(envAndArgs[i], "=") {
		i++
	}
	cmd := exec.Command(os.Args[0], envAndArgs[i:]...)
	cmd.Env = append(os.Environ(), "STUDIO_AS_PROGRAM=1", "STUDIO_WORKERS=1", "DATABASE_URL=", "BLOB_URL=", "STUDIO_PUBLIC_URL=")
	cmd.Env = append(cmd.Env, envAndArgs[:i]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// listens reports whether process pid holds a listening TCP socket, from
// Linux's /proc; elsewhere the test is skipped.
func listens(t *testing.T, pid int) bool {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc to read a process's sockets from: %v", err)
	}
	listening := map[string]bool{} // inodes of sockets in state LISTEN (0A)
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue // no IPv6
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			if f := strings.Fields(line); len(f) > 9 && f[3] == "0A" {
				listening[f[9]] = true
			}
		}
	}
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && listening[strings.TrimSuffix(inode, "]")] {
			return true
		}
	}
	return false
}

// client is a user of a running service: signed up with a cookie, then
// working with the key it minted.
type client struct {
	base, key string
}

func newClient(t *testing.T, base string) *client {
	t.Helper()
	c := &client{base: base}
	res := c.do(t, "POST", "/api/auth/sign-up/email", "application/json",
		[]byte(`{"name":"Ada","email":"ada@example.com","password":"a long password"}`), nil)
	var key struct{ Key string }
	c.decode(t, c.do(t, "POST", "/api/keys", "application/json", []byte(`{"name":"k"}`), res.Cookies()), &key)
	c.key = key.Key
	return c
}

func (c *client) submitUpscale(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("tool", "upscale")
	fw, _ := w.CreateFormFile("image", "p.jpg")
	_, _ = fw.Write(product(200, 250))
	_ = w.Close()
	var job struct{ JobID string }
	c.decode(t, c.do(t, "POST", "/api/toolkit/jobs/submit", w.FormDataContentType(), b.Bytes(), nil), &job)
	return job.JobID
}

// jobStatus reads job id's status from the jobs changed since the start.
func (c *client) jobStatus(t *testing.T, id string) string {
	t.Helper()
	var list struct {
		Jobs []struct{ ID, Status string }
	}
	c.decode(t, c.do(t, "GET", "/api/toolkit/jobs?since=0", "", nil, nil), &list)
	for _, j := range list.Jobs {
		if j.ID == id {
			return j.Status
		}
	}
	t.Fatalf("job %s is not in the list", id)
	return ""
}

// do sends a request, with the cookies given (and the service's Origin)
// or else the key, and fails the test on an answer other than 2xx.
func (c *client) do(t *testing.T, method, path, ctype string, body []byte, cookies []*http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if cookies != nil {
		req.Header.Set("Origin", c.base)
		for _, k := range cookies {
			req.AddCookie(k)
		}
	} else if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode >= 300 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		res.Body.Close()
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b.String())
	}
	return res
}

func (c *client) decode(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
