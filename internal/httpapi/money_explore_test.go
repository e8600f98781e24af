package httpapi_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
)

type offering struct {
	Kind, ID, Name, Tier, Currency string
	PriceCents, Tokens             int64
	Free, Taken                    bool
}

func explore(t *testing.T, a *apptest.App, c apptest.Cred) map[string]offering {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/explore", c, nil)
	if res.Status != 200 {
		t.Fatalf("explore: %d %s", res.Status, res.Body)
	}
	var body struct{ Offerings []offering }
	res.JSON(t, &body)
	out := map[string]offering{}
	for _, o := range body.Offerings {
		out[o.Kind+"/"+o.Name] = o
	}
	return out
}

type takeAnswer struct {
	Kind, ID, URL, CheckoutID string
	Granted, Pending, Already bool
}

// TestExplore: the offerings (faces but the house's own models, packs,
// plans) and taking them: a free face is granted now by a member; a priced
// offering opens its checkout for an owner's session and is granted only
// by the provider's delivery; every refusal of the take route.
func TestExplore(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		houseA, houseB := a.SignUp(t, "house-a"), a.SignUp(t, "house-b")
		memberA := inHouse(t, a, seated(t, a, houseA.HouseID, auth.Member), houseA.HouseID)
		keyA, viewerA := a.Key(t, houseA, "member"), a.Key(t, houseA, "viewer")
		ids := importFaces(t, a, keyA,
			map[string]any{"name": "Free face", "tier": "free"},
			map[string]any{"name": "Sale face", "tier": "sale", "priceCents": 2900},
			map[string]any{"name": "Euro face", "tier": "sale", "priceCents": 4900, "currency": "eur"},
			map[string]any{"name": "Exclusive face", "tier": "exclusive", "priceCents": 90000},
		)
		own := ownModel(t, a, keyA, upload(t, a, keyA, jpegOf(t, 30, 40), "kind", "model").ID)

		offers := explore(t, a, viewerA)
		if len(offers) != 4+6+3+3 || !offers["posture/Over the shoulder"].Free || offers["posture/Over the shoulder"].ID != "over-shoulder" || !offers["model/Free face"].Free || offers["model/Sale face"].PriceCents != 2900 ||
			offers["pack/500-token pack"].ID != "500" || offers["pack/500-token pack"].PriceCents != 5000 ||
			offers["plan/Studio"].ID != "studio" || offers["plan/Studio"].Tokens != 600 || offers["model/Fixture model"].ID != "" {
			t.Fatalf("offerings %+v", offers)
		}
		take := func(c apptest.Cred, kind, id string) (takeAnswer, apptest.Resp) {
			res := a.Do(t, "POST", "/api/toolkit/explore/"+kind+"/"+id+"/take", c, nil)
			var out takeAnswer
			if res.Status == 200 {
				res.JSON(t, &out)
			}
			return out, res
		}
		for _, tt := range []struct {
			name       string
			cred       apptest.Cred
			kind, id   string
			wantStatus int
			wantCode   string
		}{
			{"a viewer takes a free face", viewerA, "model", ids["Free face"], 403, "FORBIDDEN"},
			{"a member takes a free face", keyA, "model", ids["Free face"], 200, ""},
			{"again", memberA, "model", ids["Free face"], 400, "ALREADY_YOURS"},
			{"an own model", keyA, "model", own.ID, 400, "ALREADY_YOURS"},
			{"a member takes a priced face", memberA, "model", ids["Sale face"], 403, "FORBIDDEN"},
			{"a key takes a pack", keyA, "pack", "500", 403, "FORBIDDEN"},
			{"a face in euros", houseA.Session(), "model", ids["Euro face"], 400, "NOT_FOR_SALE"},
			{"no such pack", houseA.Session(), "pack", "300", 404, "NOT_FOUND"},
			{"the trial", houseA.Session(), "plan", "trial", 404, "NOT_FOUND"},
			{"no such kind", houseA.Session(), "hat", "500", 404, "NOT_FOUND"},
			{"no such face", houseA.Session(), "model", uuid.NewString(), 404, "NOT_FOUND"},
			{"a viewer takes a posture", viewerA, "posture", "over-shoulder", 403, "FORBIDDEN"},
			{"a staple posture", keyA, "posture", "contrapposto", 404, "NOT_FOUND"},
			{"no such posture", keyA, "posture", "handstand", 404, "NOT_FOUND"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if _, res := take(tt.cred, tt.kind, tt.id); res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}
		if m, _ := getModel(t, a, keyA, ids["Free face"]); !m.Owned || !explore(t, a, keyA)["model/Free face"].Taken {
			t.Fatalf("the free face taken: %+v", m)
		}
		// A posture past the staples, taken by five callers at once: added once.
		var wg sync.WaitGroup
		granted := make(chan bool, 5)
		for range 5 {
			wg.Go(func() {
				out, res := take(memberA, "posture", "over-shoulder")
				if res.Status != 200 && res.Code != "ALREADY_YOURS" {
					t.Errorf("posture take: %d %s", res.Status, res.Body)
				}
				granted <- out.Granted
			})
		}
		wg.Wait()
		close(granted)
		n := 0
		for g := range granted {
			if g {
				n++
			}
		}
		var pv struct {
			Prefs struct{ ExploreAdded []string }
		}
		a.Do(t, "GET", "/api/toolkit/postures", keyA, nil).JSON(t, &pv)
		if n != 1 || len(pv.Prefs.ExploreAdded) != 1 || pv.Prefs.ExploreAdded[0] != "over-shoulder" || !explore(t, a, keyA)["posture/Over the shoulder"].Taken {
			t.Fatalf("posture taken %d times; prefs %+v", n, pv.Prefs)
		}
		var h struct{ Entitlements []any }
		a.Do(t, "GET", "/api/toolkit/entitlements", keyA, nil).JSON(t, &h)
		if len(h.Entitlements) != 0 {
			t.Fatalf("a free take wrote an entitlement: %+v", h.Entitlements)
		}

		// Priced offerings open checkouts; only the paid deliveries grant.
		before, _ := billingBalance(t, a, houseA.Session())
		sale, res := take(houseA.Session(), "model", ids["Sale face"])
		if res.Status != 200 || sale.Granted || !sale.Pending || sale.Already || sale.URL == "" {
			t.Fatalf("a priced face: %d %s", res.Status, res.Body)
		}
		if again, _ := take(houseA.Session(), "model", ids["Sale face"]); again.URL != sale.URL || !again.Already {
			t.Fatalf("again: %+v; want %s", again, sale.URL)
		}
		if m, _ := getModel(t, a, keyA, ids["Sale face"]); m.Owned {
			t.Fatal("a priced face granted before its delivery")
		}
		pack, _ := take(houseA.Session(), "pack", "500")
		plan, _ := take(houseA.Session(), "plan", "studio")
		for _, u := range []string{sale.URL, pack.URL, plan.URL} {
			pay(t, u)
		}
		if after, _ := billingBalance(t, a, houseA.Session()); after.Topup != before.Topup+500 || after.Grant != before.Grant+600 {
			t.Fatalf("balance %+v -> %+v", billingPartsOf(before), billingPartsOf(after))
		}
		offers = explore(t, a, keyA)
		if !offers["model/Sale face"].Taken || !offers["plan/Studio"].Taken || offers["plan/Atelier"].Taken {
			t.Fatalf("taken after paying: %+v", offers)
		}
		if _, res := take(houseA.Session(), "plan", "studio"); res.Status != 400 || res.Code != "ALREADY_YOURS" {
			t.Fatalf("the running plan again: %d %s", res.Status, res.Body)
		}

		// One house at a time on an exclusive face.
		ex, _ := take(houseA.Session(), "model", ids["Exclusive face"])
		if _, res := take(houseB.Session(), "model", ids["Exclusive face"]); res.Status != 409 || res.Code != "CHECKOUT_PENDING" {
			t.Fatalf("house B while A's checkout is open: %d %s", res.Status, res.Body)
		}
		if _, err := a.DB.RawExec(ctx, `UPDATE billing_checkouts SET created_at = ? WHERE id = ?`,
			time.Now().Add(-2*time.Hour).UnixMilli(), ex.CheckoutID); err != nil {
			t.Fatal(err)
		}
		won, res := take(houseB.Session(), "model", ids["Exclusive face"])
		if res.Status != 200 {
			t.Fatalf("house B after the hour: %d %s", res.Status, res.Body)
		}
		pay(t, won.URL)
		if _, res := take(houseA.Session(), "model", ids["Exclusive face"]); res.Status != 409 || res.Code != "TAKEN" {
			t.Fatalf("house A after B's claim: %d %s", res.Status, res.Body)
		}
		if _, ok := explore(t, a, keyA)["model/Exclusive face"]; ok {
			t.Fatal("house A's offerings still list B's exclusive face")
		}
	})
}
