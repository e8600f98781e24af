package apptest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/webhook/sign"
)

// Delivery is a delivery of the event as the test apps' payment provider
// signs it (BillingSecret), with a fresh webhook-id, dated now.
func Delivery(t testing.TB, typ string, data any) Signed {
	t.Helper()
	return DeliveryAt(t, "msg_"+uuid.Must(uuid.NewV7()).String(), time.Now(), typ, data)
}

// DeliveryAt is Delivery with its webhook-id and timestamp given.
func DeliveryAt(t testing.TB, id string, at time.Time, typ string, data any) Signed {
	t.Helper()
	body, err := json.Marshal(map[string]any{"type": typ, "timestamp": at.UTC().Format(time.RFC3339), "data": data})
	if err != nil {
		t.Fatal(err)
	}
	key, err := sign.ParseSecret(BillingSecret)
	if err != nil {
		t.Fatal(err)
	}
	return Signed{Body: body, Header: key.Headers(id, at, body)}
}
