package httpapi_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/ledger"
)

const autochargePath = "/api/toolkit/ai/billing/autocharge"

type autochargeView struct {
	Enabled   bool
	Threshold int64
	Pack      *string
	Available bool
	LastRun   *struct {
		Day, CheckoutID string
		Tokens          int64
	}
}

type firedView struct {
	Fired      bool
	Reason     string
	Spendable  int64
	CheckoutID string
}

func runAutocharge(t *testing.T, a *apptest.App, cred apptest.Cred) (firedView, apptest.Resp) {
	t.Helper()
	res := a.Do(t, "POST", autochargePath+"/run", cred, nil)
	var f firedView
	if res.Status == 200 {
		res.JSON(t, &f)
	}
	return f, res
}

// TestMoneyAutocharge: the owner sets a standing order; a run buys the pack
// through the provider only when spendable is below the threshold and the
// house has a saved method, once a UTC day under concurrent runs; only the
// provider's delivery credits it; other seats and keys read and are 403 on
// the rest; a refused charge changes nothing and frees the day.
func TestMoneyAutocharge(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		memberCred := inHouse(t, a, seated(t, a, owner.HouseID, auth.Admin), owner.HouseID)
		key := a.Key(t, owner, "member")

		var v autochargeView
		if res := a.Do(t, "GET", autochargePath, key, nil); res.Status != 200 {
			t.Fatalf("get: %d %s", res.Status, res.Body)
		} else if res.JSON(t, &v); v.Enabled || v.Threshold != 0 || v.Pack != nil || !v.Available || v.LastRun != nil {
			t.Fatalf("no rule: %s", res.Body)
		}
		if f, res := runAutocharge(t, a, owner.Session()); res.Status != 200 || f.Fired || f.Reason != "off" {
			t.Fatalf("run with no rule: %d %s", res.Status, res.Body)
		}
		rule := map[string]any{"threshold": 100, "pack": "500"}
		tests := []struct {
			name       string
			method     string
			path       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
		}{
			{"an admin's session sets", "PUT", autochargePath, memberCred, rule, 403, "FORBIDDEN"},
			{"a key sets", "PUT", autochargePath, key, rule, 403, "FORBIDDEN"},
			{"an admin's session runs", "POST", autochargePath + "/run", memberCred, nil, 403, "FORBIDDEN"},
			{"a key runs", "POST", autochargePath + "/run", key, nil, 403, "FORBIDDEN"},
			{"threshold 0", "PUT", autochargePath, owner.Session(), map[string]any{"threshold": 0, "pack": "500"}, 400, "BAD_THRESHOLD"},
			{"threshold a string", "PUT", autochargePath, owner.Session(), map[string]any{"threshold": "50", "pack": "500"}, 400, "BAD_THRESHOLD"},
			{"threshold too big", "PUT", autochargePath, owner.Session(), map[string]any{"threshold": 100001, "pack": "500"}, 400, "BAD_THRESHOLD"},
			{"no such pack", "PUT", autochargePath, owner.Session(), map[string]any{"threshold": 50, "pack": "300"}, 400, "BAD_PACK"},
			{"enabled not a boolean", "PUT", autochargePath, owner.Session(), map[string]any{"enabled": "yes", "threshold": 50, "pack": "500"}, 400, "BAD_BODY"},
			{"the rule", "PUT", autochargePath, owner.Session(), rule, 200, ""},
			// Spendable 60 is below 100, but the house never paid: no saved method.
			{"no saved method", "POST", autochargePath + "/run", owner.Session(), nil, 409, "NO_SAVED_METHOD"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if res := a.Do(t, tt.method, tt.path, tt.cred, tt.body); res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}
		a.Do(t, "GET", autochargePath, memberCred, nil).JSON(t, &v)
		if !v.Enabled || v.Threshold != 100 || v.Pack == nil || *v.Pack != "500" || v.LastRun != nil {
			t.Fatalf("rule as read: %+v", v)
		}

		// A first purchase saves the method; 160 spendable is not short.
		pay(t, checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"}).URL)
		if f, res := runAutocharge(t, a, owner.Session()); f.Fired || f.Reason != "not_short" || f.Spendable != 160 {
			t.Fatalf("not short: %d %s", res.Status, res.Body)
		}
		// Held work brings spendable to 60: ten runs at once charge once.
		if err := a.DB.TakeHold(ctx, owner.HouseID, ledger.NewHold("", 100)); err != nil {
			t.Fatal(err)
		}
		before, _ := billingBalance(t, a, owner.Session())
		var wg sync.WaitGroup
		reasons := make(chan string, 10)
		for range 10 {
			wg.Go(func() {
				f, res := runAutocharge(t, a, owner.Session())
				if res.Status != 200 {
					t.Errorf("run: %d %s", res.Status, res.Body)
				}
				reasons <- f.Reason
			})
		}
		wg.Wait()
		close(reasons)
		counts := map[string]int{}
		for r := range reasons {
			counts[r]++
		}
		if counts["charged"] != 1 || counts["charged"]+counts["already_today"]+counts["not_short"] != 10 {
			t.Fatalf("reasons %v; want one charge", counts)
		}
		after, _ := billingBalance(t, a, owner.Session())
		if after.Topup != before.Topup+500 || after.Balance != before.Balance+500 {
			t.Fatalf("balance %+v -> %+v; want +500 once", billingPartsOf(before), billingPartsOf(after))
		}
		// Short again the same day: the rule charged today already.
		if err := a.DB.TakeHold(ctx, owner.HouseID, ledger.NewHold("", 520)); err != nil {
			t.Fatal(err)
		}
		f, res := runAutocharge(t, a, owner.Session())
		if f.Fired || f.Reason != "already_today" || f.CheckoutID == "" || f.Spendable != 40 {
			t.Fatalf("again today: %d %s", res.Status, res.Body)
		}
		a.Do(t, "GET", autochargePath, key, nil).JSON(t, &v)
		if v.LastRun == nil || v.LastRun.CheckoutID != f.CheckoutID || v.LastRun.Tokens != 500 ||
			v.LastRun.Day != time.Now().UTC().Format(time.DateOnly) {
			t.Fatalf("last run %+v; want the charge of %s", v.LastRun, f.CheckoutID)
		}
		var h struct{ Entitlements []struct{ Kind string } }
		a.Do(t, "GET", "/api/toolkit/entitlements", key, nil).JSON(t, &h)
		if len(h.Entitlements) != 2 {
			t.Fatalf("entitlements %+v; want the pack and the charge", h.Entitlements)
		}
		// Turned off, it keeps its threshold and pack and does not run.
		if res := a.Do(t, "PUT", autochargePath, owner.Session(), map[string]any{"enabled": false, "threshold": 100, "pack": "500"}); res.Status != 200 {
			t.Fatalf("off: %d %s", res.Status, res.Body)
		}
		if f, _ := runAutocharge(t, a, owner.Session()); f.Reason != "off" {
			t.Fatalf("run while off: %+v", f)
		}
		if err := a.DB.CheckLedger(ctx, owner.HouseID); err != nil {
			t.Error(err)
		}
	})
}

