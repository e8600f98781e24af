package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

func TestLedgerSignupOpensTheHouse(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		start := clock.Now()

		b := balanceOf(t, db, house)
		if partsOf(b) != (parts{60, 60, 0, 0}) || b.Holds == nil || len(b.Holds) != 0 {
			t.Fatalf("opening balance = %+v; want 60 granted and an empty, non-nil hold list", b)
		}
		p, err := db.Plan(ctx, house)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tier != ledger.TierTrial || p.Status != ledger.Trialing || p.RenewsAt == nil ||
			!p.RenewsAt.Equal(start.Add(ledger.TrialLength)) || !p.PeriodStart.Equal(start) || p.EndsAt != nil {
			t.Fatalf("plan = %+v; want a 14-day trial from %v", p, start)
		}
		checkLedger(t, db, house)

		// The grant counts up to its last millisecond and stops at its expiry.
		clock.Advance(ledger.TrialLength - time.Millisecond)
		if got := partsOf(balanceOf(t, db, house)); got != (parts{60, 60, 0, 0}) {
			t.Errorf("a millisecond before expiry: %+v", got)
		}
		clock.Advance(time.Millisecond)
		if got := partsOf(balanceOf(t, db, house)); got != (parts{}) {
			t.Errorf("at expiry: %+v; want nothing", got)
		}
		checkLedger(t, db, house)
		if err := db.TakeHold(ctx, house, ledger.NewHold("", 1)); !isCode(err, ledger.ErrInsufficientTokens) {
			t.Errorf("hold after expiry: %v; want INSUFFICIENT_TOKENS", err)
		}
	})
}

