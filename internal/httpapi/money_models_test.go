package httpapi_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
)

// importFaces loads catalogue faces and answers their ids by name.
func importFaces(t *testing.T, a *apptest.App, seeing apptest.Cred, faces ...map[string]any) map[string]string {
	t.Helper()
	for _, f := range faces {
		f["key"] = strings.ToLower(strings.ReplaceAll(f["name"].(string), " ", "-"))
		if n, err := a.Casting.Import(context.Background(), os.DirFS(catalogue(t, f))); err != nil || n != 1 {
			t.Fatalf("import %v: %d %v", f["name"], n, err)
		}
	}
	ids := map[string]string{}
	for _, m := range board(t, a, seeing) {
		ids[m.Name] = m.ID
	}
	return ids
}

type modelCheckout struct {
	URL, CheckoutID      string
	Pending, OK, Already bool
	Model                wireModel
}

func checkoutModel(t *testing.T, a *apptest.App, c apptest.Cred, id string) (modelCheckout, apptest.Resp) {
	t.Helper()
	res := a.Do(t, "POST", "/api/toolkit/models/"+id+"/checkout", c, nil)
	var out modelCheckout
	if res.Status == 200 {
		res.JSON(t, &out)
	}
	return out, res
}

func getModel(t *testing.T, a *apptest.App, c apptest.Cred, id string) (wireModel, int) {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/models/"+id, c, nil)
	var body struct{ Model wireModel }
	if res.Status == 200 {
		res.JSON(t, &body)
	}
	return body.Model, res.Status
}