// TestMoneyAutochargeRefused: a charge the provider side does not complete
// (its delivery cannot reach the webhook) is 502 AUTOCHARGE_FAILED, credits
// nothing and leaves the day free; with no provider, setting and running
// are 503 BILLING_NOT_CONFIGURED while reading still answers.
func TestMoneyAutochargeRefused(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e, func(c *app.Config) { c.PublicURL = "http://127.0.0.1:1" })
		owner := a.SignUp(t, "owner")
		if res := a.Do(t, "PUT", autochargePath, owner.Session(), map[string]any{"threshold": 500, "pack": "100"}); res.Status != 200 {
			t.Fatalf("rule: %d %s", res.Status, res.Body)
		}
		if _, err := a.DB.RawExec(ctx, `INSERT INTO billing_customers (organization_id, provider, customer_id) VALUES (?, 'local', 'lcus_x')`,
			owner.HouseID); err != nil {
			t.Fatal(err)
		}
		before, _ := billingBalance(t, a, owner.Session())
		for range 2 { // the day stays free after a refusal
			if _, res := runAutocharge(t, a, owner.Session()); res.Status != 502 || res.Code != "AUTOCHARGE_FAILED" {
				t.Fatalf("refused charge: %d %s", res.Status, res.Body)
			}
		}
		var v autochargeView
		a.Do(t, "GET", autochargePath, owner.Session(), nil).JSON(t, &v)
		if after, _ := billingBalance(t, a, owner.Session()); billingPartsOf(after) != billingPartsOf(before) || v.LastRun != nil {
			t.Fatalf("a refused charge changed something: %+v -> %+v, last run %+v", before, after, v.LastRun)
		}

		none := apptest.New(t, e, func(c *app.Config) { c.BillingProvider = "" })
		o := none.SignUp(t, "owner")
		for _, r := range []struct {
			method, path string
			body         any
		}{{"PUT", autochargePath, map[string]any{"threshold": 50, "pack": "100"}}, {"PUT", autochargePath, "{"}, {"POST", autochargePath + "/run", nil}} {
			if res := none.Do(t, r.method, r.path, o.Session(), r.body); res.Status != 503 || res.Code != "BILLING_NOT_CONFIGURED" {
				t.Errorf("%s %s without a provider: %d %s", r.method, r.path, res.Status, res.Body)
			}
		}
		if res := none.Do(t, "GET", autochargePath, o.Session(), nil); res.Status != 200 || res.Map(t)["available"] != false {
			t.Errorf("read without a provider: %d %s", res.Status, res.Body)
		}
	})
}