func TestLedgerHoldLifecycle(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		jobA := uuid.NewString()
		a, b := ledger.NewHold(jobA, 10), ledger.NewHold("", 15)
		steps := []struct {
			name      string
			do        func() error
			wantCode  string
			wantState string // the state a HOLD_RESOLVED answer names
			wantNeed  any
			wantSpend any
			want      parts
		}{
			{name: "hold A", do: func() error { return db.TakeHold(ctx, house, a) }, want: parts{50, 60, 0, 10}},
			{name: "hold B without a job", do: func() error { return db.TakeHold(ctx, house, b) }, want: parts{35, 60, 0, 25}},
			{name: "post A", do: func() error { return db.PostHold(ctx, house, a.ID) }, want: parts{35, 50, 0, 15}},
			{name: "post A again", do: func() error { return db.PostHold(ctx, house, a.ID) },
				wantCode: "HOLD_RESOLVED", wantState: "posted", want: parts{35, 50, 0, 15}},
			{name: "void A after its post", do: func() error { return db.VoidHold(ctx, house, a.ID) },
				wantCode: "HOLD_RESOLVED", wantState: "posted", want: parts{35, 50, 0, 15}},
			{name: "void B", do: func() error { return db.VoidHold(ctx, house, b.ID) }, want: parts{50, 50, 0, 0}},
			{name: "post B after its void", do: func() error { return db.PostHold(ctx, house, b.ID) },
				wantCode: "HOLD_RESOLVED", wantState: "voided", want: parts{50, 50, 0, 0}},
			{name: "void B again", do: func() error { return db.VoidHold(ctx, house, b.ID) },
				wantCode: "HOLD_RESOLVED", wantState: "voided", want: parts{50, 50, 0, 0}},
			{name: "post an unknown hold", do: func() error { return db.PostHold(ctx, house, uuid.NewString()) },
				wantCode: "NOT_FOUND", want: parts{50, 50, 0, 0}},
			{name: "post from another house", do: func() error { return db.PostHold(ctx, other, a.ID) },
				wantCode: "NOT_FOUND", want: parts{50, 50, 0, 0}},
			{name: "void from another house", do: func() error { return db.VoidHold(ctx, other, b.ID) },
				wantCode: "NOT_FOUND", want: parts{50, 50, 0, 0}},
			{name: "a second hold for job A", do: func() error { return db.TakeHold(ctx, house, ledger.NewHold(jobA, 1)) },
				wantCode: "HOLD_EXISTS", want: parts{50, 50, 0, 0}},
			{name: "job A's id from another house", do: func() error { return db.TakeHold(ctx, other, ledger.NewHold(jobA, 1)) },
				wantCode: "HOLD_EXISTS", want: parts{50, 50, 0, 0}},
			{name: "a reused hold id", do: func() error { h := ledger.NewHold("", 1); h.ID = a.ID; return db.TakeHold(ctx, house, h) },
				wantCode: "HOLD_EXISTS", want: parts{50, 50, 0, 0}},
			{name: "one token too many", do: func() error { return db.TakeHold(ctx, house, ledger.NewHold("", 51)) },
				wantCode: "INSUFFICIENT_TOKENS", wantNeed: int64(51), wantSpend: int64(50), want: parts{50, 50, 0, 0}},
			{name: "a hold in a house that does not exist", do: func() error { return db.TakeHold(ctx, uuid.NewString(), ledger.NewHold("", 1)) },
				wantCode: "NOT_FOUND", want: parts{50, 50, 0, 0}},
			{name: "the last tokens", do: func() error { return db.TakeHold(ctx, house, ledger.NewHold("", 50)) }, want: parts{0, 50, 0, 50}},
			{name: "nothing left", do: func() error { return db.TakeHold(ctx, house, ledger.NewHold("", 1)) },
				wantCode: "INSUFFICIENT_TOKENS", wantNeed: int64(1), wantSpend: int64(0), want: parts{0, 50, 0, 50}},
			{name: "a top-up", do: func() error { return db.AddCredit(ctx, house, ledger.NewTopUp(30, "pay_1")) }, want: parts{30, 50, 30, 50}},
			{name: "the same payment twice", do: func() error { return db.AddCredit(ctx, house, ledger.NewTopUp(30, "pay_1")) },
				wantCode: "CREDIT_EXISTS", want: parts{30, 50, 30, 50}},
			{name: "a credit to a house that does not exist", do: func() error { return db.AddCredit(ctx, uuid.NewString(), ledger.NewTopUp(5, "")) },
				wantCode: "NOT_FOUND", want: parts{30, 50, 30, 50}},
		}
		for _, st := range steps {
			clock.Advance(time.Millisecond)
			err := st.do()
			code, need, spend := fieldsOf(err)
			if code != st.wantCode || need != st.wantNeed || spend != st.wantSpend {
				t.Fatalf("%s: got %v (need %v, spendable %v); want %q (need %v, spendable %v)", st.name, err, need, spend, st.wantCode, st.wantNeed, st.wantSpend)
			}
			if st.wantState != "" {
				if e, _ := errs.As(err); e.Fields["state"] != st.wantState {
					t.Fatalf("%s: state %v; want %s", st.name, e.Fields["state"], st.wantState)
				}
			}
			if got := partsOf(balanceOf(t, db, house)); got != st.want {
				t.Fatalf("%s: balance %+v; want %+v", st.name, got, st.want)
			}
			checkLedger(t, db, house, other)
		}
		if got := partsOf(balanceOf(t, db, other)); got != (parts{60, 60, 0, 0}) {
			t.Errorf("the other house was touched: %+v", got)
		}
		h, err := db.JobHold(ctx, house, jobA)
		if err != nil || h.ID != a.ID || h.State != ledger.Posted || h.ResolvedAt == nil || h.Tokens != 10 {
			t.Errorf("JobHold = %+v, %v; want hold A, posted", h, err)
		}
		if _, err := db.JobHold(ctx, other, jobA); !errors.Is(err, errs.NotFound) {
			t.Errorf("JobHold from another house: %v; want NOT_FOUND", err)
		}
		if _, err := db.Hold(ctx, other, a.ID); !errors.Is(err, errs.NotFound) {
			t.Errorf("Hold from another house: %v; want NOT_FOUND", err)
		}
	})
}

