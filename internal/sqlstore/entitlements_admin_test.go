package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"studio/internal/billing"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ops"
)

// paidTopUp opens a checkout for a top-up of tokens and delivers its paid
// order; it answers the entitlement and its credit.
func paidTopUp(t *testing.T, db *DB, house string, tokens int64) (ent, credit string) {
	t.Helper()
	ctx := context.Background()
	c := billing.Checkout{ID: uuid.NewString(), House: house, Kind: billing.KindTopUp, Tokens: tokens, AmountCents: 500,
		ProviderID: "co-" + uuid.NewString(), URL: "https://pay.test/"}
	if err := db.OpenCheckout(ctx, billing.Local, c); err != nil {
		t.Fatal(err)
	}
	ev := billing.Event{Type: billing.OrderPaid, Raw: "order.paid", OrderID: "o-" + uuid.NewString(), CheckoutID: c.ProviderID,
		AmountCents: c.AmountCents, Currency: billing.Currency}
	out, err := db.ApplyDelivery(ctx, billing.Local, "d-"+uuid.NewString(), ev, ledger.DefaultPrices(nil).Plan)
	if err != nil || out.Result != billing.Granted {
		t.Fatalf("delivery: %+v %v", out, err)
	}
	if err := db.read().QueryRow(ctx, `SELECT credit_id FROM entitlements WHERE id = ?`, out.Entitlement).Scan(&credit); err != nil {
		t.Fatal(err)
	}
	return out.Entitlement, credit
}

// spendGrants holds and posts what the house's grants have, so that the
// next holds reserve its top-ups.
func spendGrants(t *testing.T, db *DB, house string) {
	t.Helper()
	ctx := context.Background()
	b := balanceOf(t, db, house)
	if b.Grant == 0 {
		return
	}
	h := ledger.NewHold("", b.Grant)
	if err := db.TakeHold(ctx, house, h); err != nil {
		t.Fatal(err)
	}
	if err := db.PostHold(ctx, house, h.ID); err != nil {
		t.Fatal(err)
	}
}

// shownEnt prints an entitlement with its revocation, for comparisons.
func shownEnt(e ops.Entitlement) string {
	r := e.Revocation
	e.Revocation = nil
	if r == nil {
		return fmt.Sprintf("%+v", e)
	}
	by := ""
	if r.RevokedBy != nil {
		by = *r.RevokedBy
	}
	return fmt.Sprintf("%+v %+v by %q", e, *r, by)
}

