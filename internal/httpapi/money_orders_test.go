package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/billing"
	"studio/internal/billing/polartest"
	"studio/internal/ops"
)

// TestPolarPaidOrders: the paid orders of issue 28, signed and shaped as
// Polar sends them, on each engine. A 1-cent order for the 2,000-token
// pack grants nothing; three orders naming one checkout grant once; a
// cancel that arrives before the first payment is kept, and the payment
// leaves the plan canceled at its period's end; a payment whose customer
// is another house's grants nothing. Each refusal is acknowledged (200
// refused: Polar stops retrying), raises one operator alert, and its
// repeats change nothing.
func TestPolarPaidOrders(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		polar := polartest.New(t)
		products := map[string]string{"pack-100": "p100", "pack-500": "p500", "pack-2000": "p2000", "studio": "pstudio",
			"atelier": "patelier", "maison": "pmaison", "custom": "pcustom"}
		a := apptest.New(t, e, func(c *app.Config) {
			c.BillingProvider, c.BillingWebhookSecret = "polar", polar.Secret
			c.PolarAccessToken, c.PolarURL, c.PolarProducts = polar.Token, polar.URL, products
		})
		polar.WebhookURL = a.URL + "/api/toolkit/ai/billing/webhook/polar"
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		idOf := func(u string) string { return u[strings.LastIndex(u, "polar_c_")+len("polar_c_"):] }
		alerts := func(kind string) int {
			t.Helper()
			var n int
			if err := a.DB.Pool().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM operator_alerts WHERE kind = '`+kind+`'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		send := func(typ string, data map[string]any, at time.Time, want billing.Result) {
			t.Helper()
			st, body := polar.SendAt(t, typ, data, at)
			var d billing.Delivered
			if err := json.Unmarshal([]byte(body), &d); st != 200 || err != nil || !d.OK || d.Result != want {
				t.Fatalf("%s %v: %d %s; want 200 %s", typ, data["id"], st, body, want)
			}
		}
		start, _ := billingBalance(t, a, owner.Session())

		// The checkout's request asks Polar for no discount codes: the order pays the price.
		o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "2000"})
		if req := polar.Requests[len(polar.Requests)-1]; req.Body["allow_discount_codes"] != false {
			t.Fatalf("checkout request %+v", req.Body)
		}
		cent := polar.Order(t, idOf(o.URL), false, 1)
		send("order.paid", cent, time.Now(), billing.Refused)
		send("order.paid", cent, time.Now(), billing.Duplicate) // Polar's retry
		if b, _ := billingBalance(t, a, owner.Session()); billingPartsOf(b) != billingPartsOf(start) {
			t.Fatalf("a 1-cent order for the 2,000 pack moved the balance: %+v -> %+v", start, b)
		}
		if n := alerts(billing.AlertPaymentMismatch); n != 1 {
			t.Fatalf("payment mismatch alerts: %d; want 1", n)
		}

		c := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"})
		order := polar.Order(t, idOf(c.URL), false, 1200)
		for i, want := range []billing.Result{billing.Granted, billing.Refused, billing.Refused} {
			if i > 0 {
				order["id"] = uuid.NewString() // another order naming the same checkout
			}
			send("order.paid", order, time.Now(), want)
		}
		if b, _ := billingBalance(t, a, owner.Session()); b.Topup != start.Topup+100 {
			t.Fatalf("three orders for one 100-token checkout: topup %d -> %d; want +100", start.Topup, b.Topup)
		}
		if n := alerts(billing.AlertDuplicateOrder); n != 2 {
			t.Fatalf("duplicate order alerts: %d; want 2", n)
		}
		ownerCustomer := order["customer_id"].(string)

		// The cancel is sent a minute after the payment happened, but
		// arrives first: kept, then applied when the payment lands.
		s := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"})
		first := polar.Order(t, idOf(s.URL), true, 4900)
		sub := first["subscription"].(map[string]any)
		periodEnd := sub["current_period_end"].(time.Time)
		paidAt := time.Now().Add(-time.Hour)
		send("subscription.canceled", map[string]any{"id": sub["id"], "status": "active", "customer_id": sub["customer_id"],
			"cancel_at_period_end": true, "current_period_end": periodEnd, "ends_at": periodEnd}, paidAt.Add(time.Minute), billing.Deferred)
		type held struct {
			Plan struct {
				Tier, Status string
				EndsAt       *time.Time
			}
		}
		var h held
		if a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &h); h.Plan.Tier != "trial" {
			t.Fatalf("a cancel before the payment moved the plan: %+v", h.Plan)
		}
		before, _ := billingBalance(t, a, owner.Session())
		send("order.paid", first, paidAt, billing.Granted)
		h = held{}
		a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &h)
		if h.Plan.Tier != "studio" || h.Plan.Status != "canceled" || h.Plan.EndsAt == nil || !h.Plan.EndsAt.Equal(periodEnd) {
			t.Fatalf("cancel, then pay: plan %+v; want studio canceled at %s", h.Plan, periodEnd)
		}
		if b, _ := billingBalance(t, a, owner.Session()); b.Grant != before.Grant+600 {
			t.Fatalf("the paid month: grant %d -> %d; want +600", before.Grant, b.Grant)
		}

		// Another house's checkout paid by the owner's customer at Polar.
		otherStart, _ := billingBalance(t, a, other.Session())
		oc := checkoutFor(t, a, other.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "500"})
		foreign := polar.Order(t, idOf(oc.URL), false, 5000)
		foreign["customer_id"] = ownerCustomer
		foreign["customer"].(map[string]any)["id"] = ownerCustomer
		send("order.paid", foreign, time.Now(), billing.Refused)
		for range 2 {
			send("order.paid", foreign, time.Now(), billing.Duplicate)
		}
		if b, _ := billingBalance(t, a, other.Session()); billingPartsOf(b) != billingPartsOf(otherStart) {
			t.Fatalf("a foreign customer's order moved the balance: %+v -> %+v", otherStart, b)
		}
		if n := alerts(billing.AlertCustomerConflict); n != 1 {
			t.Fatalf("customer conflict alerts: %d; want 1", n)
		}

		// The operators read each refusal in the failures view, with its reason.
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		var f ops.Failures
		a.Do(t, "GET", "/api/toolkit/admin/failures", op.Session(), nil).JSON(t, &f)
		kinds := map[string]int{}
		for _, al := range f.Alerts {
			if strings.HasPrefix(al.Kind, "billing.") {
				kinds[al.Kind]++
				if al.Detail["reason"] == nil || al.Detail["orderId"] == nil || !strings.Contains(al.Subject, "not granted") {
					t.Errorf("alert %+v", al)
				}
			}
		}
		if kinds[billing.AlertPaymentMismatch] != 1 || kinds[billing.AlertDuplicateOrder] != 2 || kinds[billing.AlertCustomerConflict] != 1 {
			t.Fatalf("billing alerts in the failures view: %v", kinds)
		}
	})
}
