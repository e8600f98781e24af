package console_test

import (
	"fmt"
	"image/color"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"studio/internal/apptest"
)

// TestConsoleStory is issue 29's story, step by step in headless Chromium,
// on SQLite and PostgreSQL: sign up; upload a garment and a model by
// drag-and-drop; develop a packshot and watch it finish live; compose a
// look, develop it, lock it, two variations; share three frames; open the
// reviewer's link in a second browser and mark keep and pass with a note;
// see the marks arrive in the first; top up 100 tokens through the local
// provider and see the balance rise once; mint and revoke an API key;
// invite a member who accepts from the letter's link. Each step keeps a
// screenshot, passes axe-core and raises no script error; every request
// the pages made is a route of the API or a console page.
func TestConsoleStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		runWorkers(t, a)
		dir := t.TempDir()
		garment := picture(t, dir, "linen-shirt.jpg", 320, 410, color.RGBA{196, 110, 84, 255})
		model := picture(t, dir, "model-ines.jpg", 300, 450, color.RGBA{205, 172, 150, 255})
		email := fmt.Sprintf("ines-%s@studio.test", e.Name)
		p := openPage(t, a, "story-"+e.Name, 1280, 800, false)

		// 1. Sign up.
		p.goTo("/")
		p.click(`a[href^="/sign-up"]`)
		p.waitPath("/sign-up")
		p.typeInto("#name", "Inès Marchetti")
		p.typeInto("#email", email)
		p.typeInto("#password", "a long enough password")
		p.click(`button[type=submit]`)
		p.waitPath("/")
		p.waitText("h1", "Inès Marchetti's house")
		p.check("signed up")
		p.shot("signed-up")

		// 2. A garment and a model, dropped on the library.
		p.goTo("/library")
		p.b.Eval(t, `document.getElementById("upload-kind").value = "clothes"`, nil)
		p.recordSaid("#upload-msg")
		p.b.DropFiles(t, "#drop", garment)
		p.waitSaid("#upload-msg", "1 of 1 uploaded")
		p.until(`document.querySelectorAll("#grid .tile").length === 1`, 20*time.Second, "the garment")
		p.b.Eval(t, `document.getElementById("upload-kind").value = "model"`, nil)
		p.recordSaid("#upload-msg")
		p.b.DropFiles(t, "#drop", model)
		p.waitSaid("#upload-msg", "1 of 1 uploaded")
		p.until(`document.querySelectorAll("#grid .tile").length === 2`, 20*time.Second, "the model")
		p.check("library")
		p.shot("library")
		var ids struct{ Garment, Model string }
		p.b.Eval(t, `({garment: [...document.querySelectorAll("#grid .tile")].find(t => t.textContent.includes("Clothes")).querySelector("input").value,
			model: [...document.querySelectorAll("#grid .tile")].find(t => t.textContent.includes("Model")).querySelector("input").value})`, &ids)

		// 3. A packshot, followed live to its verdict.
		// The preflight answer lands above the button and moves it: the
		// person reads it first (price and balance), then clicks.
		p.goTo("/develop?tool=packshot&image=" + ids.Garment)
		p.waitText("#preflight", "Ready")
		p.click("#submit")
		p.until(`!!document.querySelector("[data-job]")`, 20*time.Second, "the job")
		p.until(`!!document.querySelector("#result .verdict")`, 90*time.Second, "the packshot and its verdict")
		p.check("packshot")
		p.shot("packshot")

		// 4. A look: compose, develop, lock, two variations.
		p.goTo("/looks/new")
		p.typeInto("#look-name", "Linen, day")
		p.click(`input[name="model"][value="` + ids.Model + `"]`)
		p.click(`input[name="piece"][value="` + ids.Garment + `"]`)
		p.click(`#compose button[type=submit]`)
		// "/looks/new" starts with "/looks/" too: wait for the look's own
		// page, whose form develops the base frame.
		p.until(`location.pathname !== "/looks/new" && !!document.querySelector('form[data-api$="/develop-lock"] button')`, 20*time.Second, "the look's page")
		p.click(`form[data-api$="/develop-lock"] button`)
		p.until(`!!document.querySelector('button[data-api$="/lock"]')`, 90*time.Second, "the base frame")
		p.check("base frame")
		p.shot("base-frame")
		p.click(`button[data-api$="/lock"]`)
		p.until(`!!document.querySelector('form[data-api$="/variations"]')`, 20*time.Second, "the lock")
		p.click(`input[name="keys"][value="back"]`)
		p.click(`input[name="keys"][value="three-quarter"]`)
		p.click(`form[data-api$="/variations"] button[type=submit]`)
		p.until(`document.querySelectorAll('#grid .tile input[name="pick"]').length === 3`, 120*time.Second, "three frames")
		p.check("contact sheet")
		p.shot("contact-sheet")
		look := p.path()

		// 5. Share the three frames.
		for i := 1; i <= 3; i++ {
			p.click(fmt.Sprintf(`#grid .tile:nth-child(%d) .pick input`, i))
		}
		p.waitText("#picked", "3 selected")
		p.typeInto("#share-for", "Buyer")
		p.click(`form[data-api="POST /api/share"] button`)
		p.until(`!document.getElementById("shared").hidden && document.getElementById("share-url").textContent.includes("/s#")`, 20*time.Second, "the link")
		p.check("shared")
		p.shot("shared")
		link := p.text("#share-url")

		// 6. The reviewer, in a second browser on a phone: keep, pass, a note.
		r := openPage(t, a, "story-reviewer-"+e.Name, 390, 844, true)
		r.b.Navigate(t, link)
		r.until(`document.querySelectorAll("#strip .thumb").length === 3`, 20*time.Second, "the reviewer's frames")
		saved := func() {
			r.until(`document.getElementById("status").textContent === "Saved"`, 10*time.Second, "saved")
			r.b.Eval(t, `document.getElementById("status").textContent = ""`, nil)
		}
		r.b.Key(t, "k")
		saved()
		r.b.Click(t, "#comment")
		r.b.Type(t, "Sleeve too long")
		r.b.Key(t, "Escape")
		saved()
		r.b.Key(t, "ArrowRight")
		r.b.Key(t, "p")
		saved()
		r.b.Screenshot(t, r.dir+"/"+r.name+"-marked.png")

		// 7. The marks arrive on the contact sheet without a reload.
		p.until(`[...document.querySelectorAll("[data-marks-for]")].map(e => e.textContent).join(" ").includes("keep") &&
			[...document.querySelectorAll("[data-marks-for]")].map(e => e.textContent).join(" ").includes("pass") &&
			[...document.querySelectorAll("[data-marks-for]")].map(e => e.textContent).join(" ").includes("Sleeve too long")`, 30*time.Second, "the marks")
		if !strings.HasPrefix(p.path(), look) {
			t.Errorf("the contact sheet moved to %s", p.path())
		}
		p.check("marks")
		p.shot("marks")

		// 8. 100 tokens through the local provider, the balance up once.
		before := balance(t, a, p)
		p.goTo("/money")
		p.check("money")
		p.click(`button[data-body='{"pack":"100"}']`)
		p.waitPath("/billing/local/checkout/")
		p.click("#pay")
		p.waitText("#title", "Paid (test mode)")
		p.click("#back")
		p.waitPath("/billing/done?checkout=")
		p.waitText("#watch", "+100 tokens (topup)")
		p.check("billing done")
		p.shot("topped-up")
		if after := balance(t, a, p); after != before+100 {
			t.Errorf("the balance went %d -> %d; want +100 once", before, after)
		}
		p.goTo("/billing/done?checkout=again")
		p.until(`!document.getElementById("watch").textContent.startsWith("Reading")`, 20*time.Second, "the page to read the checkout")
		if again := balance(t, a, p); again != before+100 {
			t.Errorf("coming back moved the balance to %d", again)
		}

		// 9. An API key: minted, shown once, revoked.
		p.goTo("/house/keys")
		p.typeInto("#key-name", "The shop's pipeline")
		p.click(`form[data-api="POST /api/keys"] button`)
		p.until(`!document.getElementById("minted").hidden`, 20*time.Second, "the key")
		p.check("minted")
		p.shot("key-minted")
		key := p.text("#minted-key")
		if !strings.HasPrefix(key, "fis_sk_") {
			t.Fatalf("minted %q", key)
		}
		if res := a.Do(t, "GET", "/api/toolkit/ai/billing/balance", apptest.Cred{Key: key}, nil); res.Status != http.StatusOK {
			t.Fatalf("the new key: %d", res.Status)
		}
		p.goTo("/house/keys")
		p.click(`#keys button.danger`)
		p.waitText(`#keys button.danger`, "Press again")
		p.click(`#keys button.danger`)
		p.until(`!document.querySelector("#keys button.danger") && document.querySelector("#keys .badge").textContent === "revoked"`, 20*time.Second, "the revoked key")
		p.shot("key-revoked")
		if res := a.Do(t, "GET", "/api/toolkit/ai/billing/balance", apptest.Cred{Key: key}, nil); res.Status != http.StatusUnauthorized {
			t.Errorf("the revoked key still answers %d", res.Status)
		}

		// 10. A member, invited, accepts from the letter's link.
		member := fmt.Sprintf("noa-%s@studio.test", e.Name)
		p.goTo("/house/people")
		p.typeInto("#invite-email", member)
		p.click(`form[data-api="POST /api/toolkit/org/seats/invite"] button`)
		p.until(`!document.getElementById("offered").hidden`, 20*time.Second, "the offer")
		p.check("people")
		p.shot("invited")
		r.goTo(seatLink(t, a, member))
		r.waitPath("/sign-in?next=")
		r.click(`a[href^="/sign-up"]`)
		r.waitPath("/sign-up")
		r.typeInto("#name", "Noa")
		r.typeInto("#email", member)
		r.typeInto("#password", "another long password")
		r.click(`button[type=submit]`)
		r.waitPath("/join?invitation=")
		r.click(`button[data-api="POST /api/toolkit/org/seats/accept"]`)
		r.waitPath("/?joined=")
		r.waitText("h1", "Inès Marchetti's house")
		r.check("joined")
		r.shot("member-joined")

		for _, pg := range []*page{p, r} {
			for _, c := range pg.calls() {
				if c.Method == "CLICK" || c.Method == "SUBMIT" {
					continue
				}
				u, err := url.Parse(c.URL)
				if err != nil {
					t.Fatal(err)
				}
				req, _ := http.NewRequest(c.Method, u.Path, nil)
				if a.Server.Match(req) == "" {
					t.Errorf("a page called %s %s, which is no route of the API", c.Method, u.Path)
				}
			}
		}
	})
}

// balance reads the house's spendable tokens as the page's bar shows them.
func balance(t *testing.T, a *apptest.App, p *page) int64 {
	t.Helper()
	var b int64
	p.b.Eval(t, `fetch("/api/toolkit/ai/billing/balance").then(r => r.json()).then(b => b.balance)`, &b)
	return b
}
