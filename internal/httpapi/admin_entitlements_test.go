package httpapi_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/ops"
)

type entitlementPage struct {
	Entitlements []ops.Entitlement
	NextCursor   *string
}

func adminEntitlements(t *testing.T, a *apptest.App, cred apptest.Cred, query string) entitlementPage {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/admin/entitlements"+query, cred, nil)
	if res.Status != 200 {
		t.Fatalf("entitlements%s: %d %s", query, res.Status, res.Body)
	}
	var p entitlementPage
	res.JSON(t, &p)
	return p
}

func entIDs(p entitlementPage) []string {
	ids := []string{}
	for _, e := range p.Entitlements {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestAdminEntitlements (SPEC §4.17, issue 16): the operators' list of what
// paid orders gave every house, with its filters and pages, and the revoke:
// what is left of the order's tokens is taken back, a model's claim on its
// face released, the house's own lists say revoked, a repeat (or many at
// once) answers the first revoke; every refusal of both routes.
func TestAdminEntitlements(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		op := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		adm := op.Session()
		h1, h2 := a.SignUp(t, "linen"), a.SignUp(t, "wool")
		k1 := a.Key(t, h1, "member")
		ids := importFaces(t, a, k1, map[string]any{"name": "Exclusive face", "tier": "exclusive", "priceCents": 90000})
		face := ids["Exclusive face"]

		pay(t, checkoutFor(t, a, h1.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "500"}).URL)
		pay(t, checkoutFor(t, a, h2.Session(), "/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 250}).URL)
		pay(t, checkoutFor(t, a, h2.Session(), "/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"}).URL)
		model, res := checkoutModel(t, a, h1.Session(), face)
		if res.Status != 200 {
			t.Fatalf("model checkout: %d %s", res.Status, res.Body)
		}
		pay(t, model.URL)
		if _, st := getModel(t, a, h2.Session(), face); st != 404 {
			t.Fatalf("another house sees the claimed face: %d", st)
		}

		t.Run("a key, even an operator's, and any other session are 403", func(t *testing.T) {
			for _, c := range []apptest.Cred{a.Key(t, op, "member"), h1.Session(), k1} {
				want(t, a.Do(t, "GET", "/api/toolkit/admin/entitlements", c, nil), 403, "FORBIDDEN")
				want(t, a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", c, "{"), 403, "FORBIDDEN")
			}
		})

		all := adminEntitlements(t, a, adm, "")
		byKind := map[string]ops.Entitlement{}
		for _, en := range all.Entitlements {
			byKind[en.Kind] = en
		}
		if len(all.Entitlements) != 4 || all.NextCursor != nil || all.Entitlements[0].Kind != "model" || all.Entitlements[3].Kind != "topup" ||
			byKind["topup"].House != (ops.House{ID: h1.HouseID, Name: "linen's house"}) || byKind["topup"].Tokens != 500 ||
			byKind["custom"].House.ID != h2.HouseID || byKind["model"].Claim != "exclusive" || byKind["model"].FaceID != face ||
			byKind["subscription"].Tier != "studio" || byKind["topup"].Status != "active" || byKind["topup"].Revocation != nil {
			t.Fatalf("all entitlements: %+v", all)
		}

		t.Run("filters and pages", func(t *testing.T) {
			for _, tt := range []struct {
				query string
				want  []string
			}{
				{"?house=" + h1.HouseID, []string{byKind["model"].ID, byKind["topup"].ID}},
				{"?kind=custom", []string{byKind["custom"].ID}},
				{"?kind=subscription&house=" + h2.HouseID, []string{byKind["subscription"].ID}},
				{"?status=active&kind=topup", []string{byKind["topup"].ID}},
				{"?status=revoked", []string{}},
				{"?house=" + uuid.NewString(), []string{}},
			} {
				if got := entIDs(adminEntitlements(t, a, adm, tt.query)); strings.Join(got, ",") != strings.Join(tt.want, ",") {
					t.Errorf("%s: %v; want %v", tt.query, got, tt.want)
				}
			}
			first := adminEntitlements(t, a, adm, "?limit=3")
			if len(first.Entitlements) != 3 || first.NextCursor == nil {
				t.Fatalf("first page: %+v", first)
			}
			rest := adminEntitlements(t, a, adm, "?limit=3&before="+*first.NextCursor)
			if got := append(entIDs(first), entIDs(rest)...); strings.Join(got, ",") != strings.Join(entIDs(all), ",") || rest.NextCursor != nil {
				t.Fatalf("pages %v then %v (next %v); want %v", entIDs(first), entIDs(rest), rest.NextCursor, entIDs(all))
			}
			for _, tt := range []struct{ query, code string }{
				{"?kind=gift", "BAD_FILTER"},
				{"?status=gone", "BAD_FILTER"},
				{"?house=" + strings.Repeat("h", 101), "BAD_FILTER"},
				{"?limit=0", "BAD_LIMIT"},
				{"?limit=201", "BAD_LIMIT"},
				{"?before=nope", "BAD_CURSOR"},
			} {
				want(t, a.Do(t, "GET", "/api/toolkit/admin/entitlements"+tt.query, adm, nil), 400, tt.code)
			}
		})

		t.Run("bad revokes write nothing", func(t *testing.T) {
			for _, tt := range []struct {
				name   string
				body   any
				status int
				code   string
			}{
				{"not JSON", "{", 400, "BAD_JSON"},
				{"no entitlement", map[string]any{}, 400, "ENTITLEMENT_REQUIRED"},
				{"a blank entitlement", map[string]any{"entitlementId": "  "}, 400, "ENTITLEMENT_REQUIRED"},
				{"a number", map[string]any{"entitlementId": 7}, 400, "BAD_BODY"},
				{"a long reason", map[string]any{"entitlementId": byKind["topup"].ID, "reason": strings.Repeat("r", 501)}, 400, "BAD_REASON"},
				{"unknown", map[string]any{"entitlementId": uuid.NewString()}, 404, "NOT_FOUND"},
				{"not an id", map[string]any{"entitlementId": "nope"}, 404, "NOT_FOUND"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					want(t, a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", adm, tt.body), tt.status, tt.code)
				})
			}
			if got := entIDs(adminEntitlements(t, a, adm, "?status=revoked")); len(got) != 0 {
				t.Fatalf("revoked after refusals: %v", got)
			}
		})

		t.Run("revoke a top-up: its tokens are taken back, once", func(t *testing.T) {
			before, _ := billingBalance(t, a, h1.Session())
			res := a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", adm,
				map[string]any{"entitlementId": byKind["topup"].ID, "reason": "charged back"})
			var out ops.Revoked
			if res.Status != 200 {
				t.Fatalf("revoke: %d %s", res.Status, res.Body)
			}
			res.JSON(t, &out)
			r := out.Entitlement.Revocation
			if out.Entitlement.ID != byKind["topup"].ID || out.Entitlement.Status != "revoked" || r == nil || r.TokensTakenBack != 500 ||
				r.TokensPending != 0 || r.Reason != "charged back" || r.RevokedBy == nil || *r.RevokedBy != op.ID || r.ClaimReleased {
				t.Fatalf("revoked %s", res.Body)
			}
			after, _ := billingBalance(t, a, h1.Session())
			if after.Topup != before.Topup-500 || after.Balance != before.Balance-500 || after.Grant != before.Grant {
				t.Fatalf("balance %+v -> %+v; want the 500 top-up gone", billingPartsOf(before), billingPartsOf(after))
			}
			again := a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", adm, map[string]any{"entitlementId": byKind["topup"].ID, "reason": "again"})
			if again.Status != 200 || !bytes.Equal(again.Body, res.Body) {
				t.Fatalf("repeat: %d %s; want %s", again.Status, again.Body, res.Body)
			}
			if b, _ := billingBalance(t, a, h1.Session()); billingPartsOf(b) != billingPartsOf(after) {
				t.Fatalf("a repeat moved the balance: %+v", billingPartsOf(b))
			}
			// The house's own lists say it.
			var holdings struct {
				Entitlements []struct {
					ID, Status string
					RevokedAt  *string
				}
			}
			a.Do(t, "GET", "/api/toolkit/entitlements", k1, nil).JSON(t, &holdings)
			found := false
			for _, en := range holdings.Entitlements {
				if en.ID == byKind["topup"].ID {
					found = en.Status == "revoked" && en.RevokedAt != nil
				} else if en.Status != "active" || en.RevokedAt != nil {
					t.Errorf("another entitlement of the house: %+v", en)
				}
			}
			if !found {
				t.Fatalf("the house's entitlements: %+v", holdings)
			}
			var view struct {
				Invoices []struct {
					Kind      string
					Tokens    int64
					RevokedAt *string
				}
			}
			a.Do(t, "GET", "/api/account", h1.Session(), nil).JSON(t, &view)
			revoked := 0
			for _, in := range view.Invoices {
				if in.RevokedAt != nil {
					revoked++
					if in.Kind != "topup" || in.Tokens != 500 {
						t.Errorf("revoked invoice %+v", in)
					}
				}
			}
			if revoked != 1 {
				t.Fatalf("account invoices %+v; want the top-up revoked", view.Invoices)
			}
		})

		t.Run("revoke a model: the exclusive face is free again", func(t *testing.T) {
			res := a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", adm, map[string]any{"entitlementId": byKind["model"].ID})
			var out ops.Revoked
			res.JSON(t, &out)
			if res.Status != 200 || out.Entitlement.Revocation == nil || !out.Entitlement.Revocation.ClaimReleased ||
				out.Entitlement.Revocation.TokensTakenBack != 0 {
				t.Fatalf("revoke model: %d %s", res.Status, res.Body)
			}
			if m, _ := getModel(t, a, k1, face); m.Owned || m.ExclusiveYours {
				t.Fatalf("the face after the revoke, for the house that had it: %+v", m)
			}
			if _, st := getModel(t, a, h2.Session(), face); st != 200 {
				t.Fatalf("another house after the revoke: %d; want the face on its board again", st)
			}
		})

		t.Run("many revokes at once: one", func(t *testing.T) {
			before, _ := billingBalance(t, a, h2.Session())
			bodies := make(chan string, 8)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					res := a.Do(t, "POST", "/api/toolkit/admin/entitlements/revoke", adm, map[string]any{"entitlementId": byKind["custom"].ID})
					if res.Status != 200 {
						t.Errorf("concurrent revoke: %d %s", res.Status, res.Body)
					}
					bodies <- string(res.Body)
				})
			}
			wg.Wait()
			close(bodies)
			seen := map[string]bool{}
			for b := range bodies {
				seen[b] = true
			}
			after, _ := billingBalance(t, a, h2.Session())
			if len(seen) != 1 || after.Topup != before.Topup-250 {
				t.Fatalf("%d distinct answers; balance %+v -> %+v", len(seen), billingPartsOf(before), billingPartsOf(after))
			}
			if got := entIDs(adminEntitlements(t, a, adm, "?status=revoked")); len(got) != 3 {
				t.Fatalf("revoked: %v; want 3", got)
			}
		})
	})
}
