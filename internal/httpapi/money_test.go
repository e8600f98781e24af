package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/auth"
)

// moneyRoutes are the routes that spend money, with a valid body each.
var moneyRoutes = []struct {
	path string
	body any
}{
	{"/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "500"}},
	{"/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"}},
	{"/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 250}},
	{"/api/toolkit/ai/billing/portal", nil},
	{"/api/account/plan/cancel", nil},
	{"/api/toolkit/models/01a20abc-0000-7000-8000-000000000000/checkout", nil}, // 403 and 503 come before the face is read
	{"/api/toolkit/explore/pack/500/take", nil},
}

type opened struct{ URL, CheckoutID string }

// checkoutFor opens a checkout with the owner's session.
func checkoutFor(t *testing.T, a *apptest.App, cred apptest.Cred, path string, body any) opened {
	t.Helper()
	res := a.Do(t, "POST", path, cred, body)
	if res.Status != 200 {
		t.Fatalf("%s: %d %s", path, res.Status, res.Body)
	}
	var o opened
	res.JSON(t, &o)
	return o
}

// page fetches a page of the local test provider (not an API route).
func page(t *testing.T, method, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// pay presses the local provider's Pay button for a checkout.
func pay(t *testing.T, checkoutURL string) {
	t.Helper()
	if st, body := page(t, "POST", checkoutURL+"/pay"); st != 200 || !strings.Contains(body, "Paid (test mode)") {
		t.Fatalf("pay: %d %s", st, body)
	}
}

type moneyPlan struct {
	Tier, Status string
	RenewsAt     *string
}

type moneyInvoice struct {
	Kind      string
	AmountUSD *float64
}

func accountPlan(t *testing.T, a *apptest.App, cred apptest.Cred) (moneyPlan, []moneyInvoice) {
	t.Helper()
	res := a.Do(t, "GET", "/api/account", cred, nil)
	if res.Status != 200 {
		t.Fatalf("account: %d %s", res.Status, res.Body)
	}
	var v struct {
		Plan     moneyPlan
		Invoices []moneyInvoice
		Billing  struct{ CardOnFile bool }
	}
	res.JSON(t, &v)
	if v.Billing.CardOnFile != (v.Plan.Tier != "trial") {
		t.Errorf("cardOnFile %v with plan %+v", v.Billing.CardOnFile, v.Plan)
	}
	return v.Plan, v.Invoices
}

// TestMoneyStory: with the local test provider, an owner buys a 500-token
// pack and subscribes to studio through the hosted pages; both show on the
// account view and in the balance; renewals grant under the rollover
// multiple; the owner cancels and keeps the tokens; a member's and a key's
// attempts are 403; deliveries are verified and written once.
func TestMoneyStory(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		member := seated(t, a, owner.HouseID, auth.Member)
		memberCred := inHouse(t, a, member, owner.HouseID)
		key := a.Key(t, owner, "member")
		start, _ := billingBalance(t, a, owner.Session())

		t.Run("refusals before anything is read", func(t *testing.T) {
			for _, r := range moneyRoutes {
				for _, c := range []apptest.Cred{memberCred, key} {
					if res := a.Do(t, "POST", r.path, c, "{"); res.Status != 403 {
						t.Errorf("%s: got %d %s; want 403", r.path, res.Status, res.Body)
					}
				}
			}
			for _, c := range []apptest.Cred{memberCred, key} {
				if res := a.Do(t, "PATCH", "/api/account/billing-email", c, "{"); res.Status != 403 {
					t.Errorf("billing e-mail by another: %d %s", res.Status, res.Body)
				}
			}
			if res := a.Do(t, "PATCH", "/api/account/billing-email", owner.Session(), map[string]any{"email": "not an address"}); res.Code != "BAD_EMAIL" {
				t.Errorf("bad billing e-mail: %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "PATCH", "/api/account/billing-email", owner.Session(), map[string]any{"email": " Accounts@House.test "}); res.Status != 200 {
				t.Errorf("billing e-mail: %d %s", res.Status, res.Body)
			}
			var view struct{ Billing struct{ Email string } }
			a.Do(t, "GET", "/api/account", memberCred, nil).JSON(t, &view)
			if view.Billing.Email != "accounts@house.test" {
				t.Errorf("account view billing e-mail %q", view.Billing.Email)
			}
			res := a.Do(t, "POST", "/api/toolkit/ai/billing/portal", owner.Session(), nil)
			if res.Code != "NO_CUSTOMER" {
				t.Errorf("portal before paying: %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "POST", "/api/account/plan/cancel", owner.Session(), nil); res.Code != "NO_ACTIVE_PLAN" {
				t.Errorf("cancel a trial: %d %s", res.Status, res.Body)
			}
			for _, tc := range []struct{ path, body, code string }{
				{"/api/toolkit/ai/billing/checkout/topup", `{"pack":"300"}`, "BAD_PACK"},
				{"/api/toolkit/ai/billing/checkout/subscription", `{"tier":"trial"}`, "BAD_TIER"},
				{"/api/toolkit/ai/billing/checkout/custom", `{"tokens":99}`, "BAD_TOKENS"},
				{"/api/toolkit/ai/billing/checkout/custom", `{"tokens":"500"}`, "BAD_TOKENS"},
			} {
				if res := a.Do(t, "POST", tc.path, owner.Session(), tc.body); res.Code != tc.code {
					t.Errorf("%s %s: got %d %s; want %s", tc.path, tc.body, res.Status, res.Body, tc.code)
				}
			}
		})

		t.Run("a pack, paid on the hosted page, credits once", func(t *testing.T) {
			o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "500"})
			if !strings.HasPrefix(o.URL, a.URL+"/billing/local/checkout/") {
				t.Fatalf("url %s", o.URL)
			}
			st, body := page(t, "GET", o.URL)
			if st != 200 || !strings.Contains(body, "TEST MODE") || !strings.Contains(body, "$50.00") {
				t.Fatalf("checkout page: %d %s", st, body)
			}
			// Opening it grants nothing; neither does a browser coming back.
			if b, _ := billingBalance(t, a, owner.Session()); b.Topup != start.Topup {
				t.Fatalf("topup before paying: %d", b.Topup)
			}
			var h struct {
				Checkouts []struct{ ID string }
			}
			a.Do(t, "GET", "/api/toolkit/entitlements", memberCred, nil).JSON(t, &h)
			if len(h.Checkouts) != 1 || h.Checkouts[0].ID != o.CheckoutID {
				t.Fatalf("open checkouts %+v", h.Checkouts)
			}
			pay(t, o.URL)
			pay(t, o.URL) // the same order again: de-duplicated
			if b, _ := billingBalance(t, a, owner.Session()); b.Topup != start.Topup+500 {
				t.Fatalf("topup after paying twice: %d; want %d", b.Topup, start.Topup+500)
			}
			if st, body := page(t, "GET", o.URL); st != 200 || !strings.Contains(body, "This checkout is paid") {
				t.Fatalf("paid page: %d %s", st, body)
			}
		})

		t.Run("a subscription moves the plan and grants its tokens", func(t *testing.T) {
			o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"})
			pay(t, o.URL)
			b, _ := billingBalance(t, a, owner.Session())
			if b.Grant != start.Grant+600 {
				t.Fatalf("grant %d; want %d", b.Grant, start.Grant+600)
			}
			plan, invoices := accountPlan(t, a, owner.Session())
			if plan.Tier != "studio" || plan.Status != "active" || plan.RenewsAt == nil {
				t.Fatalf("plan %+v", plan)
			}
			kinds, paid := map[string]int{}, map[string]float64{}
			for _, in := range invoices {
				kinds[in.Kind]++
				if in.AmountUSD != nil {
					paid[in.Kind] += *in.AmountUSD
				}
			}
			if paid["topup"] != 50 || paid["subscription_grant"] != 49 {
				t.Errorf("amounts paid %v", paid)
			}
			if kinds["topup"] != 1 || kinds["subscription_grant"] != 1 {
				t.Fatalf("invoices %v", kinds)
			}
			// Renewals through the portal: the plan tokens top up to 2 x 600.
			res := a.Do(t, "POST", "/api/toolkit/ai/billing/portal", owner.Session(), nil)
			if res.Status != 200 {
				t.Fatalf("portal: %d %s", res.Status, res.Body)
			}
			var pu struct{ URL string }
			res.JSON(t, &pu)
			if st, body := page(t, "GET", pu.URL); st != 200 || !strings.Contains(body, "TEST MODE") {
				t.Fatalf("portal page: %d %s", st, body)
			}
			for _, want := range []int64{1200, 1200} {
				if st, body := page(t, "POST", pu.URL+"/renew"); st != 200 || !strings.Contains(body, "sent the signed delivery") {
					t.Fatalf("renew: %d %s", st, body)
				}
				if b, _ := billingBalance(t, a, owner.Session()); b.Grant != start.Grant+want {
					t.Fatalf("grant after renewal %d; want %d", b.Grant, start.Grant+want)
				}
			}
			// A failed renewal payment: past_due on the account view and the
			// entitlements, tokens kept; the paid renewal brings it back.
			before, _ := billingBalance(t, a, owner.Session())
			for _, step := range []struct{ action, want string }{{"fail", "past_due"}, {"fail", "past_due"}, {"renew", "active"}} {
				if st, body := page(t, "POST", pu.URL+"/"+step.action); st != 200 || !strings.Contains(body, "sent the signed delivery") {
					t.Fatalf("%s: %d %s", step.action, st, body)
				}
				var h struct{ Plan struct{ Tier, Status string } }
				a.Do(t, "GET", "/api/toolkit/entitlements", memberCred, nil).JSON(t, &h)
				if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != step.want || h.Plan.Status != step.want || h.Plan.Tier != "studio" {
					t.Fatalf("after %s: account %+v, entitlements %+v; want %s", step.action, plan, h.Plan, step.want)
				}
				if after, _ := billingBalance(t, a, owner.Session()); billingPartsOf(after) != billingPartsOf(before) {
					t.Fatalf("%s moved tokens: %+v -> %+v", step.action, before, after)
				}
			}
		})

		t.Run("cancel: the provider first, the plan mirrored, the tokens kept", func(t *testing.T) {
			before, _ := billingBalance(t, a, owner.Session())
			res := a.Do(t, "POST", "/api/account/plan/cancel", owner.Session(), nil)
			if res.Status != 200 {
				t.Fatalf("cancel: %d %s", res.Status, res.Body)
			}
			var c struct{ Status, EndsAt string }
			res.JSON(t, &c)
			ends, err := time.Parse(time.RFC3339, c.EndsAt)
			if c.Status != "canceled" || err != nil || !ends.After(time.Now().Add(27*24*time.Hour)) {
				t.Fatalf("canceled %+v", c)
			}
			if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != "canceled" || plan.Tier != "studio" {
				t.Fatalf("plan %+v", plan)
			}
			if after, _ := billingBalance(t, a, owner.Session()); billingPartsOf(after) != billingPartsOf(before) {
				t.Fatalf("tokens moved: %+v -> %+v", before, after)
			}
			if res := a.Do(t, "POST", "/api/account/plan/cancel", owner.Session(), nil); res.Code != "NO_ACTIVE_PLAN" {
				t.Fatalf("cancel again: %d %s", res.Status, res.Body)
			}
		})

		t.Run("deliveries", func(t *testing.T) {
			hook := "/api/toolkit/ai/billing/webhook/local"
			o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 250})
			order := map[string]any{"id": "ord-custom-1", "billing_reason": "purchase", "total_amount": 3000, "currency": "usd",
				"checkout_id": strings.TrimPrefix(o.URL, a.URL+"/billing/local/checkout/"), "customer_id": "lcus_x"}
			before, _ := billingBalance(t, a, owner.Session())
			bad := apptest.Delivery(t, "order.paid", order)
			bad.Header.Set("webhook-signature", "v1,"+strings.Repeat("A", 43)+"=")
			old := apptest.DeliveryAt(t, "msg-old", time.Now().Add(-10*time.Minute), "order.paid", order)
			for name, d := range map[string]apptest.Signed{"bad": bad, "old": old, "unsigned": {Body: bad.Body}} {
				if res := a.Do(t, "POST", hook, apptest.Anonymous, d); res.Status != 401 || res.Code != "BAD_SIGNATURE" {
					t.Errorf("%s signature: %d %s", name, res.Status, res.Body)
				}
			}
			if after, _ := billingBalance(t, a, owner.Session()); after.Topup != before.Topup {
				t.Fatalf("a refused delivery wrote: %d -> %d", before.Topup, after.Topup)
			}
			if res := a.Do(t, "POST", hook, apptest.Anonymous, apptest.Delivery(t, "benefit.created", map[string]any{})); !strings.Contains(string(res.Body), `"ignored"`) {
				t.Errorf("unknown type: %d %s", res.Status, res.Body)
			}
			garbled := apptest.Delivery(t, "order.paid", map[string]any{"id": 7})
			if res := a.Do(t, "POST", hook, apptest.Anonymous, garbled); res.Code != "UNPARSEABLE" {
				t.Errorf("unparseable: %d %s", res.Status, res.Body)
			}
			huge := apptest.Delivery(t, "order.paid", map[string]any{"id": "big", "note": strings.Repeat("a", 1<<20)})
			if res := a.Do(t, "POST", hook, apptest.Anonymous, huge); res.Status != 413 || res.Code != "BODY_TOO_LARGE" {
				t.Errorf("a body over 1 MiB: %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "POST", "/api/toolkit/ai/billing/webhook/stripe", apptest.Anonymous, bad); res.Status != 404 {
				t.Errorf("unknown provider: %d %s", res.Status, res.Body)
			}
			if res := a.Do(t, "POST", "/api/toolkit/ai/billing/webhook/polar", apptest.Anonymous, bad); res.Code != "BILLING_NOT_CONFIGURED" {
				t.Errorf("provider not configured: %d %s", res.Status, res.Body)
			}
			// Ten replays of one delivery at once, and ten deliveries of one
			// order under different ids: one entitlement.
			one := apptest.Delivery(t, "order.paid", order)
			var wg sync.WaitGroup
			results := make(chan string, 20)
			for i := range 20 {
				d := one
				if i%2 == 1 {
					d = apptest.Delivery(t, "order.paid", order)
				}
				wg.Go(func() {
					res := a.Do(t, "POST", hook, apptest.Anonymous, d)
					var out struct{ Result string }
					res.JSON(t, &out)
					results <- out.Result
				})
			}
			wg.Wait()
			close(results)
			counts := map[string]int{}
			for r := range results {
				counts[r]++
			}
			if counts["granted"] != 1 || counts["duplicate"] != 19 {
				t.Fatalf("results %v; want one granted", counts)
			}
			if after, _ := billingBalance(t, a, owner.Session()); after.Topup != before.Topup+250 {
				t.Fatalf("topup %d; want %d", after.Topup, before.Topup+250)
			}
			var h struct {
				Entitlements []struct{ OrderID, Kind string }
			}
			a.Do(t, "GET", "/api/toolkit/entitlements", a.Key(t, owner, "viewer"), nil).JSON(t, &h)
			n := 0
			for _, en := range h.Entitlements {
				if en.OrderID == "ord-custom-1" {
					n++
				}
			}
			if n != 1 || len(h.Entitlements) != 6 { // pack, subscription, 3 renewals, custom
				t.Fatalf("entitlements %+v", h.Entitlements)
			}
		})
	})
}

