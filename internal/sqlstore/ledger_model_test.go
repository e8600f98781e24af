package sqlstore

// A seeded model test of the ledger: random sequences of grants, top-ups,
// holds, multi-frame holds, posts, voids (repeated ones too) and clock moves
// that expire grants, run against the store and against a small in-memory
// model of DECISIONS §4. After every step the touched house's balance parts,
// hold list and per-credit remainders must equal the model's, every refusal
// must carry the model's need and spendable, and CheckLedger must pass.
//
//	go test -run TestLedgerModel -v ./internal/sqlstore -ledger.seed=7 -ledger.steps=20000

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

var (
	ledgerSeed  = flag.Uint64("ledger.seed", 0, "seed of the ledger model test (0: LEDGER_SEED, else 1)")
	ledgerSteps = flag.Int("ledger.steps", 0, "random steps of the ledger model test per engine (0: 3000 on SQLite and 1000 on PostgreSQL; 2000 and 500 under -race; 300 with -short)")
)

func ledgerModelSeed() uint64 {
	if *ledgerSeed != 0 {
		return *ledgerSeed
	}
	if s, err := strconv.ParseUint(os.Getenv("LEDGER_SEED"), 10, 64); err == nil && s != 0 {
		return s
	}
	return 1
}

func ledgerModelSteps(engine string) int {
	switch {
	case *ledgerSteps > 0:
		return *ledgerSteps
	case testing.Short():
		return 300
	case engine == "postgres" && ledgerRace:
		return 500
	case engine == "postgres":
		return 1000
	case ledgerRace:
		return 2000
	}
	return 3000
}

// The model.

type mCredit struct {
	id                string
	kind              ledger.CreditKind
	amount, available int64
	expires           int64 // Unix ms; 0: never
	created           int64
	plan              bool // a plan period's grant (rolls over up to the plan's multiple)
}

type mHold struct {
	id, job  string
	tokens   int64
	state    ledger.HoldState
	created  int64
	reserved map[string]int64
}

type mHouse struct {
	id           string
	credits      []*mCredit
	holds        []*mHold
	subscription string // the provider's subscription the plan mirrors; "" for a trial
}

type model struct {
	houses []*mHouse
	jobs   map[string]bool // job ids held, in any house
}

func (c *mCredit) live(now int64) bool { return c.expires == 0 || c.expires > now }

// spendingOrder sorts live credits as the store spends them.
func (h *mHouse) spendingOrder(now int64) []*mCredit {
	var out []*mCredit
	for _, c := range h.credits {
		if c.available > 0 && c.live(now) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *mCredit) int {
		rank := func(c *mCredit) (int, int) {
			k, never := 0, 0
			if c.kind == ledger.TopUp {
				k = 1
			}
			if c.expires == 0 {
				never = 1
			}
			return k, never
		}
		ak, an := rank(a)
		bk, bn := rank(b)
		return cmp.Or(cmp.Compare(ak, bk), cmp.Compare(an, bn), cmp.Compare(a.expires, b.expires),
			cmp.Compare(a.created, b.created), cmp.Compare(a.id, b.id))
	})
	return out
}

func (h *mHouse) balance(now int64) ledger.Balance {
	var b ledger.Balance
	byID := map[string]*mCredit{}
	for _, c := range h.credits {
		byID[c.id] = c
		if c.live(now) {
			b.Balance += c.available
			if c.kind == ledger.Grant {
				b.Grant += c.available
			} else {
				b.Topup += c.available
			}
		}
	}
	for _, hd := range h.holds {
		if hd.state != ledger.Pending {
			continue
		}
		b.Held += hd.tokens
		for id, n := range hd.reserved {
			if byID[id].kind == ledger.Grant {
				b.Grant += n
			} else {
				b.Topup += n
			}
		}
	}
	return b
}

// take is the model of takeHoldsTx: the error code, need and spendable it
// must answer ("" for success).
func (m *model) take(h *mHouse, hs []ledger.Hold, now int64) (code string, need, spendable int64) {
	for _, x := range hs {
		need += x.Tokens
	}
	credits := h.spendingOrder(now)
	for _, c := range credits {
		spendable += c.available
	}
	if need > spendable {
		return "INSUFFICIENT_TOKENS", need, spendable
	}
	seen := map[string]bool{}
	for _, x := range hs {
		if x.JobID != "" && (m.jobs[x.JobID] || seen[x.JobID]) {
			return "HOLD_EXISTS", 0, 0
		}
		seen[x.JobID] = true
	}
	next := 0
	for _, x := range hs {
		hd := &mHold{id: x.ID, job: x.JobID, tokens: x.Tokens, state: ledger.Pending, created: now, reserved: map[string]int64{}}
		for left := x.Tokens; left > 0; {
			c := credits[next]
			n := min(left, c.available)
			c.available -= n
			hd.reserved[c.id] += n
			left -= n
			if c.available == 0 {
				next++
			}
		}
		h.holds = append(h.holds, hd)
		if x.JobID != "" {
			m.jobs[x.JobID] = true
		}
	}
	return "", 0, 0
}