// TestModelCheckout (SPEC §4.10): an owner's checkout for a face never
// grants; a repeat (or concurrent) click answers the same url; the paid
// delivery, replayed at once, makes the face the house's once (an
// exclusive face its exclusive claim, gone from every other board); and
// every refusal of the route.
func TestModelCheckout(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		memberA := inHouse(t, a, seated(t, a, houseA.HouseID, auth.Admin), houseA.HouseID)
		keyA := a.Key(t, houseA, "member")
		ids := importFaces(t, a, keyA,
			map[string]any{"name": "Free face", "tier": "free"},
			map[string]any{"name": "Sale face", "tier": "sale", "priceCents": 2900},
			map[string]any{"name": "Euro face", "tier": "sale", "priceCents": 4900, "currency": "eur"},
			map[string]any{"name": "Exclusive face", "tier": "exclusive", "priceCents": 90000},
			map[string]any{"name": "Contested face", "tier": "exclusive", "priceCents": 50000},
		)
		own := ownModel(t, a, keyA, upload(t, a, keyA, jpegOf(t, 30, 40), "kind", "model").ID)
		before, _ := billingBalance(t, a, houseA.Session())

		for _, tt := range []struct {
			name       string
			cred       apptest.Cred
			id         string
			wantStatus int
			wantCode   string
		}{
			{"an admin seat", memberA, ids["Sale face"], 403, "FORBIDDEN"},
			{"a key", keyA, ids["Sale face"], 403, "FORBIDDEN"},
			{"an own model", houseA.Session(), own.ID, 400, "ALREADY_YOURS"},
			{"a free face", houseA.Session(), ids["Free face"], 400, "FREE_MODEL"},
			{"a face priced in euros", houseA.Session(), ids["Euro face"], 400, "NOT_FOR_SALE"},
			{"no such face", houseA.Session(), uuid.NewString(), 404, "NOT_FOUND"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if _, res := checkoutModel(t, a, tt.cred, tt.id); res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}

		// A first click opens; a repeat answers the same url, pending.
		sale, res := checkoutModel(t, a, houseA.Session(), ids["Sale face"])
		if res.Status != 200 || !sale.Pending || !sale.OK || sale.Already || sale.Model.ID != ids["Sale face"] || sale.Model.Owned ||
			!strings.HasPrefix(sale.URL, a.URL+"/billing/local/checkout/") {
			t.Fatalf("first click: %d %s", res.Status, res.Body)
		}
		if again, res := checkoutModel(t, a, houseA.Session(), ids["Sale face"]); again.URL != sale.URL || !again.Pending || !again.Already ||
			again.CheckoutID != sale.CheckoutID {
			t.Fatalf("repeat click: %d %s; want %s again", res.Status, res.Body, sale.URL)
		}
		// Eight clicks at once on the exclusive face: one checkout.
		var wg sync.WaitGroup
		urls := make(chan string, 8)
		for range 8 {
			wg.Go(func() {
				o, res := checkoutModel(t, a, houseA.Session(), ids["Exclusive face"])
				if res.Status != 200 {
					t.Errorf("concurrent click: %d %s", res.Status, res.Body)
				}
				urls <- o.URL
			})
		}
		wg.Wait()
		close(urls)
		seen := map[string]bool{}
		for u := range urls {
			seen[u] = true
		}
		var h struct {
			Checkouts []struct{ Kind, FaceID string }
		}
		a.Do(t, "GET", "/api/toolkit/entitlements", keyA, nil).JSON(t, &h)
		if len(seen) != 1 || len(h.Checkouts) != 2 || h.Checkouts[0].Kind != "model" || h.Checkouts[0].FaceID != ids["Exclusive face"] {
			t.Fatalf("concurrent clicks: urls %v, open checkouts %+v; want one each", seen, h.Checkouts)
		}
		exclusiveURL := ""
		for u := range seen {
			exclusiveURL = u
		}
		// Nothing is granted by opening: not owned, the balance unchanged.
		if m, _ := getModel(t, a, keyA, ids["Exclusive face"]); m.Owned || m.ExclusiveYours {
			t.Fatalf("owned before paying: %+v", m)
		}
		// Another house: the exclusive face has an open checkout; the sale face does not care.
		if _, res := checkoutModel(t, a, houseB.Session(), ids["Exclusive face"]); res.Status != 409 || res.Code != "CHECKOUT_PENDING" {
			t.Fatalf("another house's click: %d %s", res.Status, res.Body)
		}
		if _, res := checkoutModel(t, a, houseB.Session(), ids["Sale face"]); res.Status != 200 {
			t.Fatalf("another house buys a sale face: %d %s", res.Status, res.Body)
		}

		// The paid deliveries, pressed ten times at once: one entitlement, one claim.
		for _, u := range []string{exclusiveURL, sale.URL} {
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() { pay(t, u) })
			}
			wg.Wait()
		}
		var ents struct {
			Entitlements []struct{ Kind, FaceID, Claim string }
			Checkouts    []any
		}
		a.Do(t, "GET", "/api/toolkit/entitlements", keyA, nil).JSON(t, &ents)
		claims := map[string]string{}
		for _, en := range ents.Entitlements {
			if en.Kind == "model" {
				if claims[en.FaceID] != "" {
					t.Fatalf("two entitlements for one face: %+v", ents.Entitlements)
				}
				claims[en.FaceID] = en.Claim
			}
		}
		if claims[ids["Exclusive face"]] != "exclusive" || claims[ids["Sale face"]] != "purchase" || len(ents.Checkouts) != 0 {
			t.Fatalf("entitlements %+v", ents)
		}
		if m, _ := getModel(t, a, keyA, ids["Exclusive face"]); !m.Owned || !m.ExclusiveYours || !m.Usable {
			t.Fatalf("the exclusive face after paying: %+v", m)
		}
		if m, _ := getModel(t, a, keyA, ids["Sale face"]); !m.Owned || m.ExclusiveYours {
			t.Fatalf("the sale face after paying: %+v", m)
		}
		if _, st := getModel(t, a, houseB.Session(), ids["Exclusive face"]); st != 404 {
			t.Fatalf("another house still sees the claimed face: %d", st)
		}
		if _, res := checkoutModel(t, a, houseB.Session(), ids["Exclusive face"]); res.Status != 404 {
			t.Fatalf("another house's click on a claimed face: %d %s", res.Status, res.Body)
		}
		if _, res := checkoutModel(t, a, houseA.Session(), ids["Sale face"]); res.Code != "ALREADY_YOURS" {
			t.Fatalf("buying a held face again: %d %s", res.Status, res.Body)
		}
		if after, _ := billingBalance(t, a, houseA.Session()); billingPartsOf(after) != billingPartsOf(before) {
			t.Fatalf("a model purchase moved tokens: %+v -> %+v", before, after)
		}
		// The account view lists both purchases among the invoices, with what the provider charged.
		var view struct {
			Invoices []struct {
				Kind, Item string
				Tokens     int64
				AmountUSD  *float64
			}
		}
		a.Do(t, "GET", "/api/account", houseA.Session(), nil).JSON(t, &view)
		paid := map[string]float64{}
		for _, in := range view.Invoices {
			if in.Kind == "model_purchase" && in.AmountUSD != nil && in.Tokens == 0 {
				paid[in.Item] = *in.AmountUSD
			}
		}
		if paid["Model Exclusive face"] != 900 || paid["Model Sale face"] != 29 || len(paid) != 2 {
			t.Fatalf("model invoices %v; want the two faces at $900 and $29", paid)
		}

		// House A's checkout for the contested face went stale (over an
		// hour); house B opens and pays its own: A's click is TAKEN, and A's
		// late payment is recorded as taken, with no claim.
		stale, _ := checkoutModel(t, a, houseA.Session(), ids["Contested face"])
		if _, err := a.DB.RawExec(ctx, `UPDATE billing_checkouts SET created_at = ? WHERE id = ?`,
			time.Now().Add(-2*time.Hour).UnixMilli(), stale.CheckoutID); err != nil {
			t.Fatal(err)
		}
		won, res := checkoutModel(t, a, houseB.Session(), ids["Contested face"])
		if res.Status != 200 {
			t.Fatalf("house B after the stale hour: %d %s", res.Status, res.Body)
		}
		pay(t, won.URL)
		if _, res := checkoutModel(t, a, houseA.Session(), ids["Contested face"]); res.Status != 409 || res.Code != "TAKEN" {
			t.Fatalf("house A's click on a face taken from its checkout: %d %s", res.Status, res.Body)
		}
		hook := "/api/toolkit/ai/billing/webhook/local"
		late := apptest.Delivery(t, "order.paid", map[string]any{"id": "late-order", "billing_reason": "purchase", "total_amount": 50000, "currency": "usd",
			"checkout_id": strings.TrimPrefix(stale.URL, a.URL+"/billing/local/checkout/"), "customer_id": "lcus_a"})
		if res := a.Do(t, "POST", hook, apptest.Anonymous, late); !strings.Contains(string(res.Body), `"taken"`) {
			t.Fatalf("a late payment for a taken face: %d %s", res.Status, res.Body)
		}
		if m, st := getModel(t, a, houseB.Session(), ids["Contested face"]); st != 200 || !m.ExclusiveYours {
			t.Fatalf("house B's claim: %d %+v", st, m)
		}
		if _, st := getModel(t, a, keyA, ids["Contested face"]); st != 404 {
			t.Fatalf("house A sees house B's exclusive face: %d", st)
		}
	})
}
