package httpapi_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"studio/internal/apptest"
	"studio/internal/invite"
)

// TestReferralReward: a guest let in by a user's referral code signs up;
// the guest's house's first paid subscription (the provider's delivery)
// writes the host's reward once, held invite.ReferralHoldDays; crediting
// it, at once from several callers, credits the host's house once; a
// renewal brings no second reward; a subscription revoked inside the hold
// voids it.
func TestReferralReward(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		ctx := context.Background()
		a := apptest.New(t, e)
		host := a.SignUp(t, "host")
		var mine struct {
			Code     string
			Invitees []struct {
				Email        string
				Subscribed   bool
				SubscribedAt *string
			}
		}
		readMine := func() {
			t.Helper()
			if res := a.Do(t, "GET", "/api/toolkit/invites/mine", host.Session(), nil); res.Status != 200 {
				t.Fatalf("invites/mine: %d %s", res.Status, res.Body)
			} else {
				res.JSON(t, &mine)
			}
		}
		readMine()
		guestOf := func(name string) *apptest.User {
			email := freshEmail(name)
			if res := a.Do(t, "POST", "/api/toolkit/invite/redeem", apptest.Anonymous, map[string]string{"code": mine.Code, "email": email}); res.Status != 200 {
				t.Fatalf("redeem: %d %s", res.Status, res.Body)
			}
			return a.SignUpAs(t, &apptest.User{Name: name, Email: email, Password: "correct horse battery"})
		}
		subscribe := func(u *apptest.User) {
			t.Helper()
			pay(t, checkoutFor(t, a, u.Session(), "/api/toolkit/ai/billing/checkout/subscription", map[string]any{"tier": "studio"}).URL)
		}
		guest, other := guestOf("guest"), guestOf("other")
		start, _ := billingBalance(t, a, host.Session())

		// A pack is no subscription; the first subscription is.
		pay(t, checkoutFor(t, a, guest.Session(), "/api/toolkit/ai/billing/checkout/topup", map[string]any{"pack": "100"}).URL)
		readMine()
		if len(mine.Invitees) != 2 || mine.Invitees[0].Subscribed || mine.Invitees[1].Subscribed {
			t.Fatalf("after a pack: %+v", mine.Invitees)
		}
		subscribe(guest)
		res := a.Do(t, "POST", "/api/toolkit/ai/billing/portal", guest.Session(), nil)
		var portal struct{ URL string }
		res.JSON(t, &portal)
		if st, body := page(t, "POST", portal.URL+"/renew"); st != 200 {
			t.Fatalf("renew: %d %s", st, body)
		}
		readMine()
		subscribed := 0
		for _, v := range mine.Invitees {
			if v.Subscribed && v.SubscribedAt != nil {
				subscribed++
			}
		}
		if subscribed != 1 {
			t.Fatalf("invitees %+v; want the guest subscribed", mine.Invitees)
		}
		// Held: nothing before holdDays; then once, however many credit it at once.
		hold := time.Duration(invite.ReferralHoldDays) * 24 * time.Hour
		if n, err := a.DB.CreditDueRewards(ctx, time.Now().Add(hold-time.Hour)); err != nil || n != 0 {
			t.Fatalf("inside the hold: %d %v", n, err)
		}
		var wg sync.WaitGroup
		counts := make(chan int, 5)
		for range 5 {
			wg.Go(func() {
				n, err := a.DB.CreditDueRewards(ctx, time.Now().Add(hold+time.Hour))
				if err != nil {
					t.Error(err)
				}
				counts <- n
			})
		}
		wg.Wait()
		close(counts)
		total := 0
		for n := range counts {
			total += n
		}
		if b, _ := billingBalance(t, a, host.Session()); total != 1 || b.Grant != start.Grant+invite.ReferralHostTokens {
			t.Fatalf("credited %d rewards, host grant %d; want one of %d", total, b.Grant-start.Grant, invite.ReferralHostTokens)
		}

		// The other guest subscribes, and the provider revokes it inside the hold: void.
		subscribe(other)
		plan, err := a.DB.Plan(ctx, other.HouseID)
		if err != nil {
			t.Fatal(err)
		}
		d := apptest.Delivery(t, "subscription.revoked", map[string]any{"id": plan.SubscriptionID, "status": "canceled"})
		if res := a.Do(t, "POST", "/api/toolkit/ai/billing/webhook/local", apptest.Anonymous, d); res.Status != 200 {
			t.Fatalf("revoked: %d %s", res.Status, res.Body)
		}
		if n, err := a.DB.CreditDueRewards(ctx, time.Now().Add(2*hold)); err != nil || n != 0 {
			t.Fatalf("a voided reward: %d %v", n, err)
		}
		readMine()
		for _, v := range mine.Invitees {
			if v.Email == other.Email && v.Subscribed {
				t.Fatalf("a revoked guest still counts: %+v", v)
			}
		}
		if b, _ := billingBalance(t, a, host.Session()); b.Grant != start.Grant+invite.ReferralHostTokens {
			t.Fatalf("host grant %d after the void", b.Grant-start.Grant)
		}
		if err := a.DB.CheckLedger(ctx, host.HouseID); err != nil {
			t.Error(err)
		}
	})
}