// resolve is the model of resolveHoldTx.
func (m *model) resolve(h *mHouse, hd *mHold, to ledger.HoldState) (code, state string) {
	if hd.state != ledger.Pending {
		return "HOLD_RESOLVED", string(hd.state)
	}
	hd.state = to
	if to == ledger.Voided {
		for _, c := range h.credits {
			c.available += hd.reserved[c.id]
		}
	}
	return "", ""
}

// The test.

func TestLedgerModel(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		seed := ledgerModelSeed()
		steps := ledgerModelSteps(e.name)
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		m := &model{jobs: map[string]bool{}}
		for range 16 { // several houses: isolation is part of the test, and each house's audit stays small
			_, id := newLedgerHouse(t, db)
			now := clock.Now()
			m.houses = append(m.houses, &mHouse{id: id, credits: []*mCredit{{
				id: signupCredit(t, db, id), kind: ledger.Grant, amount: ledger.SignupTokens, available: ledger.SignupTokens,
				expires: now.Add(ledger.TrialLength).UnixMilli(), created: now.UnixMilli(),
			}}})
		}
		var tally struct{ grants, topups, orders, holds, multi, refused, dup, posts, voids, again, expiries int }
		start := time.Now()
		for step := range steps {
			clock.Advance(time.Millisecond) // distinct instants: the order of credits never rests on their ids
			now := clock.Now().UnixMilli()
			h := m.houses[rng.IntN(len(m.houses))]
			var what string
			var err error
			var wantCode string
			var wantNeed, wantSpend int64
			var wantState string
			switch r := rng.IntN(100); {
			case r < 14: // a grant, sometimes dated
				c := ledger.NewGrant(1+rng.Int64N(40), ledger.SourceAdmin, nil)
				if rng.IntN(3) > 0 {
					exp := ts.Of(clock.Now().Add(time.Duration(1+rng.IntN(90)) * time.Minute))
					c.ExpiresAt = &exp
				}
				what = fmt.Sprintf("grant %d expiring %v", c.Tokens, c.ExpiresAt)
				err = db.AddCredit(ctx, h.id, c)
				mc := &mCredit{id: c.ID, kind: ledger.Grant, amount: c.Tokens, available: c.Tokens, created: now}
				if c.ExpiresAt != nil {
					mc.expires = c.ExpiresAt.UnixMilli()
				}
				h.credits = append(h.credits, mc)
				tally.grants++
			case r < 20: // a provider's paid order: a purchase, a subscription's first payment or a renewal, replayed now and then
				var orders int
				what, orders, err = m.paidOrder(t, db, rng, h, clock, now)
				tally.orders += orders
			case r < 23: // a top-up
				c := ledger.NewTopUp(1+rng.Int64N(40), "")
				what = fmt.Sprintf("top-up %d", c.Tokens)
				err = db.AddCredit(ctx, h.id, c)
				h.credits = append(h.credits, &mCredit{id: c.ID, kind: ledger.TopUp, amount: c.Tokens, available: c.Tokens, created: now})
				tally.topups++
			case r < 55: // one hold or a multi-frame request, now and then reusing a job
				n := 1
				if rng.IntN(4) == 0 {
					n = 2 + rng.IntN(5)
					tally.multi++
				}
				hs := make([]ledger.Hold, n)
				for i := range hs {
					hs[i] = ledger.NewHold("", 1+rng.Int64N(25))
					if rng.IntN(4) > 0 {
						hs[i].JobID = uuid.NewString()
					}
				}
				if rng.IntN(25) == 0 && len(m.jobs) > 0 { // a job that already has a hold
					for j := range m.jobs {
						hs[rng.IntN(n)].JobID = j
						break
					}
					tally.dup++
				}
				what = fmt.Sprintf("take %d holds", n)
				err = db.TakeHolds(ctx, h.id, hs)
				var need, spend int64
				wantCode, need, spend = m.take(h, hs, now)
				if wantCode == "INSUFFICIENT_TOKENS" {
					wantNeed, wantSpend = need, spend
					tally.refused++
				}
				tally.holds += n
			case r < 88 && len(h.holds) > 0: // post or void any hold, pending or not
				hd := h.holds[rng.IntN(len(h.holds))]
				to := ledger.Posted
				if rng.IntN(2) == 0 {
					to = ledger.Voided
				}
				what = fmt.Sprintf("%s hold %s (%s)", to, hd.id, hd.state)
				if to == ledger.Posted {
					err = db.PostHold(ctx, h.id, hd.id)
				} else {
					err = db.VoidHold(ctx, h.id, hd.id)
				}
				wantCode, wantState = m.resolve(h, hd, to)
				switch {
				case wantCode != "":
					tally.again++
				case to == ledger.Posted:
					tally.posts++
				default:
					tally.voids++
				}
			case r < 92: // another house's hold, or one that never existed
				id := uuid.NewString()
				for _, o := range m.houses {
					if o != h && len(o.holds) > 0 {
						id = o.holds[rng.IntN(len(o.holds))].id
					}
				}
				what = "resolve a hold the house does not have"
				err = db.PostHold(ctx, h.id, id)
				wantCode = "NOT_FOUND"
			default: // time passes; grants expire
				d := time.Duration(1+rng.IntN(30)) * time.Minute
				clock.Advance(d)
				what = fmt.Sprintf("advance %v", d)
				tally.expiries++
			}

			code, need, spend := fieldsOf(err)
			if code != wantCode {
				t.Fatalf("seed %d step %d (%s): got %v; want %q", seed, step, what, err, wantCode)
			}
			if wantCode == "INSUFFICIENT_TOKENS" && (need != wantNeed || spend != wantSpend) {
				t.Fatalf("seed %d step %d (%s): need %v spendable %v; want %d and %d", seed, step, what, need, spend, wantNeed, wantSpend)
			}
			if wantState != "" {
				if e, _ := errs.As(err); e.Fields["state"] != wantState {
					t.Fatalf("seed %d step %d (%s): state %v; want %s", seed, step, what, e.Fields["state"], wantState)
				}
			}
			compareHouse(t, db, h, clock.Now().UnixMilli(), fmt.Sprintf("seed %d step %d (%s)", seed, step, what))
			if step%250 == 0 {
				for _, o := range m.houses {
					compareHouse(t, db, o, clock.Now().UnixMilli(), fmt.Sprintf("seed %d step %d (sweep)", seed, step))
				}
			}
		}
		for _, o := range m.houses {
			compareHouse(t, db, o, clock.Now().UnixMilli(), fmt.Sprintf("seed %d end", seed))
		}
		t.Logf("ledger model on %s: seed %d, %d random steps in %v: %d grants, %d top-ups, %d paid orders, %d holds (%d multi-frame requests, %d refused for tokens, %d reusing a job), %d posts, %d voids, %d repeated resolutions, %d clock moves",
			e.name, seed, steps, time.Since(start).Round(time.Millisecond), tally.grants, tally.topups, tally.orders, tally.holds, tally.multi, tally.refused,
			tally.dup, tally.posts, tally.voids, tally.again, tally.expiries)
	})
}

