package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/share"
)

// TestReviewerPageInChromium is the reviewer's side as a person does it, in
// headless Chromium at a phone's width with no network but loopback: open
// the link the director minted for five frames, mark the first keep with
// the K key and a free stroke drawn with the mouse and a note, move on with
// the arrow key, pass the second and circle something on it, finish; then
// the house API holds the marks and the drawings' points. The page raises
// no script error and no CSP violation. STUDIO_SCREENSHOTS=dir keeps
// screenshots of the page.
func TestReviewerPageInChromium(t *testing.T) {
	b := apptest.StartChromium(t, 390, 844, true)
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "director")
	k := a.Key(t, owner, "member")
	var ids []string
	for n := range 5 {
		ids = append(ids, upload(t, a, k, jpegOf(t, 600, 800), "name", "Look "+string(rune('A'+n))).ID)
	}
	c := mintShare(t, a, k, map[string]any{"assetIds": ids, "recipientLabel": "Buyer", "message": "Five looks for the spring book."}, http.StatusOK)
	shots := os.Getenv("STUDIO_SCREENSHOTS")
	shot := func(name string) {
		if shots != "" {
			b.Screenshot(t, filepath.Join(shots, name+".png"))
		}
	}

	b.Navigate(t, c.URL)
	b.WaitFor(t, `document.querySelectorAll("#strip .thumb").length === 5 && document.getElementById("image").naturalWidth > 0`,
		20*time.Second, "the frames")
	var fit struct {
		Scroll, Inner float64
		Counter       string
	}
	b.Eval(t, `({scroll: document.documentElement.scrollWidth, inner: innerWidth, counter: document.getElementById("counter").textContent})`, &fit)
	if fit.Scroll > fit.Inner || fit.Counter != "1 of 5" {
		t.Errorf("at a phone's width: %+v (the page must not scroll sideways)", fit)
	}
	shot("1-open")

	saved := func(what string) {
		t.Helper()
		b.WaitFor(t, `document.getElementById("status").textContent === "Saved"`, 10*time.Second, what)
		b.Eval(t, `document.getElementById("status").textContent = ""`, nil)
	}
	// Frame 1: keep (K), a free stroke with the mouse, a note.
	b.Key(t, "k")
	saved("keep")
	b.Click(t, "#tool-free")
	canvas := b.Box(t, "#canvas")
	stroke := [][2]float64{{0.2, 0.3}, {0.3, 0.4}, {0.4, 0.5}, {0.5, 0.6}, {0.6, 0.7}}
	var path [][2]float64
	for _, p := range stroke {
		path = append(path, canvas.At(p[0], p[1]))
	}
	b.Drag(t, path...)
	saved("the free stroke")
	b.Click(t, "#comment")
	b.Type(t, "Sleeve too long")
	b.Key(t, "Escape") // leaves the note, which saves it
	saved("the note")
	shot("2-marked")

	// Frame 2: the arrow key, pass (P), a circle.
	b.Key(t, "ArrowRight")
	b.WaitFor(t, `document.getElementById("counter").textContent === "2 of 5"`, 5*time.Second, "the second frame")
	b.Key(t, "p")
	saved("pass")
	b.Click(t, "#tool-circle")
	canvas = b.Box(t, "#canvas")
	b.Drag(t, canvas.At(0.25, 0.25), canvas.At(0.5, 0.4), canvas.At(0.75, 0.6))
	saved("the circle")
	shot("3-circle")

	b.Click(t, "#finish")
	b.WaitFor(t, `!document.getElementById("done").hidden`, 10*time.Second, "the thank-you")
	var done string
	b.Eval(t, `document.getElementById("done-counts").textContent`, &done)
	if done != "You kept 1 and passed 1 of 5 frames." {
		t.Errorf("finish says %q", done)
	}
	shot("4-done")
	// The same page on a desktop's width: frame and panel side by side.
	b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}, nil)
	b.Click(t, "#back")
	b.WaitFor(t, `!document.getElementById("review").hidden`, 5*time.Second, "the frames again")
	var side struct{ Frame, Panel, Scroll, Inner float64 }
	b.Eval(t, `({frame: document.getElementById("frame").getBoundingClientRect().right,
		panel: document.querySelector(".panel").getBoundingClientRect().left,
		scroll: document.documentElement.scrollWidth, inner: innerWidth})`, &side)
	if side.Frame > side.Panel || side.Scroll > side.Inner {
		t.Errorf("at a desktop's width: %+v", side)
	}
	shot("5-desktop")
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("the page raised errors: %v", errs)
	}

	// What arrived, read through the house API.
	ms := shareMarks(t, a, k, ids...)
	byAsset := map[string]wireMark{}
	for _, m := range ms {
		byAsset[m.AssetID] = m
	}
	first, second := byAsset[ids[0]], byAsset[ids[1]]
	if len(ms) != 2 || first.Verdict == nil || *first.Verdict != "keep" || first.Note == nil || *first.Note != "Sleeve too long" ||
		second.Verdict == nil || *second.Verdict != "pass" {
		t.Fatalf("marks %+v", ms)
	}
	near := func(got, want [2]float64) bool {
		return math.Abs(got[0]-want[0]) < 0.02 && math.Abs(got[1]-want[1]) < 0.02
	}
	if len(first.Drawings) != 1 || first.Drawings[0].Kind != share.Free {
		t.Fatalf("first frame's drawings %+v", first.Drawings)
	}
	got := first.Drawings[0].Points
	if len(got) < len(stroke) || !near(got[0], stroke[0]) || !near(got[len(got)-1], stroke[len(stroke)-1]) {
		t.Errorf("free stroke %v; want it along %v", got, stroke)
	}
	for _, p := range got {
		if p[0] < 0 || p[0] > 1 || p[1] < 0 || p[1] > 1 || math.Abs((p[1]-p[0])-0.1) > 0.02 {
			t.Errorf("a point %v off the drawn line y = x + 0.1", p)
		}
	}
	if len(second.Drawings) != 1 || second.Drawings[0].Kind != share.Circle ||
		!near(second.Drawings[0].Points[0], [2]float64{0.25, 0.25}) || !near(second.Drawings[0].Points[1], [2]float64{0.75, 0.6}) {
		t.Errorf("second frame's drawings %+v", second.Drawings)
	}
	if n := countKind(t, a, owner.Session(), "share.finished", c.ID); n != 1 {
		t.Errorf("share.finished %d", n)
	}
	letters, err := a.DB.Emails(context.Background(), owner.Email)
	if err != nil || len(letters) == 0 || letters[0].Template != share.TemplateFinished || !strings.Contains(letters[0].Text, "Sleeve too long") {
		t.Errorf("finish letter: %+v %v", letters, err)
	}

	// A link that is not whole, or was revoked, shows the closed notice.
	a.Do(t, "POST", "/api/share/"+c.ID+"/revoke", k, nil)
	b.Navigate(t, a.URL+"/s#"+c.Token[:20])
	b.WaitFor(t, `!document.getElementById("gone").hidden`, 10*time.Second, "the notice for a broken link")
	b.Navigate(t, "about:blank")
	b.Navigate(t, c.URL)
	b.WaitFor(t, `!document.getElementById("gone").hidden`, 10*time.Second, "the notice for a revoked link")
}
