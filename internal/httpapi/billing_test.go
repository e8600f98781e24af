package httpapi_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/apptest"
	"studio/internal/auth"
	"studio/internal/engine"
	"studio/internal/job"
	"studio/internal/ledger"
	"studio/internal/tool"
)

// billingWalk is the billing area's part of the route walk (walk_test.go).
var billingWalk = walkArea{
	samples: map[string]sampleFunc{
		// Billing: every seat reads the balance and the catalog; the grant is a platform admin's.
		"GET /api/toolkit/ai/billing/balance": static("/api/toolkit/ai/billing/balance", nil),
		"GET /api/toolkit/ai/billing/catalog": static("/api/toolkit/ai/billing/catalog", nil),
		"POST /api/toolkit/admin/grant-tokens": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/admin/grant-tokens", map[string]any{"userId": u.ID, "tokens": 5}}
		},
		// Money (money_test.go): only an owner's session spends; every seat reads the entitlements.
		"POST /api/toolkit/ai/billing/checkout/topup":        static("/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"}),
		"POST /api/toolkit/ai/billing/checkout/subscription": static("/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"}),
		"POST /api/toolkit/ai/billing/checkout/custom":       static("/api/toolkit/ai/billing/checkout/custom", map[string]any{"tokens": 150}),
		"POST /api/toolkit/ai/billing/portal":                static("/api/toolkit/ai/billing/portal", nil),
		"POST /api/account/plan/cancel":                      static("/api/account/plan/cancel", nil),
		"GET /api/toolkit/entitlements":                      static("/api/toolkit/entitlements", nil),
		"PATCH /api/account/billing-email":                   static("/api/account/billing-email", map[string]any{"email": "billing@studio.test"}),
		"GET /api/toolkit/ai/billing/autocharge":             static("/api/toolkit/ai/billing/autocharge", nil),
		"PUT /api/toolkit/ai/billing/autocharge":             static("/api/toolkit/ai/billing/autocharge", map[string]any{"threshold": 50, "pack": "100"}),
		"POST /api/toolkit/ai/billing/autocharge/run":        static("/api/toolkit/ai/billing/autocharge/run", nil),
		"POST /api/toolkit/ai/billing/webhook/{provider}": func(t *testing.T, a *apptest.App, u *apptest.User) request {
			return request{"/api/toolkit/ai/billing/webhook/local", apptest.Delivery(t, "checkout.created", map[string]any{"id": "walk"})}
		},
	},
	minRole: map[string]auth.Role{
		"POST /api/toolkit/ai/billing/checkout/topup":        auth.Owner,
		"POST /api/toolkit/ai/billing/checkout/subscription": auth.Owner,
		"POST /api/toolkit/ai/billing/checkout/custom":       auth.Owner,
		"POST /api/toolkit/ai/billing/portal":                auth.Owner,
		"POST /api/account/plan/cancel":                      auth.Owner,
		"PATCH /api/account/billing-email":                   auth.Owner,
		"PUT /api/toolkit/ai/billing/autocharge":             auth.Owner,
		"POST /api/toolkit/ai/billing/autocharge/run":        auth.Owner,
	},
	// The provider in the path names a built-in provider, not a house's row.
	global: []string{"POST /api/toolkit/ai/billing/webhook/{provider}"},
}

// billingBalance reads GET /api/toolkit/ai/billing/balance with cred.
func billingBalance(t *testing.T, a *apptest.App, cred apptest.Cred) (ledger.Balance, apptest.Resp) {
	t.Helper()
	res := a.Do(t, "GET", "/api/toolkit/ai/billing/balance", cred, nil)
	if res.Status != 200 {
		t.Fatalf("balance: %d %s", res.Status, res.Body)
	}
	var b ledger.Balance
	res.JSON(t, &b)
	return b, res
}

type billingParts struct{ Balance, Grant, Topup, Held int64 }

