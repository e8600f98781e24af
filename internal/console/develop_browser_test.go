package console_test

import (
	"context"
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	"studio/internal/apptest"
)

// runWorkers develops queued jobs until the test ends.
func runWorkers(t testing.TB, a *apptest.App) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.RunWorkers(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// uploaded puts a picture in the library through the API and returns its id.
func uploaded(t testing.TB, a *apptest.App, u *apptest.User, path, kind string) string {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/assets/upload", u.Session(), apptest.Multipart(t,
		apptest.Part{Name: "file", Filename: "piece.jpg", Data: readFile(t, path)}, apptest.Part{Name: "kind", Value: kind}))
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	var body struct{ Asset struct{ ID string } }
	res.JSON(t, &body)
	return body.Asset.ID
}

// answered is true once the develop form's preflight answer is shown (or
// the form has none): it arrives after the page loads and makes the form
// taller, so a click waits for it rather than racing the layout.
const answered = `(() => { const b = document.getElementById("preflight"); return !b || !!b.dataset.ok; })()`

// TestDevelopInBrowser: pick packshot from the catalog (its prices per
// quality on the card), choose the garment from the library, a ground
// colour from the declared options, 1k (the smallest frame keeps the
// test quick under -race); the preflight answer shows the
// price when the API has the route; submit, and the page follows the job
// on the socket until the frame lands beside its inputs with the judge's
// verdict; the bar's balance has moved by the price. Duplicate it and
// take it again "warmer"; both follow the same way; the runs page lists
// them.
func TestDevelopInBrowser(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	runWorkers(t, a)
	u := person(t, a, "Maison Vey")
	garment := uploaded(t, a, u, picture(t, t.TempDir(), "shirt.jpg", 350, 450, color.RGBA{190, 90, 70, 255}), "clothes")
	p := openPage(t, a, "develop", 1280, 800, false)
	signIn(t, p, u)
	p.goTo("/develop")
	p.check("the tools")
	p.shot("tools")
	p.click(`a[href^="/develop?tool=packshot"]`)
	p.waitPath("/develop?tool=packshot")
	p.click(`input[name="image"][value="` + garment + `"]`)
	p.b.Eval(t, `(() => { const s = document.getElementById("opt-shadow"); if (s) { s.value = "off"; s.dispatchEvent(new Event("change", {bubbles: true})); } })()`, nil)
	p.click(`input[name="quality"][value="1k"]`)
	p.waitText(`label[for="opt-bg"]`, "Ground") // the option bg, in the house's words
	var preflight bool
	p.b.Eval(t, `!!document.getElementById("preflight")`, &preflight)
	if preflight {
		p.waitText("#preflight", "4 tokens")
		p.waitText("#preflight [data-note]", "Nothing was held")
	}
	p.check("the packshot form")
	p.shot("form")
	p.click("#submit")
	p.waitPath("/develop?tool=packshot")
	p.until(`!!document.querySelector("[data-job]")`, 20*time.Second, "the job panel")
	p.shot("developing")
	p.until(`document.querySelector("[data-job]").dataset.state === "done" && !!document.querySelector("#result .verdict")`, 60*time.Second, "the frame and its verdict")
	p.until(`!!document.querySelector("#result img") && document.querySelector("#result img").naturalWidth > 0`, 20*time.Second, "the frame's picture")
	p.until(answered, 20*time.Second, "the preflight answer (it changes the page's height)")
	p.waitText("#balance", "56") // 60 granted, 4 for a packshot at 1k
	p.check("the result")
	p.shot("done")

	first := p.path()
	p.click(`button[data-api$="/duplicate"]`)
	p.until(`location.pathname + location.search !== `+jsString(first)+` && document.readyState === "complete"`, 20*time.Second, "the duplicate's page")
	p.until(`!!document.getElementById("direction") && `+answered, 60*time.Second, "the duplicate, landed")
	p.typeInto("#direction", "warmer")
	p.click(`form[data-api="POST /api/toolkit/takes"] button`)
	p.until(`location.search.includes("job=") && !!document.querySelector("#result .verdict") && !location.search.includes(`+jsString(strings.TrimPrefix(first, "/develop"))+`)`, 60*time.Second, "the take, landed and judged")
	p.shot("take")

	p.goTo("/develop/runs")
	p.until(`document.querySelectorAll("tbody tr").length >= 1`, 10*time.Second, "the runs")
	p.check("runs")
	p.shot("runs")

	// A try-on on the local engine is a composite: the preflight answer
	// beside the button says so, in the catalog's stead.
	if preflight {
		model := uploaded(t, a, u, picture(t, t.TempDir(), "model.jpg", 300, 450, color.RGBA{120, 110, 100, 255}), "model")
		p.goTo("/develop?tool=tryon&model=" + model + "&garment=" + garment)
		p.waitText("#preflight [data-note]", "Composite: the local engine lays each garment")
		p.until(`document.getElementById("tool-note").hidden`, 10*time.Second, "the catalog's note giving way to the answer's")
		p.check("the try-on's preflight")
		p.shot("tryon-preflight")
	}

	// The same form on a phone: each library box is one row, whole, that
	// scrolls sideways; the page itself does not.
	p.b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true}, nil)
	p.goTo("/develop?tool=packshot&image=" + garment)
	var fits struct {
		Cut           []string
		Scroll, Inner float64
	}
	p.b.Eval(t, `({cut: [...document.querySelectorAll(".choices")].filter((c) => c.scrollHeight > c.clientHeight + 1).map((c) => c.getAttribute("aria-label")),
		scroll: document.documentElement.scrollWidth, inner: innerWidth})`, &fits)
	if len(fits.Cut) > 0 || fits.Scroll > fits.Inner {
		t.Errorf("on a phone: boxes cutting a row %v; page %v wide in a %v window", fits.Cut, fits.Scroll, fits.Inner)
	}
	p.checkScripts("the phone's form")
	p.shot("phone-form")
}
