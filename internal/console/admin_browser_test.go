package console_test

import (
	"image/color"
	"net/http"
	"testing"
	"time"

	"studio/internal/apptest"
)

// TestOperatorsInBrowser: a member asks the desk for help from the house's
// pages; a platform administrator sees every house's frames and develops,
// reads the e-mail log and one letter, grants the member's house tokens,
// and answers the ticket, which the member then reads. A seat that is no
// operator sees no Operators entry and gets the refusal at /admin.
func TestOperatorsInBrowser(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	runWorkers(t, a)
	member := person(t, a, "Atelier Sud")
	uploaded(t, a, member, picture(t, t.TempDir(), "g.jpg", 250, 300, color.RGBA{120, 140, 90, 255}), "clothes")
	admin := a.SignUpAs(t, &apptest.User{Name: "Operator", Email: "admin@studio.test", Password: "correct horse battery"})

	m := openPage(t, a, "operators-member", 1280, 800, false)
	signIn(t, m, member)
	m.goTo("/")
	var operators bool
	m.b.Eval(t, `!!document.querySelector('nav a[href="/admin"]')`, &operators)
	if operators {
		t.Error("a member is shown the Operators entry")
	}
	m.goTo("/admin/develops")
	m.waitText("h1", "Forbidden")
	m.seen = len(m.b.Errors()) // the 403 the browser logs is this step's point
	m.goTo("/house/support")
	m.typeInto("#t-subject", "A frame looks soft")
	m.typeInto("#t-body", "The packshot of the linen shirt came out soft at 2k. Could you look at it? Thank you.")
	m.click(`form[data-api="POST /api/toolkit/support/tickets"] button`)
	m.until(`document.querySelectorAll('main .list a[href^="/house/support/"]').length === 1`, 20*time.Second, "the ticket")
	m.check("the member's tickets")

	p := openPage(t, a, "operators", 1280, 800, false)
	signIn(t, p, admin)
	p.goTo("/")
	p.click(`nav a[href="/admin"]`)
	p.waitPath("/admin")
	p.until(`document.querySelectorAll(".grid .tile").length >= 1`, 10*time.Second, "every house's frames")
	p.check("houses")
	p.shot("houses")
	p.goTo("/admin/develops")
	p.check("develops")
	p.goTo("/admin/failures")
	p.check("failures")
	p.goTo("/admin/emails")
	p.until(`document.querySelectorAll("tbody tr").length >= 1`, 10*time.Second, "the letters")
	p.click(`tbody tr a`)
	p.waitPath("/admin/emails?id=")
	p.check("a letter")
	p.goTo("/admin/grants")
	p.typeInto("#g-email", member.Email)
	p.typeInto("#g-tokens", "50")
	p.typeInto("#g-reason", "A soft frame")
	p.click(`form[data-api="POST /api/toolkit/admin/grant-tokens"] button`)
	p.until(`!document.getElementById("granted").hidden`, 10*time.Second, "the grant")
	p.check("grants")
	var b struct{ Balance int64 }
	a.Do(t, "GET", "/api/toolkit/ai/billing/balance", member.Session(), nil).JSON(t, &b)
	if b.Balance != 110 {
		t.Errorf("the member's balance is %d after a grant of 50; want 110", b.Balance)
	}
	p.goTo("/admin/support")
	p.click(`main .list a`)
	p.waitPath("/admin/support/")
	p.typeInto("#desk-reply", "We looked: the source is 500 px wide, too small for 2k. Try 1k, or a larger photograph.")
	p.click(`form[data-api$="/reply"] button`)
	p.waitText("main .thread", "too small for 2k")
	p.check("the desk's ticket")
	p.shot("ticket")

	m.goTo("/house/support")
	m.click(`main .list a[href^="/house/support/"]`)
	m.waitText("main .thread", "too small for 2k")
	m.check("the member's thread")
	if res := a.Do(t, "GET", "/api/toolkit/admin/develops", member.Session(), nil); res.Status != http.StatusForbidden {
		t.Errorf("a member reads the admin route: %d", res.Status)
	}
}