func billingPartsOf(b ledger.Balance) billingParts {
	return billingParts{b.Balance, b.Grant, b.Topup, b.Held}
}

func TestBillingBalance(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "owner"), a.SignUp(t, "other")
		member, viewer := a.Key(t, owner, "member"), a.Key(t, owner, "viewer")

		// The sign-up grant shows to every seat and credential, with an empty hold list.
		for name, cred := range map[string]apptest.Cred{"session": owner.Session(), "member key": member, "viewer key": viewer} {
			b, res := billingBalance(t, a, cred)
			if billingPartsOf(b) != (billingParts{60, 60, 0, 0}) || !bytes.Contains(res.Body, []byte(`"holds":[]`)) {
				t.Errorf("%s: %s; want 60 granted and holds: []", name, res.Body)
			}
		}

		// Open holds are listed newest first, with their job (or null), and sum to held.
		job := uuid.NewString()
		if err := a.DB.TakeHold(ctx, owner.HouseID, ledger.NewHold(job, 7)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		if err := a.DB.TakeHold(ctx, owner.HouseID, ledger.NewHold("", 5)); err != nil {
			t.Fatal(err)
		}
		b, res := billingBalance(t, a, viewer)
		if billingPartsOf(b) != (billingParts{48, 60, 0, 12}) || len(b.Holds) != 2 ||
			b.Holds[0].JobID != nil || b.Holds[0].Tokens != 5 ||
			b.Holds[1].JobID == nil || *b.Holds[1].JobID != job || b.Holds[1].Tokens != 7 || b.Holds[1].CreatedAt.IsZero() {
			t.Errorf("with two holds: %s", res.Body)
		}
		if !bytes.Contains(res.Body, []byte(`"jobId":null`)) {
			t.Errorf("a hold without a job must answer jobId null: %s", res.Body)
		}
		if b, _ := billingBalance(t, a, other.Session()); billingPartsOf(b) != (billingParts{60, 60, 0, 0}) || len(b.Holds) != 0 {
			t.Errorf("another house sees %+v", b)
		}

		// A session whose seat in its active house is gone stands for no one
		// there (removing a seat moves its sessions; this one was cut by hand).
		seatless := a.SignUp(t, "seatless")
		if err := a.DB.AddSeat(ctx, owner.HouseID, seatless.ID, auth.Viewer); err != nil {
			t.Fatal(err)
		}
		sess := signIn(t, a, seatless)
		if res := a.Do(t, "POST", "/api/auth/organization/set-active", sess, map[string]string{"organizationId": owner.HouseID}); res.Status != 200 {
			t.Fatalf("set-active: %d %s", res.Status, res.Body)
		}
		if _, err := a.DB.RawExec(ctx, `DELETE FROM seats WHERE organization_id = ? AND user_id = ?`, owner.HouseID, seatless.ID); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name       string
			cred       apptest.Cred
			wantStatus int
			wantCode   string
		}{
			{"seat removed", sess, 401, "UNAUTHORIZED"},
			{"anonymous", apptest.Anonymous, 401, "UNAUTHORIZED"},
			{"garbage key", apptest.Cred{Key: "fis_sk_nope"}, 401, "UNAUTHORIZED"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := a.Do(t, "GET", "/api/toolkit/ai/billing/balance", tt.cred, nil)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Errorf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
				}
			})
		}
		for _, h := range []string{owner.HouseID, other.HouseID} {
			if err := a.DB.CheckLedger(ctx, h); err != nil {
				t.Error(err)
			}
		}
	})
}

