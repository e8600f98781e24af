package billing

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"studio/internal/ledger"
)

// A paid order grants what was paid for, once (DECISIONS §11, issue 28):
//
//   - Its amount and currency must be the price of what it buys (Price):
//     the checkout's amount for a purchase or a first payment, the plan's
//     monthly price for a renewal. Anything else grants nothing, raises an
//     operator alert and is acknowledged (200), so the provider stops
//     retrying; the order is recorded as refused, once.
//   - One checkout grants at most once, whatever the order ids.
//   - A customer the provider ties to another house grants nothing to this
//     one: an alert, 200, never a 500.
//   - A subscription's events count in the order they happened, not the
//     order they arrived (Fold): a cancel that arrives before the first
//     payment is kept, and counts when the payment lands.

// Currency is the catalog's currency, as providers write it.
const Currency = "usd"

// Result of an order that was not granted.
const Refused Result = "refused" // the order is not what was sold, or its customer is another house's: nothing granted, an operator alert

// Deferred is the result of a subscription event that came before the
// payment it follows: kept, and counted when the payment lands.
const Deferred Result = "deferred"

// Operator alert kinds of refused orders (each also logged with its
// reason; the operator refunds the order at the provider).
const (
	AlertPaymentMismatch  = "billing.payment_mismatch"  // an order's amount or currency is not its price
	AlertCustomerConflict = "billing.customer_conflict" // an order's customer (or subscription) is tied to another house
	AlertDuplicateOrder   = "billing.duplicate_order"   // a second order for a checkout already granted: money taken twice
)

// Mismatch says why an order does not pay price cents in Currency, or ""
// when it does.
func Mismatch(ev Event, priceCents int64) string {
	switch {
	case ev.Currency != Currency:
		return fmt.Sprintf("currency %q, not %q", ev.Currency, Currency)
	case ev.AmountCents != priceCents:
		return fmt.Sprintf("paid %d cents for a price of %d", ev.AmountCents, priceCents)
	}
	return ""
}

// SubEvent is one event of a subscription as the plan's fold reads it.
type SubEvent struct {
	Type      EventType // OrderPaid for a payment (first or renewal), or a subscription status event
	At        time.Time // when it happened
	Seq       int64     // arrival order, for events of one instant
	PeriodEnd time.Time // a payment: the paid period's end
	EndsAt    time.Time // a cancel: when the plan ends
}

// Folded is a plan's status as its subscription's events leave it.
type Folded struct {
	Status   ledger.PlanStatus
	RenewsAt time.Time // the latest payment's period end (zero when it said none)
	EndsAt   time.Time // set when canceled
}

// Fold applies a subscription's events in the order they happened (ties by
// arrival) and answers the plan's status they leave; false when no payment
// is among them (the plan does not mirror the subscription yet). Events
// dated before the first payment count right after it: the subscription
// exists from its first payment. A payment makes the plan active (a
// renewal paid after a cancel: the plan runs on); a cancel makes it
// canceled at its end (the period's end unless the event says); a revoke
// ends it when it happened; a failed renewal makes an active plan past_due
// and subscription.active brings it back; an uncancel brings back a
// canceled plan whose end had not come when it happened. An event the plan
// is in no state for changes nothing: a stale event never reopens what a
// later one closed, and the result does not depend on the order of
// arrival.
func Fold(evs []SubEvent) (Folded, bool) {
	evs = slices.Clone(evs)
	slices.SortStableFunc(evs, func(a, b SubEvent) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq))
	})
	first := slices.IndexFunc(evs, func(e SubEvent) bool { return e.Type == OrderPaid })
	if first < 0 {
		return Folded{}, false
	}
	evs = slices.Concat(evs[first:first+1], evs[:first], evs[first+1:])
	var f Folded
	for _, e := range evs {
		switch e.Type {
		case OrderPaid:
			f.Status, f.EndsAt = ledger.Active, time.Time{}
			if !e.PeriodEnd.IsZero() {
				f.RenewsAt = e.PeriodEnd
			}
		case SubscriptionCanceled:
			f.Status, f.EndsAt = ledger.Canceled, cmp.Or(e.EndsAt, f.RenewsAt, e.At)
		case SubscriptionRevoked:
			f.Status, f.EndsAt = ledger.Canceled, e.At
		case SubscriptionPastDue:
			if f.Status == ledger.Active {
				f.Status = ledger.PastDue
			}
		case SubscriptionActive:
			if f.Status == ledger.PastDue {
				f.Status = ledger.Active
			}
		case SubscriptionUncanceled:
			if f.Status == ledger.Canceled && f.EndsAt.After(e.At) {
				f.Status, f.EndsAt = ledger.Active, time.Time{}
			}
		}
	}
	return f, true
}
