package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/billing"
	"studio/internal/ledger"
)

// paidOrders is the fixture of the paid-order tests: a store on one
// engine and what a test asks of it.
type paidOrders struct {
	t     *testing.T
	db    *DB
	offer func(ledger.PlanTier) (ledger.PlanOffer, bool)
}

// checkout opens a checkout of the house and answers its provider id.
func (p paidOrders) checkout(house string, kind billing.Kind, tier ledger.PlanTier, tokens, cents int64) string {
	p.t.Helper()
	c := billing.Checkout{ID: uuid.NewString(), House: house, Kind: kind, Tier: tier, Tokens: tokens, AmountCents: cents,
		ProviderID: "co-" + uuid.NewString(), URL: "https://pay.test/"}
	if err := p.db.OpenCheckout(context.Background(), billing.Polar, c); err != nil {
		p.t.Fatal(err)
	}
	return c.ProviderID
}

// deliver applies one delivery of ev under a new webhook-id.
func (p paidOrders) deliver(ev billing.Event) billing.Outcome {
	p.t.Helper()
	out, err := p.db.ApplyDelivery(context.Background(), billing.Polar, "msg_"+uuid.NewString(), ev, p.offer)
	if err != nil {
		p.t.Fatalf("delivery of %+v: %v (a provider would retry it for ever)", ev, err)
	}
	return out
}

// alerts counts the operator alerts of a kind.
func (p paidOrders) alerts(kind string) int {
	p.t.Helper()
	var n int
	if err := p.db.read().QueryRow(context.Background(), `SELECT COUNT(*) FROM operator_alerts WHERE kind = ?`, kind).Scan(&n); err != nil {
		p.t.Fatal(err)
	}
	return n
}

func paidOrder(checkout, customer string, cents int64) billing.Event {
	return billing.Event{Type: billing.OrderPaid, Raw: "order.paid", OrderID: "ord-" + uuid.NewString(), CheckoutID: checkout,
		CustomerID: customer, AmountCents: cents, Currency: billing.Currency}
}

