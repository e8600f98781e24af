package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"studio/internal/billing"
	"studio/internal/ledger"
)

// paidOrder is a step of the ledger model: the payment provider's delivery
// of a paid order, through ApplyDelivery, the only writer of purchased and
// plan tokens. A house without a subscription buys a pack or starts one; a
// subscribed house also renews. Now and then the same delivery, or another
// delivery of the same order, arrives again and must change nothing. It
// answers what it did, how many orders were paid, and the first error
// that differs from the model.
func (m *model) paidOrder(t *testing.T, db *DB, rng *rand.Rand, h *mHouse, clock *ledgerClock, now int64) (string, int, error) {
	ctx := context.Background()
	offer := ledger.DefaultPrices(nil).Plan
	studio, _ := offer(ledger.TierStudio)
	ev := billing.Event{Type: billing.OrderPaid, Raw: "order.paid", OrderID: "o-" + uuid.NewString(), Currency: billing.Currency,
		AmountCents: 100 + rng.Int64N(900)}
	kind, tokens, what := billing.KindTopUp, 1+rng.Int64N(40), ""
	switch {
	case h.subscription != "" && rng.IntN(2) == 0:
		ev.SubscriptionID, ev.Renewal, kind = h.subscription, true, billing.KindSubscription
		ev.AmountCents = studio.PriceUSD * 100 // a renewal pays the plan's price
		what = "renewal"
	case h.subscription == "" && rng.IntN(3) == 0:
		kind, tokens, what = billing.KindSubscription, studio.MonthlyTokens, "subscription"
		ev.SubscriptionID, ev.PeriodEnd = "s-"+uuid.NewString(), clock.Now().AddDate(0, 1, 0)
	default:
		what = fmt.Sprintf("purchase of %d", tokens)
	}
	if !ev.Renewal {
		c := billing.Checkout{ID: uuid.NewString(), House: h.id, Kind: kind, Tokens: tokens, AmountCents: ev.AmountCents,
			ProviderID: "co-" + uuid.NewString(), URL: "https://pay.test/"}
		if kind == billing.KindSubscription {
			c.Tier = ledger.TierStudio
		}
		if err := db.OpenCheckout(ctx, billing.Local, c); err != nil {
			return what, 0, err
		}
		ev.CheckoutID = c.ProviderID
	}
	delivery := "d-" + uuid.NewString()
	out, err := db.ApplyDelivery(ctx, billing.Local, delivery, ev, offer)
	if err != nil {
		return what, 0, err
	}
	// The model: a purchase is a top-up; a plan payment grants up to a month,
	// capped so live unreserved plan tokens stay within the rollover multiple.
	want := tokens
	if kind == billing.KindSubscription {
		var live int64
		h.compact(now)
		for _, c := range h.active {
			if c.plan {
				live += c.available
			}
		}
		want = studio.PeriodGrant(live) // the rule is ledger's (its own test); the model checks what the store reads as live
		h.subscription = ev.SubscriptionID
	}
	if out.Result != billing.Granted || out.Tokens != want || out.House != h.id {
		return what, 1, fmt.Errorf("%s: outcome %+v; the model grants %d to %s", what, out, want, h.id)
	}
	ent := &mEnt{id: out.Entitlement}
	h.ents = append(h.ents, ent)
	if want > 0 {
		var id string
		if err := db.read().QueryRow(ctx, `SELECT id FROM ledger_credits WHERE reference = ?`, "local:"+ev.OrderID).Scan(&id); err != nil {
			return what, 1, err
		}
		c := &mCredit{id: id, kind: ledger.TopUp, amount: want, available: want, created: now}
		if kind == billing.KindSubscription {
			c.kind, c.plan = ledger.Grant, true
		}
		h.addCredit(c)
		ent.credit = c
	}
	for range rng.IntN(3) { // the provider retries: the same delivery, or the same order under a new webhook-id
		id := delivery
		if rng.IntN(2) == 0 {
			id = "d-" + uuid.NewString()
		}
		again, err := db.ApplyDelivery(ctx, billing.Local, id, ev, offer)
		if err != nil {
			return what, 1, err
		}
		if again.Result != billing.Duplicate {
			return what, 1, fmt.Errorf("%s replayed: %+v; want duplicate", what, again)
		}
	}
	return what, 1, nil
}