// signupCredit returns the id of the house's sign-up grant.
func signupCredit(t *testing.T, db *DB, house string) string {
	t.Helper()
	var id string
	if err := db.read().QueryRow(context.Background(), `SELECT id FROM ledger_credits WHERE organization_id = ? AND source = ?`,
		house, ledger.SourceSignup).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// compareHouse checks the store's view of a house against the model's: one
// audit (CheckLedger's invariants) that also returns the balance and each
// credit's unreserved tokens.
func compareHouse(t *testing.T, db *DB, h *mHouse, now int64, where string) {
	t.Helper()
	audit, err := db.auditLedger(context.Background(), h.id)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	got, want := audit.balance, h.balance(now)
	if partsOf(got) != partsOf(want) {
		t.Fatalf("%s: house %s balance %+v; the model says %+v", where, h.id, partsOf(got), partsOf(want))
	}
	type key struct {
		created, tokens int64
		job             bool
	}
	var gotKeys, wantKeys []key
	for i, g := range got.Holds {
		if i > 0 && g.CreatedAt.After(got.Holds[i-1].CreatedAt.Time) {
			t.Fatalf("%s: open holds are not newest first: %+v", where, got.Holds)
		}
		gotKeys = append(gotKeys, key{g.CreatedAt.UnixMilli(), g.Tokens, g.JobID != nil})
	}
	for _, hd := range h.holds {
		if hd.state == ledger.Pending {
			wantKeys = append(wantKeys, key{hd.created, hd.tokens, hd.job != ""})
		}
	}
	byKey := func(a, b key) int {
		return cmp.Or(cmp.Compare(a.created, b.created), cmp.Compare(a.tokens, b.tokens), cmp.Compare(fmt.Sprint(a.job), fmt.Sprint(b.job)))
	}
	slices.SortFunc(gotKeys, byKey)
	slices.SortFunc(wantKeys, byKey)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s: open holds %v; the model's are %v", where, gotKeys, wantKeys)
	}
	for _, c := range h.credits {
		if n, ok := audit.available[c.id]; !ok || n != c.available {
			t.Fatalf("%s: credit %s has %d unreserved (stored: %v); the model says %d", where, c.id, n, ok, c.available)
		}
	}
	if len(audit.available) != len(h.credits) {
		t.Fatalf("%s: %d credits stored; the model has %d", where, len(audit.available), len(h.credits))
	}
}