// TestPaidOrderChecks: a paid order grants what was paid for, once (issue
// 28, DECISIONS §11), on each engine. An order whose amount or currency is
// not the checkout's price, a second order for a checkout already granted,
// an order whose customer or subscription is another house's: each grants
// nothing, raises one operator alert, and is acknowledged (no error, so
// the provider stops retrying); its retries change nothing and raise no
// second alert.
func TestPaidOrderChecks(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		p := paidOrders{t: t, db: db, offer: ledger.DefaultPrices(nil).Plan}
		_, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		atelier, _ := p.offer(ledger.TierAtelier)

		// The other house is the provider's customer cu-other and pays its plan on s-other.
		sub := p.checkout(other, billing.KindSubscription, ledger.TierAtelier, atelier.MonthlyTokens, atelier.PriceUSD*100)
		first := paidOrder(sub, "cu-other", atelier.PriceUSD*100)
		first.SubscriptionID = "s-other"
		if out := p.deliver(first); out.Result != billing.Granted || out.House != other {
			t.Fatalf("the other house's plan: %+v", out)
		}
		otherGrant := balanceOf(t, db, other).Grant

		for _, tc := range []struct {
			name  string
			ev    func() billing.Event
			alert string
		}{
			{"a 1-cent order for the 2,000 pack", func() billing.Event {
				return paidOrder(p.checkout(house, billing.KindTopUp, "", 2000, 18000), "cu-house", 1)
			}, billing.AlertPaymentMismatch},
			{"the price in another currency", func() billing.Event {
				ev := paidOrder(p.checkout(house, billing.KindTopUp, "", 100, 1200), "cu-house", 1200)
				ev.Currency = "eur"
				return ev
			}, billing.AlertPaymentMismatch},
			{"an order that says no amount", func() billing.Event {
				return paidOrder(p.checkout(house, billing.KindCustom, "", 250, 3000), "cu-house", -1)
			}, billing.AlertPaymentMismatch},
			{"a first payment below the plan's price", func() billing.Event {
				ev := paidOrder(p.checkout(house, billing.KindSubscription, ledger.TierAtelier, atelier.MonthlyTokens, atelier.PriceUSD*100),
					"cu-house", 100)
				ev.SubscriptionID = "s-cheap"
				return ev
			}, billing.AlertPaymentMismatch},
			{"a renewal below the plan's price", func() billing.Event {
				ev := paidOrder("", "cu-other", atelier.PriceUSD*100-1)
				ev.SubscriptionID, ev.Renewal = "s-other", true
				return ev
			}, billing.AlertPaymentMismatch},
			{"a customer tied to another house", func() billing.Event {
				return paidOrder(p.checkout(house, billing.KindTopUp, "", 500, 5000), "cu-other", 5000)
			}, billing.AlertCustomerConflict},
			{"a first payment naming another house's subscription", func() billing.Event {
				ev := paidOrder(p.checkout(house, billing.KindSubscription, ledger.TierAtelier, atelier.MonthlyTokens, atelier.PriceUSD*100),
					"cu-house", atelier.PriceUSD*100)
				ev.SubscriptionID = "s-other"
				return ev
			}, billing.AlertCustomerConflict},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p.t = t
				before, plan, alerts := balanceOf(t, db, house), planOf(t, db, house), p.alerts(tc.alert)
				ev := tc.ev()
				if out := p.deliver(ev); out.Result != billing.Refused || out.Reason == "" {
					t.Fatalf("outcome %+v; want refused with a reason", out)
				}
				// The provider retries it, and sends the same order under another id.
				for range 2 {
					if out := p.deliver(ev); out.Result != billing.Duplicate {
						t.Fatalf("retry: %+v; want duplicate", out)
					}
				}
				if got := p.alerts(tc.alert); got != alerts+1 {
					t.Errorf("%s alerts: %d -> %d; want one more", tc.alert, alerts, got)
				}
				if after := balanceOf(t, db, house); partsOf(after) != partsOf(before) {
					t.Errorf("balance moved: %+v -> %+v", partsOf(before), partsOf(after))
				}
				if after := planOf(t, db, house); after != plan {
					t.Errorf("plan moved: %+v -> %+v", plan, after)
				}
				if after := balanceOf(t, db, other); after.Grant != otherGrant {
					t.Errorf("the other house's grant: %d; want %d", after.Grant, otherGrant)
				}
			})
		}
		p.t = t

		// Three orders naming one checkout: the first grants, the others are
		// refused (money taken twice: an alert each), whatever their ids.
		before := balanceOf(t, db, house)
		co := p.checkout(house, billing.KindTopUp, "", 100, 1200)
		for i := range 3 {
			out := p.deliver(paidOrder(co, "cu-house", 1200))
			if want := map[bool]billing.Result{true: billing.Granted, false: billing.Refused}[i == 0]; out.Result != want {
				t.Fatalf("order %d for one checkout: %+v; want %s", i+1, out, want)
			}
		}
		if after := balanceOf(t, db, house); after.Topup != before.Topup+100 {
			t.Fatalf("three orders for one 100-token checkout: topup %d -> %d; want +100", before.Topup, after.Topup)
		}
		if n := p.alerts(billing.AlertDuplicateOrder); n != 2 {
			t.Fatalf("duplicate order alerts: %d; want 2", n)
		}
		// The house is now the provider's customer cu-house: the right price grants.
		if out := p.deliver(paidOrder(p.checkout(house, billing.KindTopUp, "", 2000, 18000), "cu-house", 18000)); out.Result != billing.Granted ||
			out.Tokens != 2000 {
			t.Fatalf("the right price: %+v", out)
		}
	})
}

// shownPlan is a plan's status, renewal and end, for comparisons.
type shownPlan struct {
	Status           ledger.PlanStatus
	RenewsAt, EndsAt int64
}

func planOf(t *testing.T, db *DB, house string) shownPlan {
	t.Helper()
	p, err := db.Plan(context.Background(), house)
	if err != nil {
		t.Fatal(err)
	}
	out := shownPlan{Status: p.Status}
	if p.RenewsAt != nil {
		out.RenewsAt = p.RenewsAt.UnixMilli()
	}
	if p.EndsAt != nil {
		out.EndsAt = p.EndsAt.UnixMilli()
	}
	return out
}

// subStep is an event of a subscription's life, in the model of its
// orderings.
type subStep struct {
	typ   billing.EventType // OrderPaid: the first payment, or a renewal when it is not the first
	at    time.Duration     // when it happened, after the start
	until time.Duration     // a payment: its period's end; a cancel: the end it names (0: none)
}

