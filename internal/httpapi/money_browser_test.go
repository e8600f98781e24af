package httpapi_test

import (
	"testing"
	"time"

	"studio/internal/apptest"
)

// TestMoneyInBrowser: the whole loop through the local test provider in
// headless Chromium: open a checkout, press Pay on the hosted page, see
// the balance grow once; coming back to the page grants nothing more.
func TestMoneyInBrowser(t *testing.T) {
	b := apptest.StartChromium(t, 1024, 768, false)
	a := apptest.New(t, apptest.SQLite(t))
	owner := a.SignUp(t, "owner")
	before, _ := billingBalance(t, a, owner.Session())
	o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"})

	b.Navigate(t, o.URL)
	b.WaitFor(t, `!!document.getElementById("pay")`, 20*time.Second, "the Pay button")
	var banner string
	b.Eval(t, `document.getElementById("test-mode").textContent`, &banner)
	if banner == "" {
		t.Fatal("the hosted page does not say it is test mode")
	}
	b.Click(t, "#pay")
	b.WaitFor(t, `(document.getElementById("title") || {}).textContent === "Paid (test mode)"`, 20*time.Second, "the paid page")
	after, _ := billingBalance(t, a, owner.Session())
	if after.Topup != before.Topup+100 || after.Balance != before.Balance+100 {
		t.Fatalf("balance %+v -> %+v; want +100 once", before, after)
	}
	b.Navigate(t, o.URL)
	b.WaitFor(t, `!!document.getElementById("paid")`, 20*time.Second, "the paid checkout")
	if again, _ := billingBalance(t, a, owner.Session()); again.Topup != after.Topup {
		t.Fatalf("coming back granted again: %d -> %d", after.Topup, again.Topup)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("the page raised: %v", errs)
	}
}
