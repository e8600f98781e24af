package billing

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// The deliveries' bodies. Both providers send Polar's shape (the local
// test provider sends a subset of it): {"type", "timestamp", "data"}, where
// data is an Order for order.paid and a Subscription for the
// subscription.* events (https://polar.sh/docs/integrate/webhooks/events).

type envelope struct {
	Type      string          `json:"type"`
	Timestamp *time.Time      `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

type orderData struct {
	ID             string  `json:"id"`
	BillingReason  string  `json:"billing_reason"` // purchase, subscription_create, subscription_cycle, subscription_update
	NetAmount      *int64  `json:"net_amount"`     // Polar: after discounts, before tax
	TotalAmount    *int64  `json:"total_amount"`
	Amount         *int64  `json:"amount"`
	Currency       string  `json:"currency"`
	CheckoutID     *string `json:"checkout_id"`
	SubscriptionID *string `json:"subscription_id"`
	CustomerID     string  `json:"customer_id"`
	Subscription   *struct {
		CurrentPeriodEnd *time.Time `json:"current_period_end"`
	} `json:"subscription"`
}

type subscriptionData struct {
	ID               string     `json:"id"`
	CustomerID       string     `json:"customer_id"`
	CurrentPeriodEnd *time.Time `json:"current_period_end"`
	EndsAt           *time.Time `json:"ends_at"`
	EndedAt          *time.Time `json:"ended_at"`
}

var errNoID = errors.New("billing: the event's data has no id")

// ParseEvent reads a delivery body in Polar's shape.
func ParseEvent(body []byte) (Event, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Event{}, err
	}
	if env.Type == "" {
		return Event{}, errors.New("billing: the delivery has no type")
	}
	ev := Event{Raw: env.Type}
	if env.Timestamp != nil {
		ev.At = *env.Timestamp
	}
	switch env.Type {
	case string(OrderPaid):
		var o orderData
		if err := json.Unmarshal(env.Data, &o); err != nil {
			return Event{}, err
		}
		if o.ID == "" {
			return Event{}, errNoID
		}
		ev.Type, ev.OrderID, ev.CustomerID = OrderPaid, o.ID, o.CustomerID
		ev.CheckoutID, ev.SubscriptionID = deref(o.CheckoutID), deref(o.SubscriptionID)
		ev.Renewal = o.BillingReason == "subscription_cycle"
		ev.Currency = strings.ToLower(o.Currency)
		switch { // what was paid for the price: net of tax when the provider says (Polar's net_amount)
		case o.NetAmount != nil:
			ev.AmountCents = *o.NetAmount
		case o.TotalAmount != nil:
			ev.AmountCents = *o.TotalAmount
		case o.Amount != nil:
			ev.AmountCents = *o.Amount
		default:
			ev.AmountCents = -1 // no amount: matches no price
		}
		if o.Subscription != nil && o.Subscription.CurrentPeriodEnd != nil {
			ev.PeriodEnd = *o.Subscription.CurrentPeriodEnd
		}
	case string(SubscriptionCanceled), string(SubscriptionRevoked), string(SubscriptionPastDue), string(SubscriptionActive),
		string(SubscriptionUncanceled):
		var sd subscriptionData
		if err := json.Unmarshal(env.Data, &sd); err != nil {
			return Event{}, err
		}
		if sd.ID == "" {
			return Event{}, errNoID
		}
		ev.Type, ev.SubscriptionID, ev.CustomerID = EventType(env.Type), sd.ID, sd.CustomerID
		switch {
		case sd.EndsAt != nil:
			ev.EndsAt = *sd.EndsAt
		case sd.EndedAt != nil:
			ev.EndsAt = *sd.EndedAt
		case sd.CurrentPeriodEnd != nil:
			ev.EndsAt = *sd.CurrentPeriodEnd
		}
	default:
		ev.Type = Ignored
	}
	return ev, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