// modelPlan is the plan the events leave when applied one by one in the
// order they happened, written out plainly: the model the store must
// match whatever order the deliveries arrive in.
func modelPlan(start time.Time, steps []subStep) shownPlan {
	var p shownPlan
	ms := func(d time.Duration) int64 { return start.Add(d).UnixMilli() }
	for _, s := range steps {
		at := ms(s.at)
		switch s.typ {
		case billing.OrderPaid:
			p = shownPlan{Status: ledger.Active, RenewsAt: ms(s.until)}
		case billing.SubscriptionCanceled:
			p.Status, p.EndsAt = ledger.Canceled, p.RenewsAt
			if s.until != 0 {
				p.EndsAt = ms(s.until)
			}
		case billing.SubscriptionRevoked:
			p.Status, p.EndsAt = ledger.Canceled, at
		case billing.SubscriptionPastDue:
			if p.Status == ledger.Active {
				p.Status = ledger.PastDue
			}
		case billing.SubscriptionActive:
			if p.Status == ledger.PastDue {
				p.Status = ledger.Active
			}
		case billing.SubscriptionUncanceled:
			if p.Status == ledger.Canceled && p.EndsAt > at {
				p.Status, p.EndsAt = ledger.Active, 0
			}
		}
	}
	return p
}

// arrivals lists the orders of arrival tried for n events: every order
// of two; of more, each event first once (the rest in the order they
// happened), and all in reverse. The first payment is event 0.
func arrivals(n int) [][]int {
	if n <= 2 {
		return permutations(n)
	}
	var out [][]int
	for first := range n {
		order := []int{first}
		for i := range n {
			if i != first {
				order = append(order, i)
			}
		}
		out = append(out, order)
	}
	reverse := slices.Clone(out[0])
	slices.Reverse(reverse)
	return append(out, reverse)
}