// reservations lists what a hold reserved, credit id -> tokens.
func reservations(t *testing.T, db *DB, house, holdID string) map[string]int64 {
	t.Helper()
	rows, err := db.read().Query(context.Background(), `SELECT credit_id, tokens FROM ledger_hold_credits
		WHERE organization_id = ? AND hold_id = ?`, house, holdID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

func TestLedgerSpendingOrder(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db) // its sign-up grant of 60 expires in 14 days
		var signup string
		if err := db.read().QueryRow(ctx, `SELECT id FROM ledger_credits WHERE organization_id = ?`, house).Scan(&signup); err != nil {
			t.Fatal(err)
		}
		topup := ledger.NewTopUp(10, "")
		forever := ledger.NewGrant(10, ledger.SourceAdmin, nil)
		day := ledger.NewGrant(10, ledger.SourceAdmin, expiresIn(clock, 24*time.Hour))
		twoDays := ledger.NewGrant(10, ledger.SourcePlan, expiresIn(clock, 48*time.Hour))
		for _, c := range []ledger.Credit{topup, forever, twoDays, day} { // added in no particular order
			clock.Advance(time.Millisecond)
			if err := db.AddCredit(ctx, house, c); err != nil {
				t.Fatal(err)
			}
		}
		// Grants first, soonest expiry first, a grant without expiry after
		// every dated one, top-ups last.
		steps := []struct {
			tokens int64
			want   map[string]int64
		}{
			{5, map[string]int64{day.ID: 5}},
			{10, map[string]int64{day.ID: 5, twoDays.ID: 5}},
			{62, map[string]int64{twoDays.ID: 5, signup: 57}},
			{8, map[string]int64{signup: 3, forever.ID: 5}},
			{9, map[string]int64{forever.ID: 5, topup.ID: 4}},
		}
		var holds []ledger.Hold
		for _, st := range steps {
			h := ledger.NewHold("", st.tokens)
			if err := db.TakeHold(ctx, house, h); err != nil {
				t.Fatal(err)
			}
			holds = append(holds, h)
			if got := reservations(t, db, house, h.ID); !maps.Equal(got, st.want) {
				t.Errorf("hold of %d reserved %v; want %v", st.tokens, got, st.want)
			}
			checkLedger(t, db, house)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{6, 90, 10, 94}) {
			t.Fatalf("balance %+v; want 6 spendable", got)
		}

		// The day grant expires while holds still reserve all of it: its
		// tokens stay held (grant keeps them), nothing goes negative.
		clock.Advance(24 * time.Hour)
		if got := partsOf(balanceOf(t, db, house)); got != (parts{6, 90, 10, 94}) {
			t.Fatalf("after the day grant expired: %+v; want unchanged (all of it is held)", got)
		}
		checkLedger(t, db, house)
		// Voiding returns its 10 tokens to an expired grant: they expire.
		for _, h := range holds[:2] {
			if err := db.VoidHold(ctx, house, h.ID); err != nil {
				t.Fatal(err)
			}
		}
		// Left: twoDays 5 + top-up 6 unreserved; holds of 62, 8 and 9 reserve
		// 75 from grants and 4 from the top-up.
		if got := partsOf(balanceOf(t, db, house)); got != (parts{11, 80, 10, 79}) {
			t.Fatalf("after voiding the day grant's holds: %+v; want 5 of twoDays back, day's 10 expired", got)
		}
		checkLedger(t, db, house)
		// The next hold skips the expired grant.
		h := ledger.NewHold("", 6)
		if err := db.TakeHold(ctx, house, h); err != nil {
			t.Fatal(err)
		}
		if got, want := reservations(t, db, house, h.ID), map[string]int64{twoDays.ID: 5, topup.ID: 1}; !maps.Equal(got, want) {
			t.Errorf("after expiry the hold reserved %v; want %v", got, want)
		}
		checkLedger(t, db, house)
	})
}