func TestBillingCatalog(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner := a.SignUp(t, "owner")
		res := a.Do(t, "GET", "/api/toolkit/ai/billing/catalog", a.Key(t, owner, "viewer"), nil)
		if res.Status != 200 {
			t.Fatalf("catalog: %d %s", res.Status, res.Body)
		}
		var got ledger.Catalog
		res.JSON(t, &got)
		if want := engine.Prices(a.Core.Engine, tool.DefaultPrices()).Catalog(); !reflect.DeepEqual(got, want) {
			t.Errorf("catalog %+v; want the live table %+v", got, want)
		}
		// Spot checks against DECISIONS §4, written out.
		prices := map[string]ledger.TierPrices{}
		for _, tp := range got.Tools {
			prices[tp.Tool] = tp.Prices
		}
		checks := []struct {
			tool string
			want ledger.TierPrices
		}{
			{"upscale", ledger.TierPrices{K1: 2, K2: 3, K4: 5}},
			{"tryon", ledger.TierPrices{K1: 8, K2: 12, K4: 18}},
			{"lookbook-video", ledger.TierPrices{K1: 40, K2: 60, K4: 90}},
			{"lookbook", ledger.TierPrices{K1: 1, K2: 1, K4: 1}}, // the local engine's look frame is a proof (DECISIONS §11)
			{"remove-background", ledger.TierPrices{K1: 2, K2: 2, K4: 2}},
		}
		for _, c := range checks {
			if prices[c.tool] != c.want {
				t.Errorf("%s costs %+v; want %+v", c.tool, prices[c.tool], c.want)
			}
		}
		if len(got.Tools) != 14 || got.DefaultPrice != 5 || len(got.Lanes) != 7 || len(got.TextTools) != 5 ||
			!reflect.DeepEqual(got.Tiers, []ledger.Tier{"1k", "2k", "4k"}) {
			t.Errorf("catalog shape: %s", res.Body)
		}
		for _, f := range append(got.Lanes, got.TextTools...) {
			if f.Tokens != 1 {
				t.Errorf("%s costs %d; want 1", f.Name, f.Tokens)
			}
		}
		wantPlans := []ledger.PlanOffer{
			{Tier: "trial", Name: "Trial", PriceUSD: 0, MonthlyTokens: 60, RolloverMultiple: 1},
			{Tier: "studio", Name: "Studio", PriceUSD: 49, MonthlyTokens: 600, RolloverMultiple: 2},
			{Tier: "atelier", Name: "Atelier", PriceUSD: 149, MonthlyTokens: 2000, RolloverMultiple: 2},
			{Tier: "maison", Name: "Maison", PriceUSD: 499, MonthlyTokens: 8000, RolloverMultiple: 3},
		}
		wantPacks := []ledger.TopUpPack{{Tokens: 100, PriceUSD: 12}, {Tokens: 500, PriceUSD: 50}, {Tokens: 2000, PriceUSD: 180}}
		if !reflect.DeepEqual(got.Plans, wantPlans) || !reflect.DeepEqual(got.TopUps, wantPacks) {
			t.Errorf("plans %+v, packs %+v", got.Plans, got.TopUps)
		}
		// Each tool names the engine that performs it here (null for none),
		// its options and, for a proof or a composite, a note.
		var withOptions struct{ Tools []job.CatalogTool }
		res.JSON(t, &withOptions)
		tools := map[string]job.CatalogTool{}
		for _, ct := range withOptions.Tools {
			tools[ct.Tool] = ct
		}
		if ct := tools["color-change"]; ct.Engine == nil || *ct.Engine != "local" || len(ct.Options) == 0 || ct.Options[0].Name != "color" ||
			!ct.Options[0].Required || ct.Options[0].Legal[0] != "#rrggbb" || ct.Note != "" {
			t.Errorf("color-change %+v", ct)
		}
		if ct := tools["generate-character"]; ct.Engine != nil || len(ct.Options) == 0 {
			t.Errorf("generate-character %+v; want no engine here, and its options", ct)
		}
		for _, tool := range []string{"tryon", "lookbook"} {
			if ct := tools[tool]; ct.Engine == nil || *ct.Engine != "local" || ct.Note == "" {
				t.Errorf("%s %+v; want the local engine's note", tool, ct)
			}
		}
		if res := a.Do(t, "GET", "/api/toolkit/ai/billing/catalog", apptest.Anonymous, nil); res.Status != 401 || res.Code != "UNAUTHORIZED" {
			t.Errorf("anonymous: %d %s", res.Status, res.Body)
		}
	})
}