// permutations lists every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// TestSubscriptionEventOrders is the model test of a subscription's event
// orderings (issue 28), on each engine: for each life (pay and cancel, a
// cancel taken back, a failed renewal recovered, a revoke...), every order
// of arrival of its deliveries tried (arrivals) leaves the plan the model leaves by
// applying the events in the order they happened, and grants each payment
// once. A subscription event that arrives before the first payment is
// kept (deferred) and counts when the payment lands; a renewal arrives
// after the first payment (the provider charges it a period later).
func TestSubscriptionEventOrders(t *testing.T) {
	day := 24 * time.Hour
	pay := func(at, until time.Duration) subStep { return subStep{billing.OrderPaid, at, until} }
	ev := func(typ billing.EventType, at time.Duration) subStep { return subStep{typ, at, 0} }
	lives := []struct {
		name  string
		steps []subStep
	}{
		{"paid, then canceled at the period's end", []subStep{pay(0, 30*day), ev(billing.SubscriptionCanceled, time.Minute)}},
		{"canceled with its own end", []subStep{pay(0, 30*day), {billing.SubscriptionCanceled, time.Hour, 20 * day}}},
		{"canceled, then taken back", []subStep{pay(0, 30*day), ev(billing.SubscriptionCanceled, day), ev(billing.SubscriptionUncanceled, 2*day)}},
		{"taken back after the end", []subStep{pay(0, 30*day), {billing.SubscriptionCanceled, day, 3 * day},
			ev(billing.SubscriptionUncanceled, 4*day)}},
		{"a failed renewal, recovered", []subStep{pay(0, 30*day), ev(billing.SubscriptionPastDue, 30*day), ev(billing.SubscriptionActive, 31*day)}},
		{"a failed renewal, paid", []subStep{pay(0, 30*day), ev(billing.SubscriptionPastDue, 30*day), pay(31*day, 61*day)}},
		{"renewed, then canceled", []subStep{pay(0, 30*day), pay(30*day, 60*day), ev(billing.SubscriptionCanceled, 40*day)}},
		{"canceled, revoked, taken back", []subStep{pay(0, 30*day), ev(billing.SubscriptionCanceled, day), ev(billing.SubscriptionRevoked, 2*day),
			ev(billing.SubscriptionUncanceled, 3*day)}},
		{"past due, canceled, recovered", []subStep{pay(0, 30*day), ev(billing.SubscriptionPastDue, 30*day),
			ev(billing.SubscriptionCanceled, 30*day+time.Hour), ev(billing.SubscriptionActive, 31*day)}},
	}
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		p := paidOrders{t: t, db: db, offer: ledger.DefaultPrices(nil).Plan}
		studio, _ := p.offer(ledger.TierStudio)
		// The deliveries arrive in one instant of the store's clock; what
		// orders the events is when each says it happened.
		start := clock.Now().Add(-time.Hour)
		for _, life := range lives {
			want := modelPlan(start, life.steps)
			payments := 0
			for _, s := range life.steps {
				if s.typ == billing.OrderPaid {
					payments++
				}
			}
			for _, order := range arrivals(len(life.steps)) {
				if renewalFirst(life.steps, order) {
					continue // a renewal before the first payment: not a provider's order of events
				}
				_, house := newLedgerHouse(t, db)
				grant := balanceOf(t, db, house).Grant
				subID := "sub-" + uuid.NewString()
				co := p.checkout(house, billing.KindSubscription, ledger.TierStudio, studio.MonthlyTokens, studio.PriceUSD*100)
				seen, deferred := false, 0
				for _, i := range order {
					s := life.steps[i]
					ev := billing.Event{Type: s.typ, Raw: string(s.typ), SubscriptionID: subID, At: start.Add(s.at)}
					if s.typ == billing.OrderPaid {
						ev = paidOrder(co, "cu-"+house, studio.PriceUSD*100)
						ev.SubscriptionID, ev.At, ev.PeriodEnd, ev.Renewal = subID, start.Add(s.at), start.Add(s.until), i != 0
						if ev.Renewal {
							ev.CheckoutID = ""
						}
					} else if s.until != 0 {
						ev.EndsAt = start.Add(s.until)
					}
					out := p.deliver(ev)
					switch {
					case i == 0:
						seen = true
						if out.Result != billing.Granted {
							t.Fatalf("%s, arrival %v: the first payment: %+v", life.name, order, out)
						}
					case !seen:
						deferred++
						if out.Result != billing.Deferred {
							t.Fatalf("%s, arrival %v: %s before the payment: %+v; want deferred", life.name, order, s.typ, out)
						}
						if got := planOf(t, db, house); got.Status != ledger.Trialing {
							t.Fatalf("%s, arrival %v: a deferred %s moved the plan: %+v", life.name, order, s.typ, got)
						}
					case s.typ == billing.OrderPaid && out.Result != billing.Granted:
						t.Fatalf("%s, arrival %v: a renewal: %+v", life.name, order, out)
					}
				}
				if got := planOf(t, db, house); got != want {
					t.Errorf("%s, arrival %v: plan %+v; the model's %+v", life.name, order, got, want)
				}
				// Each payment granted once: the first a month, a renewal tops
				// up to the rollover cap (nothing was spent).
				if got := balanceOf(t, db, house).Grant; got != grant+planGrant(studio, payments) {
					t.Errorf("%s, arrival %v: grant %d; want %d", life.name, order, got, grant+planGrant(studio, payments))
				}
			}
		}
	})
}

// planGrant is what n paid periods of a plan grant, nothing spent: each
// tops the plan's live tokens up, capped by its rollover.
func planGrant(o ledger.PlanOffer, n int) int64 {
	var live int64
	for range n {
		live += o.PeriodGrant(live)
	}
	return live
}

// renewalFirst reports whether a payment other than the first arrives
// before the first in order.
func renewalFirst(steps []subStep, order []int) bool {
	for _, i := range order {
		if i == 0 {
			return false
		}
		if steps[i].typ == billing.OrderPaid {
			return true
		}
	}
	return false
}

