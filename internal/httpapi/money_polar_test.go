package httpapi_test

import (
	"strings"
	"testing"

	"studio/internal/app"
	"studio/internal/apptest"
	"studio/internal/billing/polartest"
)

// TestMoneyPolar runs the money routes against a local stand-in of Polar's
// API: checkouts, the customer portal, cancel at period end; its signed
// deliveries credit, subscribe and renew; its refusals are 502 and change
// nothing.
func TestMoneyPolar(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		polar := polartest.New(t)
		products := map[string]string{"pack-100": "p100", "pack-500": "p500", "pack-2000": "p2000", "studio": "pstudio",
			"atelier": "patelier", "maison": "pmaison", "custom": "pcustom"}
		a := apptest.New(t, e, func(c *app.Config) {
			c.BillingProvider, c.BillingWebhookSecret = "polar", polar.Secret
			c.PolarAccessToken, c.PolarURL, c.PolarProducts = polar.Token, polar.URL, products
		})
		polar.WebhookURL = a.URL + "/api/toolkit/ai/billing/webhook/polar"
		owner := a.SignUp(t, "owner")
		start, _ := billingBalance(t, a, owner.Session())
		idOf := func(u string) string { return u[strings.LastIndex(u, "polar_c_")+len("polar_c_"):] }

		o := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "500"})
		req := polar.Requests[len(polar.Requests)-1]
		if req.Path != "/v1/checkouts/" || req.Body["products"].([]any)[0] != "p500" || req.Body["external_customer_id"] != owner.HouseID ||
			req.Body["metadata"].(map[string]any)["studio_checkout"] != o.CheckoutID {
			t.Fatalf("checkout request %+v", req)
		}
		if st := polar.Pay(t, idOf(o.URL), false, 5000); st != 200 {
			t.Fatalf("delivery: %d", st)
		}
		if b, _ := billingBalance(t, a, owner.Session()); b.Topup != start.Topup+500 {
			t.Fatalf("topup %d", b.Topup)
		}

		c := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 250})
		req = polar.Requests[len(polar.Requests)-1]
		if req.Body["amount"] != 3000.0 || req.Body["customer_id"] == nil {
			t.Fatalf("custom checkout request %+v", req)
		}
		polar.Pay(t, idOf(c.URL), false, 3000)

		s := checkoutFor(t, a, owner.Session(), "/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "atelier"})
		polar.Pay(t, idOf(s.URL), true, 14900)
		plan, _ := accountPlan(t, a, owner.Session())
		if plan.Tier != "atelier" || plan.Status != "active" {
			t.Fatalf("plan %+v", plan)
		}
		subs := polar.Subscriptions()
		polar.Renew(t, subs[0], 14900)
		if b, _ := billingBalance(t, a, owner.Session()); b.Topup != start.Topup+750 || b.Grant != start.Grant+4000 {
			t.Fatalf("balance %+v; want topup +750, grant +4000", b)
		}

		// Polar's subscription.past_due (a failed renewal payment) and
		// subscription.active (recovered) move the plan; tokens stay.
		sub := map[string]any{"id": subs[0], "customer_id": "polar_cus_x"}
		before, _ := billingBalance(t, a, owner.Session())
		for _, step := range []struct{ event, status, want string }{
			{"subscription.past_due", "past_due", "past_due"},
			{"subscription.updated", "active", "past_due"}, // the catch-all: ignored
			{"subscription.uncanceled", "active", "past_due"},
			{"subscription.active", "active", "active"},
			{"subscription.active", "active", "active"},
		} {
			sub["status"] = step.status
			if st := polar.Send(t, step.event, sub); st != 200 {
				t.Fatalf("%s: %d", step.event, st)
			}
			if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != step.want {
				t.Fatalf("after %s: plan %+v; want %s", step.event, plan, step.want)
			}
		}
		if after, _ := billingBalance(t, a, owner.Session()); billingPartsOf(after) != billingPartsOf(before) {
			t.Fatalf("status events moved tokens: %+v -> %+v", before, after)
		}

		res := a.Do(t, "POST", "/api/toolkit/ai/billing/portal", owner.Session(), nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), polar.URL+"/portal?customer_session_token=polar_cst_") {
			t.Fatalf("portal: %d %s", res.Status, res.Body)
		}

		if res := a.Do(t, "PATCH", "/api/account/billing-email", owner.Session(), map[string]any{"email": "ap@house.test"}); res.Status != 200 {
			t.Fatalf("billing e-mail: %d %s", res.Status, res.Body)
		}
		if req := polar.Requests[len(polar.Requests)-1]; req.Method != "PATCH" || req.Body["email"] != "ap@house.test" {
			t.Fatalf("customer update %+v", req)
		}

		// Polar's API has no charge of a saved method: auto top-up is 503
		// with a plain message, and reading says it is not available.
		for _, r := range []struct {
			method, path string
			body         any
		}{{"PUT", autochargePath, map[string]any{"threshold": 50, "pack": "100"}}, {"POST", autochargePath + "/run", nil}} {
			if res := a.Do(t, r.method, r.path, owner.Session(), r.body); res.Status != 503 || res.Code != "AUTOCHARGE_UNAVAILABLE" {
				t.Errorf("%s %s with Polar: %d %s", r.method, r.path, res.Status, res.Body)
			}
		}
		if res := a.Do(t, "PUT", autochargePath, owner.Session(), map[string]any{"enabled": false, "threshold": 50, "pack": "100"}); res.Status != 200 ||
			res.Map(t)["available"] != false {
			t.Errorf("a rule kept off with Polar: %d %s", res.Status, res.Body)
		}

		// A face is sold on the custom-price product, for its price.
		faces := importFaces(t, a, owner.Session(), map[string]any{"name": "Polar face", "tier": "exclusive", "priceCents": 12345})
		mo, res := checkoutModel(t, a, owner.Session(), faces["Polar face"])
		req = polar.Requests[len(polar.Requests)-1]
		if res.Status != 200 || req.Body["products"].([]any)[0] != "pcustom" || req.Body["amount"] != 12345.0 ||
			req.Body["metadata"].(map[string]any)["studio_face"] != faces["Polar face"] {
			t.Fatalf("model checkout: %d %s, request %+v", res.Status, res.Body, req)
		}
		polar.Pay(t, idOf(mo.URL), false, 12345)
		if m, _ := getModel(t, a, owner.Session(), faces["Polar face"]); !m.ExclusiveYours {
			t.Fatalf("the paid face: %+v", m)
		}
		faces = importFaces(t, a, owner.Session(), map[string]any{"name": "Refused face", "tier": "sale", "priceCents": 500})

		// The provider's refusals: 502, nothing recorded or changed.
		polar.Refuse["POST /v1/checkouts/"] = 500
		polar.Refuse["POST /v1/customer-sessions/"] = 422
		polar.Refuse["PATCH /v1/subscriptions/{id}"] = 403
		polar.Refuse["PATCH /v1/customers/{id}"] = 422
		var open struct{ Checkouts []any }
		a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &open)
		for _, tc := range []struct {
			path string
			body any
			code string
		}{
			{"/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"}, "CHECKOUT_FAILED"},
			{"/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "maison"}, "CHECKOUT_FAILED"},
			{"/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 100}, "CHECKOUT_FAILED"},
			{"/api/toolkit/models/" + faces["Refused face"] + "/checkout", nil, "CHECKOUT_FAILED"},
			{"/api/toolkit/explore/model/" + faces["Refused face"] + "/take", nil, "CHECKOUT_FAILED"},
			{"/api/toolkit/explore/plan/maison/take", nil, "CHECKOUT_FAILED"},
			{"/api/toolkit/ai/billing/portal", nil, "PORTAL_FAILED"},
			{"/api/account/plan/cancel", nil, "CANCEL_FAILED"},
			{"/api/account/billing-email", map[string]any{"email": "other@house.test"}, "BILLING_EMAIL_FAILED"},
		} {
			method := "POST"
			if tc.code == "BILLING_EMAIL_FAILED" {
				method = "PATCH"
			}
			if res := a.Do(t, method, tc.path, owner.Session(), tc.body); res.Status != 502 || res.Code != tc.code {
				t.Errorf("%s refused: %d %s", tc.path, res.Status, res.Body)
			}
		}
		var after struct{ Checkouts []any }
		a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &after)
		if len(after.Checkouts) != len(open.Checkouts) {
			t.Fatalf("a refused checkout was recorded: %d -> %d open", len(open.Checkouts), len(after.Checkouts))
		}
		if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != "active" {
			t.Fatalf("plan moved on a refused cancel: %+v", plan)
		}
		clear(polar.Refuse)

		res = a.Do(t, "POST", "/api/account/plan/cancel", owner.Session(), nil)
		if res.Status != 200 {
			t.Fatalf("cancel: %d %s", res.Status, res.Body)
		}
		if req := polar.Requests[len(polar.Requests)-1]; req.Method != "PATCH" || req.Body["cancel_at_period_end"] != true {
			t.Fatalf("cancel request %+v", req)
		}
		// Polar confirms with subscription.canceled: the plan stays canceled, once.
		if st := polar.Send(t, "subscription.canceled", map[string]any{"id": subs[0], "status": "active", "cancel_at_period_end": true}); st != 200 {
			t.Fatalf("canceled delivery: %d", st)
		}
		if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != "canceled" || plan.Tier != "atelier" {
			t.Fatalf("plan %+v", plan)
		}
		// Taken back in Polar's portal before the end: active again, no end.
		if st := polar.Send(t, "subscription.uncanceled", map[string]any{"id": subs[0], "status": "active", "cancel_at_period_end": false}); st != 200 {
			t.Fatalf("uncanceled delivery: %d", st)
		}
		var h struct {
			Plan struct {
				Status string
				EndsAt *string
			}
		}
		a.Do(t, "GET", "/api/toolkit/entitlements", owner.Session(), nil).JSON(t, &h)
		if plan, _ := accountPlan(t, a, owner.Session()); plan.Status != "active" || h.Plan.Status != "active" || h.Plan.EndsAt != nil {
			t.Fatalf("uncanceled: plan %+v, entitlements %+v", plan, h.Plan)
		}

		// A delivery signed with another secret, and none while the secret is unset.
		other := polartest.New(t)
		other.WebhookURL = polar.WebhookURL
		if st := other.Send(t, "order.paid", map[string]any{"id": "x"}); st != 401 {
			t.Fatalf("foreign signature: %d", st)
		}
		b := apptest.New(t, e, func(c *app.Config) {
			c.BillingProvider, c.BillingWebhookSecret = "polar", ""
			c.PolarAccessToken, c.PolarURL, c.PolarProducts = polar.Token, polar.URL, products
		})
		polar.WebhookURL = b.URL + "/api/toolkit/ai/billing/webhook/polar"
		if st := polar.Send(t, "order.paid", map[string]any{"id": "x"}); st != 401 {
			t.Fatalf("no secret: %d", st)
		}
	})
}
