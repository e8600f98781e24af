package console_test

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
)

// axeSource is axe-core 4.14.1 (MPL-2.0, testdata/axe/LICENSE), vendored
// for the tests and injected into each page; the binary does not carry it.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// page is headless Chromium on one console, with the checks every step
// of a story makes: screenshots kept as test artefacts, axe-core on the
// page, no script error or CSP violation.
type page struct {
	t    *testing.T
	a    *apptest.App
	b    *apptest.Browser
	dir  string
	name string
	n    int
	seen int // page errors already reported
}

// chromium is the package's one browser: started by the first test that
// opens a page, stopped by TestMain. Each page is a browser context of its
// own, so tests and the story's second visitor share no cookie.
var chromium struct {
	once sync.Once
	c    *apptest.Chromium
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.c != nil {
		chromium.c.Close()
	}
	os.Exit(code)
}

// openPage opens a page of the viewport's size on the app. Screenshots go
// to STUDIO_SCREENSHOTS when set, else to the test's artefact folder.
func openPage(t *testing.T, a *apptest.App, name string, width, height int, mobile bool) *page {
	t.Helper()
	if _, err := os.Stat(apptest.ChromiumPath); err != nil {
		t.Skip("no " + apptest.ChromiumPath + " (apt-get install chromium); make test installs it")
	}
	chromium.once.Do(func() { chromium.c, chromium.err = apptest.LaunchChromium() })
	if chromium.err != nil {
		t.Fatal(chromium.err)
	}
	b := chromium.c.Page(t, width, height, mobile)
	dir := os.Getenv("STUDIO_SCREENSHOTS")
	if dir == "" {
		dir = t.ArtifactDir()
	}
	p := &page{t: t, a: a, b: b, dir: dir, name: name}
	b.Call(t, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": recordCalls}, nil)
	t.Cleanup(func() {
		if t.Failed() {
			var where string
			p.b.Eval(t, `location.href`, &where)
			t.Logf("%s was at %s when the test failed (screenshot %s-failed.png)", name, where, name)
			for _, c := range p.calls() {
				t.Logf("the page called %s %s: %d %s", c.Method, c.URL, c.Status, c.Body)
			}
			p.b.Screenshot(t, filepath.Join(dir, name+"-failed.png"))
		}
	})
	return p
}

// recordCalls runs before each document's own scripts: it keeps every
// request the page's scripts make (fetch, XMLHttpRequest, WebSocket) with
// its answer's status, and a refusal's body, in the tab's sessionStorage,
// so a test can check each is a route of the API.
const recordCalls = `(() => {
  const log = (e) => {
    const a = JSON.parse(sessionStorage.getItem("__calls") || "[]");
    a.push(e);
    sessionStorage.setItem("__calls", JSON.stringify(a));
  };
  const f = window.fetch;
  window.fetch = async (input, init) => {
    const method = (init && init.method) || "GET";
    const url = typeof input === "string" ? input : input.url;
    const res = await f(input, init);
    let body = "";
    if (!res.ok) { try { body = (await res.clone().text()).slice(0, 300); } catch (e) {} }
    log({method, url, status: res.status, body});
    return res;
  };
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (m, u) {
    this.addEventListener("loadend", () => log({method: m, url: u, status: this.status, body: this.status >= 400 ? String(this.responseText).slice(0, 300) : ""}));
    return open.apply(this, arguments);
  };
  document.addEventListener("click", (e) => log({method: "CLICK", url: (e.target.outerHTML || "").slice(0, 120) + " @" + e.clientX + "," + e.clientY, status: 0, body: ""}), true);
  document.addEventListener("submit", (e) => log({method: "SUBMIT", url: (e.target.getAttribute("data-api") || "") + " by " + ((e.submitter && e.submitter.outerHTML) || "").slice(0, 80), status: 0, body: ""}), true);
  const WS = window.WebSocket;
  window.WebSocket = function (u, p) { log({method: "GET", url: u, status: 101, body: ""}); return new WS(u, p); };
  window.WebSocket.prototype = WS.prototype;
})();`

// call is a request a page's script made.
type call struct {
	Method, URL, Body string
	Status            int
}

// calls returns the requests the page's scripts made so far.
func (p *page) calls() []call {
	var out []call
	p.b.Eval(p.t, `JSON.parse(sessionStorage.getItem("__calls") || "[]")`, &out)
	return out
}

// goTo opens a console path and waits for its document.
func (p *page) goTo(path string) {
	p.t.Helper()
	p.b.Navigate(p.t, p.a.URL+path)
	p.ready()
}

// ready waits until the document (and its modules) finished loading.
func (p *page) ready() {
	p.t.Helper()
	p.until(`document.readyState === "complete" && !!document.body`, 20*time.Second, "the page")
}

// click clicks an element once the page has settled: loaded, and its
// scroll no longer moving (a reload restores the scroll position a moment
// after the document is complete, which would move the element away).
// Settled is three looks in a row at the same scroll, in the same
// document; a page that navigates meanwhile starts the count again.
func (p *page) click(selector string) {
	p.t.Helper()
	p.ready()
	key := jsString(fmt.Sprint(time.Now().UnixNano()))
	p.until(`(() => { const s = window.__settle && window.__settle.key === `+key+` ? window.__settle : {key: `+key+`, y: -1, n: 0};
		s.n = s.y === scrollY ? s.n + 1 : 0; s.y = scrollY; window.__settle = s;
		return s.n >= 2 && document.readyState === "complete"; })()`, 20*time.Second, "the page to settle")
	p.b.Click(p.t, selector)
}

// until waits until a JavaScript expression is true in the page, failing
// the test with what it says after timeout (apptest's WaitFor stretches
// it by its Patience, in a quiet machine's time).
func (p *page) until(expr string, timeout time.Duration, what string) {
	p.t.Helper()
	p.b.WaitFor(p.t, expr, timeout, what)
}

// path is the page's path and query.
func (p *page) path() string {
	var s string
	p.b.Eval(p.t, `location.pathname + location.search`, &s)
	return s
}

// waitPath waits until the browser shows a path starting with prefix.
func (p *page) waitPath(prefix string) {
	p.t.Helper()
	js, _ := json.Marshal(prefix)
	p.until(`(location.pathname + location.search).startsWith(`+string(js)+`) && document.readyState === "complete"`, 20*time.Second, "the page "+prefix)
}

// typeInto focuses a field by clicking it and types text, as a person does.
func (p *page) typeInto(selector, text string) {
	p.t.Helper()
	p.click(selector)
	sel, _ := json.Marshal(selector)
	p.b.Eval(p.t, `document.querySelector(`+string(sel)+`).select?.()`, nil)
	p.b.Type(p.t, text)
}

// text is the text of the first element the selector matches ("" when none).
func (p *page) text(selector string) string {
	var s string
	sel, _ := json.Marshal(selector)
	p.b.Eval(p.t, `(document.querySelector(`+string(sel)+`) || {}).textContent || ""`, &s)
	return strings.TrimSpace(s)
}

// waitText waits until the element's text contains want.
func (p *page) waitText(selector, want string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	w, _ := json.Marshal(want)
	p.until(`((document.querySelector(`+string(sel)+`) || {}).textContent || "").includes(`+string(w)+`)`, 30*time.Second,
		fmt.Sprintf("%s to say %q (it says %q)", selector, want, p.text(selector)))
}

// recordSaid keeps, in the tab's sessionStorage, every text the element at
// selector shows from now on, so that a message the page shows just before
// it reloads itself can still be read after the reload (the library says
// "N of N uploaded" and reloads 400 ms later: on a loaded machine a poll of
// the element missed that window). waitSaid reads it.
func (p *page) recordSaid(selector string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	p.b.Eval(p.t, `(() => {
		const el = document.querySelector(`+string(sel)+`), key = "said " + `+string(sel)+`;
		sessionStorage.removeItem(key);
		new MutationObserver(() => sessionStorage.setItem(key, (sessionStorage.getItem(key) || "") + "\n" + el.textContent))
			.observe(el, {childList: true, characterData: true, subtree: true});
		return true;
	})()`, nil)
}

// waitSaid waits until the element at selector says want, or said it since
// recordSaid, before a reload of the page.
func (p *page) waitSaid(selector, want string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	w, _ := json.Marshal(want)
	p.until(`(((document.querySelector(`+string(sel)+`) || {}).textContent || "") + (sessionStorage.getItem("said " + `+string(sel)+`) || "")).includes(`+string(w)+`)`,
		30*time.Second, fmt.Sprintf("%s to say %q (it says %q)", selector, want, p.text(selector)))
}

// shot keeps a screenshot of the page, numbered in the story's order.
func (p *page) shot(name string) {
	p.t.Helper()
	p.ready()
	p.n++
	p.b.Screenshot(p.t, filepath.Join(p.dir, fmt.Sprintf("%s-%02d-%s.png", p.name, p.n, name)))
}

// check runs axe-core on the page (no serious or critical violation) and
// fails on any script error or CSP violation the page raised so far.
func (p *page) check(what string) {
	p.t.Helper()
	var injected bool
	p.b.Eval(p.t, `typeof axe !== "undefined"`, &injected)
	if !injected {
		p.b.Eval(p.t, axeSource+"\n;true", nil)
	}
	var found []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []string `json:"target"`
		} `json:"nodes"`
	}
	p.b.Eval(p.t, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => ({target: n.target.map(String)}))})))`, &found)
	for _, v := range found {
		if v.Impact == "serious" || v.Impact == "critical" {
			p.t.Errorf("%s: axe %s (%s): %s at %v", what, v.ID, v.Impact, v.Help, v.Nodes)
		}
	}
	p.checkScripts(what)
}

// checkScripts fails on any script error or CSP violation the page raised
// so far.
func (p *page) checkScripts(what string) {
	p.t.Helper()
	for _, e := range p.b.Errors()[p.seen:] {
		// A refusal the API answered (a 4xx the page shows) is the story's
		// business; a script error, a CSP violation or a missing file is not.
		if strings.Contains(e, `"source":"network"`) && strings.Contains(e, "/api/") && strings.Contains(e, "status of 4") {
			continue
		}
		p.t.Errorf("%s: the page raised %s", what, e)
	}
	p.seen = len(p.b.Errors())
}

// signIn gives the browser the user's session cookie, as signing in would.
func signIn(t *testing.T, p *page, u *apptest.User) {
	t.Helper()
	p.b.Call(t, "Network.setCookie", map[string]any{"name": "studio_session", "value": u.Cookie, "url": p.a.URL, "httpOnly": true}, nil)
}

// seat gives a new user a seat of the role in u's house, accepted, with
// that house active.
func seat(t *testing.T, a *apptest.App, u *apptest.User, role string) *apptest.User {
	t.Helper()
	n := a.SignUp(t, role)
	res := a.Do(t, "POST", "/api/toolkit/org/seats/invite", u.Session(), map[string]string{"email": n.Email, "role": role})
	if res.Status != 200 {
		t.Fatalf("invite %s: %d %s", role, res.Status, res.Body)
	}
	var inv struct{ ID string }
	res.JSON(t, &inv)
	if res := a.Do(t, "POST", "/api/toolkit/org/seats/accept", n.Session(), map[string]string{"invitationId": inv.ID}); res.Status != 200 {
		t.Fatalf("accept %s: %d %s", role, res.Status, res.Body)
	}
	return n
}

var people int

// person signs up a user with a display name of any shape.
func person(t *testing.T, a *apptest.App, name string) *apptest.User {
	t.Helper()
	people++
	return a.SignUpAs(t, &apptest.User{Name: name, Email: fmt.Sprintf("person%d-%d@studio.test", people, time.Now().UnixNano()%100000), Password: "correct horse battery"})
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