// TestMigrationPaidOrders: migration 00114 carries over what was there, on
// each engine: a checkout already granted grants no more, and a plan that
// mirrors a subscription gets the events its row stands for, so the fold
// of later events starts from it (canceled stays canceled at its end).
// The migration's carry-over statements run here on rows written as
// before it (running every migration from scratch is too slow a test).
func TestMigrationPaidOrders(t *testing.T) {
	file, err := migrations.ReadFile("migrations/00114_paid_orders.sql")
	if err != nil {
		t.Fatal(err)
	}
	up := string(file)
	up = up[strings.Index(up, "-- What was there before"):strings.Index(up, "-- +goose Down")]
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		db := openLedgerDB(t, e, newLedgerClock().Now)
		_, h1 := newLedgerHouse(t, db)
		_, h2 := newLedgerHouse(t, db)
		for _, q := range []string{
			`UPDATE plans SET tier = 'studio', status = 'canceled', period_start = 100, renews_at = 900, ends_at = 900, updated_at = 200,
				provider = 'polar', subscription_id = 's1' WHERE organization_id = '` + h1 + `'`,
			`UPDATE plans SET tier = 'atelier', status = 'past_due', period_start = 100, renews_at = 900, ends_at = NULL, updated_at = 300,
				provider = 'polar', subscription_id = 's2' WHERE organization_id = '` + h2 + `'`,
			`INSERT INTO entitlements (id, organization_id, provider, order_id, kind, tokens, amount_cents, checkout_id, created_at)
				VALUES ('e1', '` + h1 + `', 'polar', 'o1', 'topup', 100, 1200, 'c1', 50)`,
		} {
			if _, err := db.writer().Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for _, q := range strings.Split(up, ";\n") {
			if strings.Contains(q, "INSERT") {
				if _, err := db.writer().Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		}
		var granted string
		if err := db.read().QueryRow(ctx, `SELECT entitlement_id FROM billing_checkout_grants WHERE provider = 'polar' AND checkout_id = 'c1'`).Scan(&granted); err != nil || granted != "e1" {
			t.Fatalf("the granted checkout: %q %v", granted, err)
		}
		for sub, want := range map[string]billing.Folded{
			"s1": {Status: ledger.Canceled, RenewsAt: time.UnixMilli(900), EndsAt: time.UnixMilli(900)},
			"s2": {Status: ledger.PastDue, RenewsAt: time.UnixMilli(900)},
		} {
			rows, err := db.read().Query(ctx, `SELECT event_type, occurred_at, period_end, ends_at FROM billing_sub_events
				WHERE subscription_id = ? ORDER BY occurred_at, delivery_id`, sub)
			if err != nil {
				t.Fatal(err)
			}
			var evs []billing.SubEvent
			for rows.Next() {
				var typ string
				var at int64
				var period, ends sql.NullInt64
				if err := rows.Scan(&typ, &at, &period, &ends); err != nil {
					t.Fatal(err)
				}
				e := billing.SubEvent{Type: billing.EventType(typ), At: time.UnixMilli(at)}
				if period.Valid {
					e.PeriodEnd = time.UnixMilli(period.Int64)
				}
				if ends.Valid {
					e.EndsAt = time.UnixMilli(ends.Int64)
				}
				evs = append(evs, e)
			}
			rows.Close()
			if got, ok := billing.Fold(evs); len(evs) != 2 || !ok || got.Status != want.Status || !got.RenewsAt.Equal(want.RenewsAt) ||
				!got.EndsAt.Equal(want.EndsAt) {
				t.Errorf("%s: events %+v fold to %+v; want a payment and a status folding to %+v", sub, evs, got, want)
			}
		}
	})
}

// TestSubscriptionEventRace: a cancel delivered while its subscription's
// first payment is being applied is in the plan either way, on each
// engine: it is recorded before the payment's fold reads the events, or
// after the plan mirrors the subscription (the subscription's lock).
func TestSubscriptionEventRace(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		p := paidOrders{t: t, db: db, offer: ledger.DefaultPrices(nil).Plan}
		studio, _ := p.offer(ledger.TierStudio)
		paidAt := clock.Now().Add(-time.Minute)
		for round := range 6 {
			_, house := newLedgerHouse(t, db)
			subID := "sub-" + uuid.NewString()
			pay := paidOrder(p.checkout(house, billing.KindSubscription, ledger.TierStudio, studio.MonthlyTokens, studio.PriceUSD*100),
				"cu-"+house, studio.PriceUSD*100)
			pay.SubscriptionID, pay.At, pay.PeriodEnd = subID, paidAt, paidAt.AddDate(0, 1, 0)
			cancel := billing.Event{Type: billing.SubscriptionCanceled, Raw: "subscription.canceled", SubscriptionID: subID,
				At: paidAt.Add(time.Second)}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, ev := range []billing.Event{pay, cancel} {
				wg.Go(func() {
					_, errs[i] = db.ApplyDelivery(context.Background(), billing.Polar, "msg_"+uuid.NewString(), ev, p.offer)
				})
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("round %d: %v", round, errs)
			}
			if got := planOf(t, db, house); got.Status != ledger.Canceled || got.EndsAt != pay.PeriodEnd.UnixMilli() {
				t.Fatalf("round %d: a cancel delivered with the first payment: plan %+v; want canceled at the period's end", round, got)
			}
		}
	})
}