// TestMoneyAutochargeFiresOnSettle: a settle that leaves the balance below
// the standing order's threshold queues one charge, however many settles
// follow below it; the workers' run charges it through the provider (its
// delivery credits the pack); a settle at or above the threshold arms the
// rule again. A charge the provider refuses raises an operator alert and
// credits nothing. On each engine.
func TestMoneyAutochargeFiresOnSettle(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		pay(t, checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"}).URL)
		if res := a.Do(t, "PUT", autochargePath, owner.Session(), map[string]any{"threshold": 159, "pack": "500"}); res.Status != 200 {
			t.Fatalf("rule: %d %s", res.Status, res.Body)
		}
		settle := func(n int64) {
			t.Helper()
			h := ledger.NewHold("", n)
			if err := a.DB.TakeHold(ctx, owner.HouseID, h); err != nil {
				t.Fatal(err)
			}
			if err := a.DB.PostHold(ctx, owner.HouseID, h.ID); err != nil {
				t.Fatal(err)
			}
		}
		due := func() (queued, armed int) {
			_ = a.DB.QueryTest(ctx, `SELECT COUNT(*) FROM billing_autocharge_due WHERE organization_id = '`+owner.HouseID+`'`, &queued)
			_ = a.DB.QueryTest(ctx, `SELECT armed FROM billing_autocharge WHERE organization_id = '`+owner.HouseID+`'`, &armed)
			return
		}
		settle(1) // 159: not below
		if q, armed := due(); q != 0 || armed != 1 {
			t.Fatalf("at the threshold: queued %d, armed %d", q, armed)
		}
		if n, err := a.Billing.RunDue(ctx); n != 0 || err != nil {
			t.Fatalf("nothing queued, yet %d ran (%v)", n, err)
		}
		settle(2) // 157: crossed
		settle(3) // 154: still below, no second charge
		if q, armed := due(); q != 1 || armed != 0 {
			t.Fatalf("after crossing: queued %d, armed %d; want one charge queued, disarmed", q, armed)
		}
		if n, err := a.Billing.RunDue(ctx); n != 1 || err != nil {
			t.Fatalf("run: %d %v", n, err)
		}
		b, _ := billingBalance(t, a, owner.Session())
		if b.Balance != 654 || b.Topup < 500 {
			t.Fatalf("balance %+v; want 154 + the 500 pack", billingPartsOf(b))
		}
		if n, _ := a.Billing.RunDue(ctx); n != 0 {
			t.Fatalf("the charge ran %d more times", n)
		}
		var v autochargeView
		a.Do(t, "GET", autochargePath, owner.Session(), nil).JSON(t, &v)
		if v.LastRun == nil || v.LastRun.Tokens != 500 {
			t.Fatalf("last run %+v", v.LastRun)
		}
		settle(4) // 650: at or above: armed again
		if q, armed := due(); q != 0 || armed != 1 {
			t.Fatalf("back above: queued %d, armed %d", q, armed)
		}
		if err := a.DB.CheckLedger(ctx, owner.HouseID); err != nil {
			t.Error(err)
		}

		// A provider that does not complete the charge: an alert, nothing credited.
		broken := apptest.New(t, e, func(c *app.Config) { c.PublicURL = "http://127.0.0.1:1" })
		o := broken.SignUp(t, "owner")
		if res := broken.Do(t, "PUT", autochargePath, o.Session(), map[string]any{"threshold": 59, "pack": "100"}); res.Status != 200 {
			t.Fatalf("rule: %d %s", res.Status, res.Body)
		}
		if _, err := broken.DB.RawExec(ctx, `INSERT INTO billing_customers (organization_id, provider, customer_id) VALUES (?, 'local', 'lcus_x')`,
			o.HouseID); err != nil {
			t.Fatal(err)
		}
		h := ledger.NewHold("", 2)
		if err := broken.DB.TakeHold(ctx, o.HouseID, h); err != nil {
			t.Fatal(err)
		}
		if err := broken.DB.PostHold(ctx, o.HouseID, h.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := broken.Billing.RunDue(ctx); n != 1 || err != nil {
			t.Fatalf("run: %d %v", n, err)
		}
		var alerts, queued int
		_ = broken.DB.QueryTest(ctx, `SELECT COUNT(*) FROM operator_alerts WHERE kind = 'autocharge_failed' AND subject = '`+o.HouseID+`'`, &alerts)
		_ = broken.DB.QueryTest(ctx, `SELECT COUNT(*) FROM billing_autocharge_due`, &queued)
		if b, _ := billingBalance(t, broken, o.Session()); alerts != 1 || queued != 0 || b.Balance != 58 {
			t.Errorf("refused: %d alerts, %d queued, balance %+v; want 1, 0, 58", alerts, queued, billingPartsOf(b))
		}
	})
}