// TestMoneyNotConfigured: with no provider, every route that would move
// money answers 503 BILLING_NOT_CONFIGURED (after the owner check, before
// the body) and nothing changes.
func TestMoneyNotConfigured(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e, func(c *app.Config) { c.BillingProvider = "" })
		owner := a.SignUp(t, "owner")
		before, _ := billingBalance(t, a, owner.Session())
		for _, r := range moneyRoutes {
			for _, body := range []any{r.body, "{"} {
				if res := a.Do(t, "POST", r.path, owner.Session(), body); res.Status != 503 || res.Code != "BILLING_NOT_CONFIGURED" {
					t.Errorf("%s: %d %s", r.path, res.Status, res.Body)
				}
			}
		}
		d := apptest.Delivery(t, "order.paid", map[string]any{"id": "o1", "checkout_id": "c1"})
		if res := a.Do(t, "POST", "/api/toolkit/ai/billing/webhook/local", apptest.Anonymous, d); res.Code != "BILLING_NOT_CONFIGURED" {
			t.Errorf("webhook: %d %s", res.Status, res.Body)
		}
		if st, _ := page(t, "GET", a.URL+"/billing/local/checkout/x"); st != 404 {
			t.Errorf("local pages served without the local provider: %d", st)
		}
		after, _ := billingBalance(t, a, owner.Session())
		var h struct{ Entitlements, Checkouts []any }
		a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &h)
		if billingPartsOf(after) != billingPartsOf(before) || len(h.Entitlements)+len(h.Checkouts) != 0 {
			t.Fatalf("something changed: %+v -> %+v, %+v", before, after, h)
		}
	})
}
