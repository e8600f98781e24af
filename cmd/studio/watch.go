package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

const watchUsage = `usage: studio watch [--url URL] [--key KEY] [--since N] [--until JOB,...]

Prints the job events of the key's house as JSON lines, one socket message a
line ({"type":"job","job":{...}}), from the job socket (GET /api/toolkit/jobs/ws).
It first replays each job changed after --since (0: every job's latest state)
with GET /api/toolkit/jobs?since=, then follows the socket; when the socket
drops it reconnects and replays from the last eventSeq it printed, so no
change is missed or printed twice. With --until it exits once each named job
has finished: status 0 when all are done, 1 when one failed or was cancelled.
The URL and the key come from --url and --key, else STUDIO_URL (then
STUDIO_PUBLIC_URL, then http://localhost:8080) and STUDIO_KEY.
`

// watch runs "studio watch".
func watch(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprint(stdout, watchUsage, "\nFlags:\n")
		fs.PrintDefaults()
	}
	base := fs.String("url", firstOf(getenv("STUDIO_URL"), getenv("STUDIO_PUBLIC_URL"), "http://localhost:8080"), "the service's URL")
	key := fs.String("key", getenv("STUDIO_KEY"), "an API key of the house")
	since := fs.Int64("since", 0, "replay the jobs changed after this eventSeq first")
	until := fs.String("until", "", "comma-separated job ids: exit once each has finished")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("watch: unexpected argument %q", fs.Arg(0))
	}
	u, err := url.Parse(strings.TrimRight(*base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("watch: %q is not an http(s) URL", *base)
	}
	if strings.TrimSpace(*key) == "" {
		return errors.New("watch: an API key is needed (--key or STUDIO_KEY)")
	}
	w := &watcher{base: u.String(), key: strings.TrimSpace(*key), cursor: *since, out: stdout,
		seen: map[string]int64{}, until: map[string]string{}, http: &http.Client{Timeout: 30 * time.Second}}
	for _, id := range strings.Split(*until, ",") {
		if id = strings.TrimSpace(id); id != "" {
			w.until[id] = ""
		}
	}
	return w.run(ctx)
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// watcher follows a house's job events across reconnects.
type watcher struct {
	base, key string
	out       io.Writer
	http      *http.Client
	cursor    int64             // the largest eventSeq printed: the next replay's since
	seen      map[string]int64  // per job, the largest eventSeq printed
	until     map[string]string // the jobs --until waits for -> their final status ("" while unfinished)
}

// errFinished ends a session once every --until job has finished.
var errFinished = errors.New("finished")

// permanent is a failure a reconnect cannot mend (a refused key, a
// revoked one).
type permanent struct{ error }

func (w *watcher) run(ctx context.Context) error {
	delay := time.Second
	for {
		started := time.Now()
		err := w.session(ctx)
		switch {
		case errors.Is(err, errFinished):
			return w.verdict()
		case ctx.Err() != nil:
			return nil
		}
		if p, ok := errors.AsType[permanent](err); ok {
			return p.error
		}
		if time.Since(started) > time.Minute {
			delay = time.Second
		}
		fmt.Fprintf(os.Stderr, "studio watch: %v; reconnecting in %v\n", err, delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Second)
	}
}

// verdict is the exit of --until: nil when every job is done.
func (w *watcher) verdict() error {
	var bad []string
	for id, status := range w.until {
		if status != "done" {
			bad = append(bad, id+" "+status)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("watch: not done: %s", strings.Join(bad, ", "))
	}
	return nil
}

// session opens the socket, replays what changed after the cursor, then
// prints the socket's messages until it ends. The socket is opened first,
// so nothing that changes during the replay is lost (docs/develops.md, "Job socket").
func (w *watcher) session(ctx context.Context) error {
	hdr := http.Header{"Authorization": {"Bearer " + w.key}}
	dial, cancel := context.WithTimeout(ctx, 30*time.Second)
	conn, res, err := websocket.Dial(dial, "ws"+strings.TrimPrefix(w.base, "http")+"/api/toolkit/jobs/ws",
		&websocket.DialOptions{HTTPHeader: hdr, HTTPClient: w.http})
	cancel()
	if err != nil {
		if res != nil && (res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden) {
			return permanent{fmt.Errorf("watch: the socket refused the key (%s)", res.Status)}
		}
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 20)
	if err := w.replay(ctx); err != nil {
		return err
	}
	if w.finished() {
		conn.Close(websocket.StatusNormalClosure, "")
		return errFinished
	}
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s == websocket.StatusPolicyViolation {
				return permanent{fmt.Errorf("watch: the socket was closed: %w", err)}
			}
			return err
		}
		var m struct {
			Type string          `json:"type"`
			Job  json.RawMessage `json:"job"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			continue
		}
		if m.Type != "job" {
			w.print(msg)
			continue
		}
		if err := w.job(m.Job); err != nil {
			return err
		}
		if w.finished() {
			conn.Close(websocket.StatusNormalClosure, "")
			return errFinished
		}
	}
}

// replay prints every job changed after the cursor, page by page.
func (w *watcher) replay(ctx context.Context) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.base+"/api/toolkit/jobs?since="+strconv.FormatInt(w.cursor, 10), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+w.key)
		res, err := w.http.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			return permanent{fmt.Errorf("watch: the key was refused: %s", bytes.TrimSpace(body))}
		}
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("replay: %s: %s", res.Status, bytes.TrimSpace(body))
		}
		var page struct {
			Jobs []json.RawMessage `json:"jobs"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		before := w.cursor
		for _, j := range page.Jobs {
			if err := w.job(j); err != nil {
				return err
			}
		}
		if len(page.Jobs) == 0 || w.cursor == before {
			return nil
		}
	}
}

// job prints one job's state unless a later one of it was printed.
func (w *watcher) job(raw json.RawMessage) error {
	var j struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		EventSeq int64  `json:"eventSeq"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return fmt.Errorf("a job that is not JSON: %w", err)
	}
	if j.EventSeq <= w.seen[j.ID] {
		return nil
	}
	w.seen[j.ID] = j.EventSeq
	w.cursor = max(w.cursor, j.EventSeq)
	if _, ok := w.until[j.ID]; ok {
		switch j.Status {
		case "done", "failed", "cancelled":
			w.until[j.ID] = j.Status
		}
	}
	var line bytes.Buffer
	line.WriteString(`{"type":"job","job":`)
	if err := json.Compact(&line, raw); err != nil {
		return err
	}
	line.WriteString("}")
	w.print(line.Bytes())
	return nil
}

func (w *watcher) print(msg []byte) {
	w.out.Write(append(bytes.TrimSpace(msg), '\n'))
}

// finished reports whether --until named jobs and all have finished.
func (w *watcher) finished() bool {
	if len(w.until) == 0 {
		return false
	}
	for _, status := range w.until {
		if status == "" {
			return false
		}
	}
	return true
}