// TestLedgerExpiryBetweenHoldAndPost: a hold reserves specific credits when
// it is taken; a grant that expires before the post is still debited exactly
// the hold's amount, and balance never goes below zero.
func TestLedgerExpiryBetweenHoldAndPost(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		h := ledger.NewHold(uuid.NewString(), 50)
		if err := db.TakeHold(ctx, house, h); err != nil {
			t.Fatal(err)
		}
		clock.Advance(15 * 24 * time.Hour)
		if got := partsOf(balanceOf(t, db, house)); got != (parts{0, 50, 0, 50}) {
			t.Fatalf("held tokens of an expired grant: %+v; want the 50 held, 10 expired", got)
		}
		checkLedger(t, db, house)
		if err := db.PostHold(ctx, house, h.ID); err != nil {
			t.Fatal(err)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{}) {
			t.Fatalf("after the post: %+v; want nothing", got)
		}
		var debited int64
		if err := db.read().QueryRow(ctx, `SELECT CAST(SUM(tokens) AS BIGINT) FROM ledger_debits WHERE organization_id = ? AND hold_id = ?`,
			house, h.ID).Scan(&debited); err != nil || debited != 50 {
			t.Fatalf("debited %d, %v; want exactly 50", debited, err)
		}
		checkLedger(t, db, house)
	})
}

func TestLedgerTakeHoldsAllOrNothing(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		taken := ledger.NewHold(uuid.NewString(), 1)
		if err := db.TakeHold(ctx, house, taken); err != nil {
			t.Fatal(err)
		}
		frames := func(job string, sizes ...int64) []ledger.Hold {
			var hs []ledger.Hold
			for i, n := range sizes {
				j := uuid.NewString()
				if i == len(sizes)-1 && job != "" {
					j = job
				}
				hs = append(hs, ledger.NewHold(j, n))
			}
			return hs
		}
		tests := []struct {
			name      string
			holds     []ledger.Hold
			wantCode  string
			wantNeed  any
			wantSpend any
			want      parts
		}{
			{"more than the balance", frames("", 20, 20, 30), "INSUFFICIENT_TOKENS", int64(70), int64(59), parts{59, 60, 0, 1}},
			{"one frame's job already held", frames(taken.JobID, 20, 20), "HOLD_EXISTS", nil, nil, parts{59, 60, 0, 1}},
			{"one job twice in the request", append(frames("", 5), ledger.Hold{ID: uuid.NewString(), JobID: taken.JobID + "x", Tokens: 5},
				ledger.Hold{ID: uuid.NewString(), JobID: taken.JobID + "x", Tokens: 5}), "HOLD_EXISTS", nil, nil, parts{59, 60, 0, 1}},
			{"nothing", nil, "", nil, nil, parts{59, 60, 0, 1}},
			{"every last token", frames("", 20, 20, 19), "", nil, nil, parts{0, 60, 0, 60}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := db.TakeHolds(ctx, house, tt.holds)
				code, need, spend := fieldsOf(err)
				if code != tt.wantCode || need != tt.wantNeed || spend != tt.wantSpend {
					t.Fatalf("got %v (need %v, spendable %v); want %q (need %v, spendable %v)", err, need, spend, tt.wantCode, tt.wantNeed, tt.wantSpend)
				}
				b := balanceOf(t, db, house)
				if partsOf(b) != tt.want {
					t.Fatalf("balance %+v; want %+v", partsOf(b), tt.want)
				}
				if tt.wantCode != "" {
					for _, h := range tt.holds {
						if _, err := db.Hold(ctx, house, h.ID); !errors.Is(err, errs.NotFound) {
							t.Errorf("hold %s of a refused request was written: %v", h.ID, err)
						}
					}
				}
				checkLedger(t, db, house)
			})
		}
	})
}

