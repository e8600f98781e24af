package apptest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// ChromiumPath is where Debian's chromium package puts the browser; make
// test installs it (scripts/lib.sh).
const ChromiumPath = "/usr/bin/chromium"

// Browser is headless Chromium driven over the DevTools protocol (CDP) on
// a WebSocket, with the coder/websocket client the service already uses:
// one page, real input events (the mouse, keys and text a person sends),
// script evaluation and screenshots. It is a test tool, about as small as
// the handful of commands the tests need; no driver binary is involved.
type Browser struct {
	conn    *websocket.Conn
	session string // the page's flattened CDP session

	mu      sync.Mutex
	next    int64
	waiting map[int64]chan cdpReply
	errs    []string // exceptions and error-level log entries the page raised
	closed  chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// StartChromium launches headless Chromium with a fresh profile and every
// host but loopback unresolvable (the page must work offline), opens one
// page of width x height CSS pixels, and stops the browser when the test
// ends. It skips the test when Chromium is not installed. A package whose
// tests each want a page shares one LaunchChromium instead.
func StartChromium(t testing.TB, width, height int, mobile bool) *Browser {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Skip("no " + ChromiumPath + " (apt-get install chromium); make test installs it")
	}
	c, err := LaunchChromium()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.open(t, width, height, mobile, false)
}

// Chromium is one headless Chromium process. Starting a browser is the
// dearest step of a browser test, so a package's tests share one process
// and each opens its own Page, in a browser context of its own (cookies
// and storage apart, as in a second browser).
type Chromium struct {
	url     string // the browser's DevTools WebSocket
	stop    func()
	stopped chan struct{}
}

// LaunchChromium starts headless Chromium with a fresh profile and every
// host but loopback unresolvable (the pages must work offline). Close
// stops it and removes the profile.
func LaunchChromium() (*Chromium, error) {
	if _, err := os.Stat(ChromiumPath); err != nil {
		return nil, fmt.Errorf("no %s (apt-get install chromium); make test installs it", ChromiumPath)
	}
	dir, err := os.MkdirTemp("", "studio-chromium-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, ChromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir="+dir, "--remote-debugging-port=0", "--remote-allow-origins=*",
		// Several pages at once are each a window of their own: none may
		// have its timers slowed as a page in the background would.
		"--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "about:blank")
	dieWithTest(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("chromium: %w", err)
	}
	c := &Chromium{stopped: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.stopped) }()
	c.stop = func() {
		cancel()
		<-c.stopped
		os.RemoveAll(dir)
	}
	// Chromium writes the port it bound and the browser's path to
	// DevToolsActivePort in the profile once it listens.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			c.url = "ws://127.0.0.1:" + lines[0] + lines[1]
			return c, nil
		}
		select {
		case <-c.stopped:
			c.stop()
			return nil, fmt.Errorf("chromium exited: %s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, fmt.Errorf("chromium did not open its DevTools port: %s", stderr.String())
		}
	}
}

// Close stops the browser.
func (c *Chromium) Close() { c.stop() }

// Page opens a page of width x height CSS pixels in a browser context of
// its own, closed when the test ends.
func (c *Chromium) Page(t testing.TB, width, height int, mobile bool) *Browser {
	t.Helper()
	return c.open(t, width, height, mobile, true)
}

// open connects to the browser (Chromium takes several DevTools clients,
// so each page has its own connection, replies and errors) and opens a
// page, in a new browser context when apart is set.
func (c *Chromium) open(t testing.TB, width, height int, mobile, apart bool) *Browser {
	t.Helper()
	dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer dcancel()
	conn, _, err := websocket.Dial(dctx, c.url, nil)
	if err != nil {
		t.Fatalf("devtools: %v", err)
	}
	conn.SetReadLimit(64 << 20) // screenshots
	b := &Browser{conn: conn, waiting: map[int64]chan cdpReply{}, closed: make(chan struct{})}
	go b.read()
	t.Cleanup(func() { _ = conn.CloseNow() })

	create := map[string]any{"url": "about:blank"}
	if apart {
		var bc struct{ BrowserContextID string }
		b.Call(t, "Target.createBrowserContext", nil, &bc)
		create["browserContextId"] = bc.BrowserContextID
		// Registered after the connection's cleanup, so it runs first.
		t.Cleanup(func() {
			_ = b.callIn("", "Target.disposeBrowserContext", map[string]any{"browserContextId": bc.BrowserContextID}, nil)
		})
	}
	var target struct{ TargetID string }
	b.Call(t, "Target.createTarget", create, &target)
	var att struct{ SessionID string }
	b.Call(t, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		b.Call(t, domain, nil, nil)
	}
	// Every page behaves as the focused one, as a person's tab would.
	b.Call(t, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
	scale := 1.0
	if mobile {
		scale = 2
	}
	b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height,
		"deviceScaleFactor": scale, "mobile": mobile}, nil)
	return b
}