func TestBillingGrantTokens(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		admin := a.SignUpAs(t, &apptest.User{Name: "admin", Email: "admin@studio.test", Password: "correct horse battery"})
		target := a.SignUp(t, "target")
		// The target also holds a seat in the admin's house and has switched
		// to it: the grant still goes to the target's personal house.
		if err := a.DB.AddSeat(ctx, admin.HouseID, target.ID, auth.Member); err != nil {
			t.Fatal(err)
		}
		elsewhere := signIn(t, a, target)
		if res := a.Do(t, "POST", "/api/auth/organization/set-active", elsewhere, map[string]string{"organizationId": admin.HouseID}); res.Status != 200 {
			t.Fatalf("set-active: %d %s", res.Status, res.Body)
		}
		adminSession := admin.Session()
		body := func(kv ...any) map[string]any {
			m := map[string]any{"userId": target.ID}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] == "<absent>" {
					delete(m, kv[i].(string))
					continue
				}
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		tests := []struct {
			name       string
			cred       apptest.Cred
			body       any
			wantStatus int
			wantCode   string
			expiryDays int64 // the expiry a success must answer; 0 for none
		}{
			{"a grant that never expires", adminSession, body("tokens", 100), 200, "", 0},
			{"a grant expiring in 7 days", adminSession, body("tokens", 40, "expiryDays", 7), 200, "", 7},
			{"expiryDays null", adminSession, body("tokens", 1, "expiryDays", nil), 200, "", 0},
			{"with a reason", adminSession, body("tokens", 2, "reason", "Make good for a failed batch."), 200, "", 0},
			{"the largest grant", adminSession, body("tokens", 100000, "expiryDays", 3650), 200, "", 3650},
			{"a padded userId", adminSession, body("userId", "  "+target.ID+" ", "tokens", 3), 200, "", 0},
			{"no userId", adminSession, body("userId", "<absent>", "tokens", 5), 400, "USER_REQUIRED", 0},
			{"a blank userId", adminSession, body("userId", "   ", "tokens", 5), 400, "USER_REQUIRED", 0},
			{"a userId that is not a string", adminSession, body("userId", 42, "tokens", 5), 400, "BAD_BODY", 0},
			{"by e-mail", adminSession, body("userId", "<absent>", "email", target.Email, "tokens", 4), 200, "", 0},
			{"by e-mail in other case, padded", adminSession, body("userId", "<absent>", "email", " "+strings.ToUpper(target.Email), "tokens", 4), 200, "", 0},
			{"userId wins over email", adminSession, body("email", "nobody@studio.test", "tokens", 1), 200, "", 0},
			{"a blank e-mail", adminSession, body("userId", "<absent>", "email", " ", "tokens", 5), 400, "USER_REQUIRED", 0},
			{"an unknown e-mail", adminSession, body("userId", "<absent>", "email", "nobody@studio.test", "tokens", 5), 404, "USER_NOT_FOUND", 0},
			{"no tokens", adminSession, body(), 400, "BAD_TOKENS", 0},
			{"zero tokens", adminSession, body("tokens", 0), 400, "BAD_TOKENS", 0},
			{"negative tokens", adminSession, body("tokens", -5), 400, "BAD_TOKENS", 0},
			{"a fraction", adminSession, body("tokens", 1.5), 400, "BAD_TOKENS", 0},
			{"tokens as a string", adminSession, body("tokens", "10"), 400, "BAD_TOKENS", 0},
			{"tokens as a boolean", adminSession, body("tokens", true), 400, "BAD_TOKENS", 0},
			{"tokens null", adminSession, body("tokens", nil), 400, "BAD_TOKENS", 0},
			{"one above the maximum", adminSession, body("tokens", 100001), 400, "BAD_TOKENS", 0},
			{"an exponent", adminSession, `{"userId":"` + target.ID + `","tokens":1e3}`, 400, "BAD_TOKENS", 0},
			{"far too many", adminSession, `{"userId":"` + target.ID + `","tokens":99999999999999999999999}`, 400, "BAD_TOKENS", 0},
			{"expiryDays zero", adminSession, body("tokens", 5, "expiryDays", 0), 400, "BAD_BODY", 0},
			{"expiryDays negative", adminSession, body("tokens", 5, "expiryDays", -3), 400, "BAD_BODY", 0},
			{"expiryDays past ten years", adminSession, body("tokens", 5, "expiryDays", 3651), 400, "BAD_BODY", 0},
			{"expiryDays a fraction", adminSession, body("tokens", 5, "expiryDays", 1.5), 400, "BAD_BODY", 0},
			{"a reason too long", adminSession, body("tokens", 5, "reason", strings.Repeat("r", 501)), 400, "BAD_BODY", 0},
			{"a user that does not exist", adminSession, body("userId", uuid.NewString(), "tokens", 5), 404, "USER_NOT_FOUND", 0},
			{"a user id that is no uuid", adminSession, body("userId", "nope", "tokens", 5), 404, "USER_NOT_FOUND", 0},
			{"a session that is not an admin", target.Session(), body("tokens", 5), 403, "FORBIDDEN", 0},
			{"an API key, even an admin's", a.Key(t, admin, "member"), body("tokens", 5), 403, "FORBIDDEN", 0},
			{"anonymous", apptest.Anonymous, body("tokens", 5), 401, "UNAUTHORIZED", 0},
		}
		var granted int64
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := time.Now()
				res := a.Do(t, "POST", "/api/toolkit/admin/grant-tokens", tt.cred, tt.body)
				if res.Status != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("got %d %s; want %d %s", res.Status, res.Body, tt.wantStatus, tt.wantCode)
				}
				if tt.wantCode == "BAD_TOKENS" {
					if m := res.Map(t); m["max"] != float64(ledger.MaxGrant) {
						t.Errorf("BAD_TOKENS without max 100000: %s", res.Body)
					}
				}
				if tt.wantStatus != 200 {
					return
				}
				var g ledger.Granted
				res.JSON(t, &g)
				if _, err := uuid.Parse(g.Granted); !g.OK || err != nil || g.OrganizationID != target.HouseID || g.Tokens < 1 {
					t.Errorf("answer %s; want ok, the grant's id and the target's personal house", res.Body)
				}
				switch {
				case tt.expiryDays == 0 && g.ExpiresAt != nil:
					t.Errorf("expiresAt %v; want null", g.ExpiresAt)
				case tt.expiryDays > 0:
					want := before.Add(time.Duration(tt.expiryDays) * 24 * time.Hour)
					if g.ExpiresAt == nil || g.ExpiresAt.Before(want.Add(-time.Second)) || g.ExpiresAt.After(want.Add(time.Minute)) {
						t.Errorf("expiresAt %v; want about %v", g.ExpiresAt, want)
					}
				}
				granted += g.Tokens
			})
		}

		// The user's key reads the grants in the balance of their personal house.
		b, res := billingBalance(t, a, a.Key(t, target, "viewer"))
		if want := 60 + granted; billingPartsOf(b) != (billingParts{want, want, 0, 0}) || granted != 100+40+1+2+100000+3+4+4+1 {
			t.Errorf("target's balance %s; want 60 + %d granted", res.Body, granted)
		}
		if b, _ := billingBalance(t, a, elsewhere); billingPartsOf(b) != (billingParts{60, 60, 0, 0}) {
			t.Errorf("the house the target switched to was credited: %+v", billingPartsOf(b))
		}
		for _, h := range []string{target.HouseID, admin.HouseID} {
			if err := a.DB.CheckLedger(ctx, h); err != nil {
				t.Error(err)
			}
		}
	})
}