// TestRevokeEntitlement: a revoke takes back what is left of the order's
// credit in a row of its own; pending holds keep their reservations; a
// hold posted later spends its part, a hold voided later gives its part to
// the revocation and not back; a repeat answers the first revoke and
// writes nothing; an unknown id is NOT_FOUND; CheckLedger holds throughout.
func TestRevokeEntitlement(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		spendGrants(t, db, house)
		ent, credit := paidTopUp(t, db, house, 100)
		keep, _ := paidTopUp(t, db, house, 40) // another order, untouched
		otherEnt, _ := paidTopUp(t, db, other, 30)
		posted, voided := ledger.NewHold("", 20), ledger.NewHold("", 15)
		for _, h := range []ledger.Hold{posted, voided} {
			if err := db.TakeHold(ctx, house, h); err != nil {
				t.Fatal(err)
			}
		}
		if b := balanceOf(t, db, house); b.Balance != 105 || b.Topup != 140 || b.Held != 35 {
			t.Fatalf("before: %+v", partsOf(b))
		}

		got, err := db.RevokeEntitlement(ctx, ent, "", "refunded at the provider")
		if err != nil {
			t.Fatal(err)
		}
		r := got.Revocation
		if got.Status != ops.EntitlementRevoked || r == nil || r.TokensTakenBack != 65 || r.TokensPending != 35 ||
			r.Reason != "refunded at the provider" || r.ClaimReleased || got.House.ID != house || got.CreditID != credit {
			t.Fatalf("revoke answered %+v %+v", got, r)
		}
		checkLedger(t, db, house, other)
		// Taken back: the 65 unreserved; the holds still hold their 35.
		if b := balanceOf(t, db, house); b.Balance != 40 || b.Topup != 75 || b.Held != 35 {
			t.Fatalf("after the revoke: %+v", partsOf(b))
		}
		if err := db.PostHold(ctx, house, posted.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.VoidHold(ctx, house, voided.ID); err != nil {
			t.Fatal(err)
		}
		checkLedger(t, db, house, other)
		// The void gave its 15 to the revocation, not back to the house.
		if b := balanceOf(t, db, house); b.Balance != 40 || b.Topup != 40 || b.Held != 0 {
			t.Fatalf("after the post and the void: %+v", partsOf(b))
		}
		audit, err := db.auditLedger(ctx, house)
		if err != nil || audit.revoked[credit] != 80 || audit.available[credit] != 0 {
			t.Fatalf("revoked %v available %v (%v); want 80 taken back, none available", audit.revoked, audit.available, err)
		}

		// A repeat answers the first revoke, writes nothing.
		again, err := db.RevokeEntitlement(ctx, ent, "", "another reason")
		if err != nil || shownEnt(again) != shownEnt(got) {
			t.Fatalf("repeat: %+v %v; want %+v", again, err, got)
		}
		var rows int
		if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM entitlement_revocations`).Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("%d revocations (%v); want 1", rows, err)
		}
		if _, err := db.RevokeEntitlement(ctx, uuid.NewString(), "", ""); !isCode(err, errs.NotFound) {
			t.Fatalf("unknown entitlement: %v", err)
		}

		// The lists: filters, status, pages.
		all, err := db.EntitlementsAcross(ctx, ops.EntitlementFilter{Limit: 10})
		if err != nil || len(all) != 3 || all[0].ID != otherEnt || all[2].ID != ent {
			t.Fatalf("all: %+v %v", all, err)
		}
		for _, tt := range []struct {
			f    ops.EntitlementFilter
			want []string
		}{
			{ops.EntitlementFilter{House: house, Limit: 10}, []string{keep, ent}},
			{ops.EntitlementFilter{Status: ops.EntitlementRevoked, Limit: 10}, []string{ent}},
			{ops.EntitlementFilter{Status: ops.EntitlementActive, House: house, Limit: 10}, []string{keep}},
			{ops.EntitlementFilter{Kind: "subscription", Limit: 10}, nil},
			{ops.EntitlementFilter{Kind: "topup", Limit: 1, Before: &ops.EntitlementCursor{CreatedAt: all[0].CreatedAt.UnixMilli(), ID: all[0].ID}}, []string{keep}},
		} {
			got, err := db.EntitlementsAcross(ctx, tt.f)
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if err != nil || fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("%+v: %v %v; want %v", tt.f, ids, err, tt.want)
			}
		}
		// The house's own list says it too.
		mine, err := db.Entitlements(ctx, house)
		if err != nil || len(mine) != 2 || mine[1].ID != ent || mine[1].Status != "revoked" || mine[1].RevokedAt == nil || mine[0].Status != "active" {
			t.Fatalf("house list: %+v %v", mine, err)
		}
	})
}

// TestRevokeRacesSettles: a revoke racing posts and voids of the holds
// that reserved its credit, many times over: every hold ends posted or
// voided exactly once, the revoke happens once, and the ledger's
// invariants hold (a void after the revoke never gives tokens back).
func TestRevokeRacesSettles(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		spendGrants(t, db, house)
		rounds, holds := 6, 8
		if ledgerRace {
			rounds = 3
		}
		for round := range rounds {
			ent, credit := paidTopUp(t, db, house, 200)
			hs := make([]ledger.Hold, holds)
			for i := range hs {
				hs[i] = ledger.NewHold("", 10)
			}
			if err := db.TakeHolds(ctx, house, hs); err != nil {
				t.Fatal(err)
			}
			var start, done sync.WaitGroup
			start.Add(1)
			wins := make([]int, len(hs))
			var mu sync.Mutex
			var revoked []ops.Entitlement
			for i, h := range hs {
				for try := range 2 { // two resolutions per hold, post or void: one wins
					done.Add(1)
					go func() {
						defer done.Done()
						start.Wait()
						var err error
						if (i+try)%2 == 0 {
							err = db.PostHold(ctx, house, h.ID)
						} else {
							err = db.VoidHold(ctx, house, h.ID)
						}
						switch {
						case err == nil:
							mu.Lock()
							wins[i]++
							mu.Unlock()
						case !isCode(err, ledger.ErrHoldResolved):
							t.Errorf("resolve: %v", err)
						}
					}()
				}
			}
			for range 3 { // three revokes of the one entitlement
				done.Add(1)
				go func() {
					defer done.Done()
					start.Wait()
					got, err := db.RevokeEntitlement(ctx, ent, "", "race")
					if err != nil {
						t.Errorf("revoke: %v", err)
						return
					}
					mu.Lock()
					revoked = append(revoked, got)
					mu.Unlock()
				}()
			}
			start.Done()
			done.Wait()
			for i, n := range wins {
				if n != 1 {
					t.Fatalf("round %d: hold %d resolved %d times", round, i, n)
				}
			}
			for _, r := range revoked[1:] {
				if fmt.Sprint(*r.Revocation) != fmt.Sprint(*revoked[0].Revocation) {
					t.Fatalf("round %d: revokes answered %+v and %+v", round, *r.Revocation, *revoked[0].Revocation)
				}
			}
			checkLedger(t, db, house)
			// What the credit gave: the posted holds' tokens; the rest was taken back.
			var debited int64
			if err := db.read().QueryRow(ctx, `SELECT COALESCE(SUM(tokens), 0) FROM ledger_debits WHERE organization_id = ? AND credit_id = ?`,
				house, credit).Scan(&debited); err != nil {
				t.Fatal(err)
			}
			audit, err := db.auditLedger(ctx, house)
			if err != nil || audit.available[credit] != 0 || audit.revoked[credit]+debited != 200 {
				t.Fatalf("round %d: credit of 200: %d debited, %d taken back, %d available (%v)", round, debited, audit.revoked[credit],
					audit.available[credit], err)
			}
		}
	})
}