// read dispatches replies to their callers and keeps the page's errors.
func (b *Browser) read() {
	defer close(b.closed)
	for {
		_, data, err := b.conn.Read(context.Background())
		if err != nil {
			return
		}
		var msg struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		b.mu.Lock()
		switch {
		case msg.ID != 0:
			if ch := b.waiting[msg.ID]; ch != nil {
				ch <- msg.cdpReply
				delete(b.waiting, msg.ID)
			}
		case msg.Method == "Runtime.exceptionThrown":
			b.errs = append(b.errs, "exception: "+string(msg.Params))
		case msg.Method == "Log.entryAdded" && strings.Contains(string(msg.Params), `"level":"error"`):
			b.errs = append(b.errs, "log: "+string(msg.Params))
		case msg.Method == "Runtime.consoleAPICalled" && strings.Contains(string(msg.Params), `"type":"error"`):
			b.errs = append(b.errs, "console: "+string(msg.Params))
		}
		b.mu.Unlock()
	}
}

// Call sends one CDP command to the page (or to the browser before a page
// is attached) and decodes its result into out (nil: ignored).
func (b *Browser) Call(t testing.TB, method string, params, out any) {
	t.Helper()
	if err := b.call(method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (b *Browser) call(method string, params, out any) error {
	return b.callIn(b.session, method, params, out)
}

// callIn sends a command to a session ("" the browser itself).
func (b *Browser) callIn(session, method string, params, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	// A minute: on a loaded machine a screenshot can wait long for a frame.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.conn.Write(ctx, websocket.MessageText, data); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return errors.New(r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-b.closed:
		return errors.New("the browser went away")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Navigate opens url in the page.
func (b *Browser) Navigate(t testing.TB, url string) {
	t.Helper()
	var r struct{ ErrorText string }
	b.Call(t, "Page.navigate", map[string]any{"url": url}, &r)
	if r.ErrorText != "" {
		t.Fatalf("navigate %s: %s", url, r.ErrorText)
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its JSON value into out (nil: ignored).
func (b *Browser) Eval(t testing.TB, expr string, out any) {
	t.Helper()
	if err := b.eval(expr, out); err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
}

func (b *Browser) eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// Patience stretches every wait of the browser (WaitFor): the tests'
// timeouts are what a page needs on a quiet machine with room to spare. A
// wait that succeeds ends as soon as it does; only a failing test waits
// the longer.
const Patience = 4

// WaitFor polls a JavaScript expression until it is true, failing the test
// with what it says when it is not true within timeout (times Patience).
//
// The timeout counts a quiet machine's time: each poll's wall time counts
// for the share of the cores a busy process gets (the cores over the
// one-minute load average, at most all of it). make test runs the browser
// beside several -race test binaries on two cores, where a page that takes
// a second on its own once took 85 s to load (Swagger UI's reference, just
// before, kept the renderer busy).
func (b *Browser) WaitFor(t testing.TB, expr string, timeout time.Duration, what string) {
	t.Helper()
	budget := timeout * Patience
	var counted time.Duration
	start := time.Now()
	last := start
	for {
		var ok bool
		err := b.eval("Boolean("+expr+")", &ok)
		if err == nil && ok {
			return
		}
		now := time.Now()
		counted += time.Duration(float64(now.Sub(last)) * fairShare())
		last = now
		if counted > budget {
			t.Fatalf("waited %s (%s of a quiet machine's time) for %s (%s): %v; page errors: %v",
				now.Sub(start).Round(time.Second), budget, what, expr, err, b.Errors())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fairShare is the share of the machine's cores a busy process gets now:
// the number of cores over the one-minute load average (Linux's
// /proc/loadavg), between 1/20 and 1; 1 where the load cannot be read.
func fairShare() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil || load <= 0 {
		return 1
	}
	return min(1, max(0.05, float64(runtime.NumCPU())/load))
}

// Rect is an element's box in CSS pixels of the viewport.
type Rect struct{ X, Y, Width, Height float64 }

// At is the point at fractions (fx, fy) of the box.
func (r Rect) At(fx, fy float64) [2]float64 { return [2]float64{r.X + fx*r.Width, r.Y + fy*r.Height} }

// Box returns the box of the first element a CSS selector matches,
// scrolled into view first.
func (b *Browser) Box(t testing.TB, selector string) Rect {
	t.Helper()
	var r Rect
	sel, _ := json.Marshal(selector)
	b.Eval(t, `(() => { const e = document.querySelector(`+string(sel)+`); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })()`, &r)
	if r.Width == 0 || r.Height == 0 {
		t.Fatalf("%s has no box", selector)
	}
	return r
}

func (b *Browser) mouse(t testing.TB, kind string, p [2]float64, buttons int) {
	t.Helper()
	params := map[string]any{"type": kind, "x": p[0], "y": p[1], "buttons": buttons, "pointerType": "mouse"}
	if kind != "mouseMoved" {
		params["button"], params["clickCount"] = "left", 1
	}
	b.Call(t, "Input.dispatchMouseEvent", params, nil)
}

// Click clicks the middle of the element a selector matches, as a mouse.
func (b *Browser) Click(t testing.TB, selector string) {
	t.Helper()
	p := b.Box(t, selector).At(0.5, 0.5)
	b.mouse(t, "mouseMoved", p, 0)
	b.mouse(t, "mousePressed", p, 1)
	b.mouse(t, "mouseReleased", p, 0)
}

// Drag presses the mouse at the first point, moves through the others and
// releases at the last: the page sees real pointerdown, pointermove and
// pointerup events.
func (b *Browser) Drag(t testing.TB, points ...[2]float64) {
	t.Helper()
	b.mouse(t, "mouseMoved", points[0], 0)
	b.mouse(t, "mousePressed", points[0], 1)
	for _, p := range points[1:] {
		b.mouse(t, "mouseMoved", p, 1)
	}
	b.mouse(t, "mouseReleased", points[len(points)-1], 0)
}

// keyCodes are the Windows virtual key codes of the keys tests press.
var keyCodes = map[string]int{"ArrowLeft": 37, "ArrowRight": 39, "Escape": 27, "Enter": 13, "Tab": 9}

// Key presses and releases one key: a named key (ArrowRight, Escape) or a
// character.
func (b *Browser) Key(t testing.TB, key string) {
	t.Helper()
	down := map[string]any{"type": "keyDown", "key": key}
	if code, ok := keyCodes[key]; ok {
		down["code"], down["windowsVirtualKeyCode"] = key, code
		down["type"] = "rawKeyDown"
	} else {
		up := strings.ToUpper(key)
		down["code"], down["text"], down["windowsVirtualKeyCode"] = "Key"+up, key, int(up[0])
	}
	b.Call(t, "Input.dispatchKeyEvent", down, nil)
	upEv := map[string]any{"type": "keyUp", "key": key, "code": down["code"], "windowsVirtualKeyCode": down["windowsVirtualKeyCode"]}
	b.Call(t, "Input.dispatchKeyEvent", upEv, nil)
}

// Type sends text to the focused element, as an input method does.
func (b *Browser) Type(t testing.TB, text string) {
	t.Helper()
	b.Call(t, "Input.insertText", map[string]any{"text": text}, nil)
}

// Screenshot writes a PNG of the page to path.
func (b *Browser) Screenshot(t testing.TB, path string) {
	t.Helper()
	var r struct{ Data string }
	b.Call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Errors returns the exceptions and error-level messages the page raised
// (a blocked request, a CSP violation, a script error).
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// DropFiles drags files from the disk onto the middle of the element a
// selector matches and drops them, as a person does from a file manager:
// the page sees dragenter, dragover and drop with the files in its
// DataTransfer.
func (b *Browser) DropFiles(t testing.TB, selector string, paths ...string) {
	t.Helper()
	p := b.Box(t, selector).At(0.5, 0.5)
	data := map[string]any{"items": []any{}, "files": paths, "dragOperationsMask": 1}
	for _, kind := range []string{"dragEnter", "dragOver", "drop"} {
		b.Call(t, "Input.dispatchDragEvent", map[string]any{"type": kind, "x": p[0], "y": p[1], "data": data}, nil)
	}
}

// ScreenshotPage writes a PNG of the whole page, below the fold too, to
// path.
func (b *Browser) ScreenshotPage(t testing.TB, path string) {
	t.Helper()
	var m struct {
		CSSContentSize struct{ Width, Height float64 } `json:"cssContentSize"`
	}
	b.Call(t, "Page.getLayoutMetrics", nil, &m)
	var r struct{ Data string }
	b.Call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": min(m.CSSContentSize.Height, 6000), "scale": 1}}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