// TestLedgerHoldInCallerTransaction: the tx-level building blocks commit
// and roll back with the caller's other writes (transactional enqueue).
func TestLedgerHoldInCallerTransaction(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, house := newLedgerHouse(t, db)
		insertRow := func(tx *Tx, id string) error { // stands in for the job row
			_, err := tx.Exec(ctx, `INSERT INTO posts (id, organization_id, author_id, title, body, created_at, updated_at)
				VALUES (?, ?, ?, 'job', '', 0, 0)`, id, house, user)
			return err
		}
		rowExists := func(id string) bool {
			var n int
			if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM posts WHERE organization_id = ? AND id = ?`, house, id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n == 1
		}

		// The job row fails after the hold: neither is written.
		boom := errors.New("job insert failed")
		h := ledger.NewHold(uuid.NewString(), 10)
		err := db.write(ctx, func(tx *Tx) error {
			if err := db.takeHoldsTx(ctx, tx, house, []ledger.Hold{h}); err != nil {
				return err
			}
			if err := insertRow(tx, h.JobID); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v; want the caller's error", err)
		}
		if _, err := db.Hold(ctx, house, h.ID); !errors.Is(err, errs.NotFound) || rowExists(h.JobID) {
			t.Fatalf("a rolled-back transaction left its hold (%v) or its row", err)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{60, 60, 0, 0}) {
			t.Fatalf("balance after rollback: %+v", got)
		}

		// A refused hold leaves nothing of the caller's transaction either.
		big := ledger.NewHold(uuid.NewString(), 61)
		err = db.write(ctx, func(tx *Tx) error {
			if err := insertRow(tx, big.JobID); err != nil {
				return err
			}
			return db.takeHoldsTx(ctx, tx, house, []ledger.Hold{big})
		})
		if !isCode(err, ledger.ErrInsufficientTokens) || rowExists(big.JobID) {
			t.Fatalf("got %v, row written %v; want INSUFFICIENT_TOKENS and no row", err, rowExists(big.JobID))
		}

		// Both commit together; a second resolution inside a transaction
		// answers HOLD_RESOLVED and leaves the transaction usable.
		err = db.write(ctx, func(tx *Tx) error {
			if err := db.takeHoldsTx(ctx, tx, house, []ledger.Hold{h}); err != nil {
				return err
			}
			return insertRow(tx, h.JobID)
		})
		if err != nil || !rowExists(h.JobID) {
			t.Fatalf("commit: %v", err)
		}
		after := uuid.NewString()
		err = db.write(ctx, func(tx *Tx) error {
			if err := db.postHoldTx(ctx, tx, house, h.ID); err != nil {
				return err
			}
			if err := db.voidHoldTx(ctx, tx, house, h.ID); !isCode(err, ledger.ErrHoldResolved) {
				return fmt.Errorf("second resolution: %v", err)
			}
			got, err := db.jobHoldTx(ctx, tx, house, h.JobID)
			if err != nil || got.State != ledger.Posted {
				return fmt.Errorf("jobHoldTx = %+v, %v", got, err)
			}
			return insertRow(tx, after)
		})
		if err != nil || !rowExists(after) {
			t.Fatalf("a transaction after HOLD_RESOLVED: %v", err)
		}
		if got := partsOf(balanceOf(t, db, house)); got != (parts{50, 50, 0, 0}) {
			t.Fatalf("balance: %+v", got)
		}
		checkLedger(t, db, house)
	})
}

func TestLedgerCreditPersonalHouse(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		user, personal := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		if err := db.AddSeat(ctx, other, user, "member"); err != nil {
			t.Fatal(err)
		}
		got, err := db.CreditPersonalHouse(ctx, user, ledger.NewGrant(25, ledger.SourceAdmin, expiresIn(clock, time.Hour)))
		if err != nil || got != personal {
			t.Fatalf("credited %q, %v; want the personal house %s", got, err, personal)
		}
		if b := partsOf(balanceOf(t, db, personal)); b != (parts{85, 85, 0, 0}) {
			t.Errorf("personal house: %+v", b)
		}
		if b := partsOf(balanceOf(t, db, other)); b != (parts{60, 60, 0, 0}) {
			t.Errorf("the other house was credited: %+v", b)
		}
		if _, err := db.CreditPersonalHouse(ctx, uuid.NewString(), ledger.NewGrant(1, ledger.SourceAdmin, nil)); !errors.Is(err, errs.NotFound) {
			t.Errorf("unknown user: %v; want NOT_FOUND", err)
		}
		checkLedger(t, db, personal, other)
	})
}

// TestLedgerSchemaRefuses proves the schema's own constraints, past the code.
func TestLedgerSchemaRefuses(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, other := newLedgerHouse(t, db)
		h := ledger.NewHold(uuid.NewString(), 5)
		if err := db.TakeHold(ctx, house, h); err != nil {
			t.Fatal(err)
		}
		var credit, foreignCredit string
		if err := db.read().QueryRow(ctx, `SELECT id FROM ledger_credits WHERE organization_id = ?`, house).Scan(&credit); err != nil {
			t.Fatal(err)
		}
		if err := db.read().QueryRow(ctx, `SELECT id FROM ledger_credits WHERE organization_id = ?`, other).Scan(&foreignCredit); err != nil {
			t.Fatal(err)
		}
		credit6 := func(kind string, amount, available int64, expires any) []any {
			return []any{uuid.NewString(), house, kind, amount, available, expires}
		}
		const insCredit = `INSERT INTO ledger_credits (id, organization_id, kind, source, amount, available, expires_at, created_at)
			VALUES (?, ?, ?, 'test', ?, ?, ?, 1)`
		const insHold = `INSERT INTO ledger_holds (id, organization_id, job_id, tokens, state, created_at, resolved_at)
			VALUES (?, ?, ?, ?, ?, 1, ?)`
		tests := []struct {
			name  string
			query string
			args  []any
			want  error // errCheck, errUnique, or nil for any error (foreign keys)
		}{
			{"credit of zero", insCredit, credit6("grant", 0, 0, nil), errCheck},
			{"negative credit", insCredit, credit6("topup", -5, -5, nil), errCheck},
			{"available above amount", insCredit, credit6("grant", 5, 6, nil), errCheck},
			{"negative available", insCredit, credit6("grant", 5, -1, nil), errCheck},
			{"unknown kind", insCredit, credit6("gift", 5, 5, nil), errCheck},
			{"a top-up that expires", insCredit, credit6("topup", 5, 5, int64(100)), errCheck},
			{"expiring before created", insCredit, credit6("grant", 5, 5, int64(1)), errCheck},
			{"overdrawn credit", `UPDATE ledger_credits SET available = available - 1000 WHERE id = ?`, []any{credit}, errCheck},
			{"hold of zero", insHold, []any{uuid.NewString(), house, nil, 0, "pending", nil}, errCheck},
			{"unknown hold state", insHold, []any{uuid.NewString(), house, nil, 5, "settled", int64(2)}, errCheck},
			{"pending but resolved", insHold, []any{uuid.NewString(), house, nil, 5, "pending", int64(2)}, errCheck},
			{"posted but unresolved", insHold, []any{uuid.NewString(), house, nil, 5, "posted", nil}, errCheck},
			{"a job's second hold", insHold, []any{uuid.NewString(), house, h.JobID, 5, "pending", nil}, errUnique},
			{"a second reservation of a credit", `INSERT INTO ledger_hold_credits (hold_id, credit_id, organization_id, tokens) VALUES (?, ?, ?, 1)`,
				[]any{h.ID, credit, house}, errUnique},
			{"reserving another house's credit", `INSERT INTO ledger_hold_credits (hold_id, credit_id, organization_id, tokens) VALUES (?, ?, ?, 1)`,
				[]any{h.ID, foreignCredit, house}, nil},
			{"a debit without a reservation", `INSERT INTO ledger_debits (hold_id, credit_id, organization_id, tokens, created_at) VALUES (?, ?, ?, 1, 1)`,
				[]any{h.ID, foreignCredit, house}, nil},
			{"an unknown plan tier", `UPDATE plans SET tier = 'gold' WHERE organization_id = ?`, []any{house}, errCheck},
			{"an unknown plan status", `UPDATE plans SET status = 'paused' WHERE organization_id = ?`, []any{house}, errCheck},
			{"canceled without an end", `UPDATE plans SET status = 'canceled' WHERE organization_id = ?`, []any{house}, errCheck},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := db.RawExec(ctx, tt.query, tt.args...)
				if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
					t.Errorf("got %v; want %v", err, tt.want)
				}
			})
		}
		if _, err := db.RawExec(ctx, `INSERT INTO ledger_debits (hold_id, credit_id, organization_id, tokens, created_at) VALUES (?, ?, ?, 5, 1)`,
			h.ID, credit, house); err != nil {
			t.Fatalf("a debit matching the reservation: %v", err)
		}
		if _, err := db.RawExec(ctx, `INSERT INTO ledger_debits (hold_id, credit_id, organization_id, tokens, created_at) VALUES (?, ?, ?, 5, 1)`,
			h.ID, credit, house); !errors.Is(err, errUnique) {
			t.Errorf("a second debit of one reservation: %v; want a unique violation", err)
		}
		// The debit was written behind the hold's back: the audit sees it.
		if err := db.CheckLedger(ctx, house); err == nil {
			t.Error("CheckLedger passed a pending hold with a debit")
		}
	})
}

// TestLedgerRaceForTheLastTokens: 32 goroutines race for a house's last
// tokens; exactly the affordable number of holds succeed and every other
// one is refused with the spendable balance of that moment.
func TestLedgerRaceForTheLastTokens(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		const racers = 32

		t.Run("equal holds", func(t *testing.T) {
			_, house := newLedgerHouse(t, db) // 60 tokens: eight holds of 7, 4 left over
			errc := make(chan error, racers)
			var start, done sync.WaitGroup
			start.Add(1)
			for i := range racers {
				done.Go(func() {
					start.Wait()
					errc <- db.TakeHold(ctx, house, ledger.NewHold(fmt.Sprintf("job-%s-%d", house, i), 7))
				})
			}
			start.Done()
			done.Wait()
			close(errc)
			won := 0
			for err := range errc {
				code, need, spend := fieldsOf(err)
				switch {
				case err == nil:
					won++
				case code == "INSUFFICIENT_TOKENS" && need == int64(7) && spend == int64(4):
				default:
					t.Errorf("racer: %v (need %v, spendable %v); want success or INSUFFICIENT_TOKENS need 7 spendable 4", err, need, spend)
				}
			}
			if won != 8 {
				t.Errorf("%d holds won; want exactly 8", won)
			}
			if got := partsOf(balanceOf(t, db, house)); got != (parts{4, 60, 0, 56}) {
				t.Errorf("balance %+v", got)
			}
			checkLedger(t, db, house)
		})

		t.Run("mixed sizes across credits", func(t *testing.T) {
			_, house := newLedgerHouse(t, db)
			for _, c := range []ledger.Credit{
				ledger.NewGrant(5, ledger.SourceAdmin, expiresIn(clock, time.Hour)),
				ledger.NewTopUp(11, ""),
				ledger.NewGrant(3, ledger.SourcePlan, nil),
			} {
				if err := db.AddCredit(ctx, house, c); err != nil {
					t.Fatal(err)
				}
			}
			const total = 60 + 5 + 11 + 3
			type outcome struct {
				need int64
				err  error
			}
			out := make(chan outcome, racers)
			var start, done sync.WaitGroup
			start.Add(1)
			for i := range racers {
				done.Go(func() {
					start.Wait()
					if i%4 == 0 { // a multi-frame request
						hs := []ledger.Hold{ledger.NewHold("", int64(1+i%3)), ledger.NewHold("", 2), ledger.NewHold("", 3)}
						out <- outcome{int64(1+i%3) + 5, db.TakeHolds(ctx, house, hs)}
						return
					}
					n := int64(1 + i%9)
					out <- outcome{n, db.TakeHold(ctx, house, ledger.NewHold("", n))}
				})
			}
			start.Done()
			done.Wait()
			close(out)
			var won int64
			var lowestSpendable int64 = total
			for o := range out {
				code, need, spend := fieldsOf(o.err)
				switch {
				case o.err == nil:
					won += o.need
				case code == "INSUFFICIENT_TOKENS" && need == o.need && spend.(int64) < o.need:
					lowestSpendable = min(lowestSpendable, spend.(int64))
				default:
					t.Errorf("racer: %v (need %v, spendable %v)", o.err, need, spend)
				}
			}
			b := balanceOf(t, db, house)
			if b.Held != won || b.Balance != total-won || b.Balance > lowestSpendable {
				t.Errorf("balance %+v after %d tokens won; a refusal saw %d spendable", partsOf(b), won, lowestSpendable)
			}
			checkLedger(t, db, house)
		})
	})
}

// TestLedgerPostVoidRace: post and void of one hold race (with a second
// post); exactly one resolution wins, the losers change nothing.
func TestLedgerPostVoidRace(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		if err := db.AddCredit(ctx, house, ledger.NewTopUp(1000, "")); err != nil {
			t.Fatal(err)
		}
		const n = 40
		holds := make([]ledger.Hold, n)
		for i := range holds {
			holds[i] = ledger.NewHold(uuid.NewString(), 3)
		}
		if err := db.TakeHolds(ctx, house, holds); err != nil {
			t.Fatal(err)
		}
		type result struct {
			hold   int
			action ledger.HoldState
			err    error
		}
		results := make(chan result, 3*n)
		var start, done sync.WaitGroup
		start.Add(1)
		for i, h := range holds {
			for _, action := range []ledger.HoldState{ledger.Posted, ledger.Voided, ledger.Posted} {
				done.Go(func() {
					start.Wait()
					var err error
					if action == ledger.Posted {
						err = db.PostHold(ctx, house, h.ID)
					} else {
						err = db.VoidHold(ctx, house, h.ID)
					}
					results <- result{i, action, err}
				})
			}
		}
		start.Done()
		done.Wait()
		close(results)
		winners := make([]ledger.HoldState, n)
		var losers []result
		for r := range results {
			if r.err == nil {
				if winners[r.hold] != "" {
					t.Errorf("hold %d resolved twice: %s and %s", r.hold, winners[r.hold], r.action)
				}
				winners[r.hold] = r.action
				continue
			}
			losers = append(losers, r)
		}
		posted := 0
		for i, w := range winners {
			h, err := db.Hold(ctx, house, holds[i].ID)
			if err != nil || w == "" || h.State != w {
				t.Errorf("hold %d: winner %q, stored %+v, %v", i, w, h, err)
			}
			if w == ledger.Posted {
				posted++
			}
		}
		for _, l := range losers {
			e, ok := errs.As(l.err)
			if !ok || e.Code != "HOLD_RESOLVED" || e.Fields["state"] != string(winners[l.hold]) {
				t.Errorf("loser %s of hold %d: %v; want HOLD_RESOLVED naming %s", l.action, l.hold, l.err, winners[l.hold])
			}
		}
		if len(losers) != 2*n {
			t.Errorf("%d losers; want %d", len(losers), 2*n)
		}
		// The first 20 holds drew on the sign-up grant, the rest on the top-up.
		var fromGrant int64
		for i, w := range winners {
			if w == ledger.Posted && i < 20 {
				fromGrant += 3
			}
		}
		want := parts{Balance: 1060 - 3*int64(posted), Grant: 60 - fromGrant, Topup: 1000 - (3*int64(posted) - fromGrant)}
		if got := partsOf(balanceOf(t, db, house)); got != want {
			t.Errorf("balance %+v; want %+v after %d posts", got, want, posted)
		}
		t.Logf("%s: %d of %d holds posted, %d voided", e.name, posted, n, n-posted)
		checkLedger(t, db, house)
	})
}

// TestLedgerBalanceListsOpenHolds: the list is newest first, names the job
// (or null), and sums to held.
func TestLedgerBalanceListsOpenHolds(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		var want []ledger.HeldTokens
		for i := range 4 {
			clock.Advance(time.Second)
			h := ledger.NewHold("", int64(i+1))
			if i%2 == 0 {
				h.JobID = uuid.NewString()
			}
			if err := db.TakeHold(ctx, house, h); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				if err := db.PostHold(ctx, house, h.ID); err != nil {
					t.Fatal(err)
				}
				continue
			}
			ht := ledger.HeldTokens{Tokens: h.Tokens, CreatedAt: ts.Of(clock.Now())}
			if h.JobID != "" {
				ht.JobID = &h.JobID
			}
			want = append([]ledger.HeldTokens{ht}, want...)
		}
		b := balanceOf(t, db, house)
		same := slices.EqualFunc(b.Holds, want, func(a, b ledger.HeldTokens) bool {
			return a.Tokens == b.Tokens && a.CreatedAt.Equal(b.CreatedAt.Time) && (a.JobID == nil) == (b.JobID == nil) &&
				(a.JobID == nil || *a.JobID == *b.JobID)
		})
		if !same || b.Held != 1+3+4 {
			t.Errorf("holds %+v (held %d); want %+v", b.Holds, b.Held, want)
		}
		checkLedger(t, db, house)
	})
}
