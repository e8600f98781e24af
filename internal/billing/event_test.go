package billing

import (
	"testing"
	"time"

	"studio/internal/ledger"
)

func TestParseEvent(t *testing.T) {
	end := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, body string
		want       Event
		err        bool
	}{
		{"first payment", `{"type":"order.paid","data":{"id":"o1","billing_reason":"subscription_create","total_amount":4900,
			"checkout_id":"c1","subscription_id":"s1","customer_id":"cu1","subscription":{"current_period_end":"2026-12-01T00:00:00Z"}}}`,
			Event{Type: OrderPaid, Raw: "order.paid", OrderID: "o1", CheckoutID: "c1", SubscriptionID: "s1", CustomerID: "cu1",
				AmountCents: 4900, PeriodEnd: end}, false},
		{"renewal", `{"type":"order.paid","data":{"id":"o2","billing_reason":"subscription_cycle","amount":4900,"checkout_id":null,"subscription_id":"s1"}}`,
			Event{Type: OrderPaid, Raw: "order.paid", OrderID: "o2", SubscriptionID: "s1", Renewal: true, AmountCents: 4900}, false},
		{"Polar's amounts: net of discounts, before tax", `{"type":"order.paid","timestamp":"2026-11-01T00:00:00Z","data":{"id":"o3",
			"billing_reason":"purchase","subtotal_amount":18000,"discount_amount":0,"net_amount":18000,"tax_amount":3600,
			"total_amount":21600,"currency":"USD","checkout_id":"c3","subscription_id":null,"customer_id":"cu1"}}`,
			Event{Type: OrderPaid, Raw: "order.paid", OrderID: "o3", CheckoutID: "c3", CustomerID: "cu1", AmountCents: 18000,
				Currency: "usd", At: end.AddDate(0, -1, 0)}, false},
		{"an order that says no amount", `{"type":"order.paid","data":{"id":"o4","checkout_id":"c4","currency":"usd"}}`,
			Event{Type: OrderPaid, Raw: "order.paid", OrderID: "o4", CheckoutID: "c4", AmountCents: -1, Currency: "usd"}, false},
		{"canceled", `{"type":"subscription.canceled","data":{"id":"s1","ends_at":"2026-12-01T00:00:00Z"}}`,
			Event{Type: SubscriptionCanceled, Raw: "subscription.canceled", SubscriptionID: "s1", EndsAt: end}, false},
		{"revoked", `{"type":"subscription.revoked","data":{"id":"s1","ended_at":"2026-12-01T00:00:00Z"}}`,
			Event{Type: SubscriptionRevoked, Raw: "subscription.revoked", SubscriptionID: "s1", EndsAt: end}, false},
		{"past due", `{"type":"subscription.past_due","data":{"id":"s1","status":"past_due","customer_id":"cu1","current_period_end":"2026-12-01T00:00:00Z"}}`,
			Event{Type: SubscriptionPastDue, Raw: "subscription.past_due", SubscriptionID: "s1", CustomerID: "cu1", EndsAt: end}, false},
		{"active again", `{"type":"subscription.active","data":{"id":"s1","status":"active"}}`,
			Event{Type: SubscriptionActive, Raw: "subscription.active", SubscriptionID: "s1"}, false},
		{"uncanceled", `{"type":"subscription.uncanceled","data":{"id":"s1","status":"active","ends_at":null}}`,
			Event{Type: SubscriptionUncanceled, Raw: "subscription.uncanceled", SubscriptionID: "s1"}, false},
		{"past due without id", `{"type":"subscription.past_due","data":{"status":"past_due"}}`, Event{}, true},
		{"the catch-all update", `{"type":"subscription.updated","data":{"id":"s1","status":"past_due"}}`,
			Event{Type: Ignored, Raw: "subscription.updated"}, false},
		{"unknown type", `{"type":"benefit.created","data":{}}`, Event{Type: Ignored, Raw: "benefit.created"}, false},
		{"no type", `{"data":{}}`, Event{}, true},
		{"order without id", `{"type":"order.paid","data":{}}`, Event{}, true},
		{"id of the wrong type", `{"type":"order.paid","data":{"id":7}}`, Event{}, true},
		{"not JSON", `nope`, Event{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEvent([]byte(tc.body))
			if (err != nil) != tc.err {
				t.Fatalf("err %v; want error %v", err, tc.err)
			}
			if !tc.err && got != tc.want {
				t.Fatalf("got %+v; want %+v", got, tc.want)
			}
		})
	}
}

// FuzzParseEvent: any body parses or is refused, never panics; a parsed
// order always names its order.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"type":"order.paid","data":{"id":"o1","checkout_id":"c1"}}`))
	f.Add([]byte(`{"type":"subscription.canceled","data":{"id":"s1"}}`))
	f.Add([]byte(`{"type":"subscription.past_due","data":{"id":"s1","status":"past_due"}}`))
	f.Add([]byte(`{"type":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := ParseEvent(body)
		if err == nil && ev.Type == OrderPaid && ev.OrderID == "" {
			t.Fatalf("an order without an id: %+v", ev)
		}
		if err == nil && ev.Type != OrderPaid && ev.Type != Ignored && ev.SubscriptionID == "" {
			t.Fatalf("a subscription event without an id: %+v", ev)
		}
	})
}

func TestMismatch(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want bool
	}{
		{Event{AmountCents: 18000, Currency: "usd"}, false},
		{Event{AmountCents: 1, Currency: "usd"}, true},
		{Event{AmountCents: 18001, Currency: "usd"}, true},
		{Event{AmountCents: 18000, Currency: "eur"}, true},
		{Event{AmountCents: 18000}, true},
		{Event{AmountCents: -1, Currency: "usd"}, true},
	} {
		if got := Mismatch(tc.ev, 18000); (got != "") != tc.want {
			t.Errorf("%+v against 18000: %q; want a mismatch %v", tc.ev, got, tc.want)
		}
	}
}

func TestParseProducts(t *testing.T) {
	got, err := ParseProducts(" pack-100=p1, studio = p2 ,")
	if err != nil || len(got) != 2 || got["pack-100"] != "p1" || got["studio"] != "p2" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"pack-100", "=p1", "studio="} {
		if _, err := ParseProducts(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCustomCents(t *testing.T) {
	s := NewService(nil, nil, Options{Prices: ledger.DefaultPrices(nil)})
	for n, want := range map[int64]int64{100: 1200, 250: 3000, 101: 1212, 100000: 1200000} {
		if got := s.CustomCents(n); got != want {
			t.Errorf("%d tokens: %d cents; want %d", n, got, want)
		}
	}
}
