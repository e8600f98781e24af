package sqlstore

// A seeded model test of the ledger: random sequences of grants, top-ups,
// holds, multi-frame holds, posts, voids (repeated ones too) and clock moves
// that expire grants, run against the store and against a small in-memory
// model of DECISIONS §4. After every step the touched house's balance parts
// and hold list, and the rows the step wrote (its credits' remainders, its
// holds' states), must equal the model's, and every refusal must carry the
// model's need and spendable. Every -ledger.audit steps the touched house is
// audited whole (CheckLedger's invariants and every credit's remainder), every
// house every 250 audits and at the end. Up to 20,000 steps the audit runs
// every step; a long run (make ledger-model, 1,000,000 steps) audits every
// 1,000, since a whole-house audit grows with the house's history.
//
//	go test -run TestLedgerModel -v ./internal/sqlstore -ledger.seed=7 -ledger.steps=20000
//	go test -run 'TestLedgerModel/sqlite' -v ./internal/sqlstore -ledger.steps=1000000 -ledger.audit=1000

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
	"studio/internal/ops"
	"studio/internal/ts"
)

var (
	ledgerSeed       = flag.Uint64("ledger.seed", 0, "seed of the ledger model test (0: LEDGER_SEED, else 1)")
	ledgerSteps      = flag.Int("ledger.steps", 0, "random steps of the ledger model test per engine (0: 3000 on SQLite and 1000 on PostgreSQL; 2000 and 500 under -race; 300 with -short)")
	ledgerProgress   = flag.Int("ledger.progress", 0, "log the ledger model test's progress every N steps (0: never)")
	ledgerAuditEvery = flag.Int("ledger.audit", 0, "audit the touched house whole every N steps of the ledger model test, every house every 250·N (0: every step up to 20,000 steps, else every 1,000)")
)

// ledgerModelAudit is the number of steps between whole-house audits.
func ledgerModelAudit(steps int) int {
	switch {
	case *ledgerAuditEvery > 0:
		return *ledgerAuditEvery
	case steps <= 20000:
		return 1
	}
	return 1000
}

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
	plan              bool  // a plan period's grant (rolls over up to the plan's multiple)
	active            bool  // listed in the house's active credits
	revoked           bool  // its entitlement was revoked: it never grows again
	takenBack         int64 // tokens its revocation took back (at the revoke, then from voids)
}

// mEnt is a paid order's entitlement.
type mEnt struct {
	id             string
	credit         *mCredit // nil when the order credited nothing
	revoked        bool
	taken, pending int64 // what the first revoke answered
}

// mReserved is what a hold reserved on one credit.
type mReserved struct {
	c *mCredit
	n int64
}

type mHold struct {
	id, job  string
	tokens   int64
	state    ledger.HoldState
	created  int64
	reserved []mReserved // one entry per credit: a hold walks the credits in order
}

// mHouse is a house of the model. Every list but active and pending only
// grows; those two keep the model's step cheap on a long run, as the store's
// partial indexes keep its step cheap.
type mHouse struct {
	id           string
	credits      []*mCredit // every credit, for the audit
	active       []*mCredit // a superset of the live credits with unreserved tokens
	holds        []*mHold   // every hold
	pending      []*mHold   // the pending holds
	ents         []*mEnt    // the paid orders' entitlements
	subscription string     // the provider's subscription the plan mirrors; "" for a trial
}

type model struct {
	houses []*mHouse
	jobs   map[string]bool // job ids held, in any house
}

func (c *mCredit) live(now int64) bool { return c.expires == 0 || c.expires > now }

// addCredit records a new credit.
func (h *mHouse) addCredit(c *mCredit) {
	c.active = true
	h.credits = append(h.credits, c)
	h.active = append(h.active, c)
}

// compact drops from the active list the credits spent or expired at now
// (the clock only moves forward; a void puts a credit back).
func (h *mHouse) compact(now int64) {
	kept := h.active[:0]
	for _, c := range h.active {
		if c.available > 0 && c.live(now) {
			kept = append(kept, c)
		} else {
			c.active = false
		}
	}
	clear(h.active[len(kept):])
	h.active = kept
}

// spendingOrder sorts live credits as the store spends them.
func (h *mHouse) spendingOrder(now int64) []*mCredit {
	h.compact(now)
	out := slices.Clone(h.active)
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
	h.compact(now)
	for _, c := range h.active {
		b.Balance += c.available
		if c.kind == ledger.Grant {
			b.Grant += c.available
		} else {
			b.Topup += c.available
		}
	}
	for _, hd := range h.pending {
		b.Held += hd.tokens
		for _, r := range hd.reserved {
			if r.c.kind == ledger.Grant {
				b.Grant += r.n
			} else {
				b.Topup += r.n
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
		hd := &mHold{id: x.ID, job: x.JobID, tokens: x.Tokens, state: ledger.Pending, created: now}
		for left := x.Tokens; left > 0; {
			c := credits[next]
			n := min(left, c.available)
			c.available -= n
			hd.reserved = append(hd.reserved, mReserved{c, n})
			left -= n
			if c.available == 0 {
				next++
			}
		}
		h.holds = append(h.holds, hd)
		h.pending = append(h.pending, hd)
		if x.JobID != "" {
			m.jobs[x.JobID] = true
		}
	}
	return "", 0, 0
}

// resolve is the model of resolveHoldTx.
func (m *model) resolve(h *mHouse, hd *mHold, to ledger.HoldState, now int64) (code, state string) {
	if hd.state != ledger.Pending {
		return "HOLD_RESOLVED", string(hd.state)
	}
	hd.state = to
	i := slices.Index(h.pending, hd)
	h.pending = slices.Delete(h.pending, i, i+1)
	if to == ledger.Voided {
		for _, r := range hd.reserved {
			if r.c.revoked { // a revoked credit's part goes to its revocation
				r.c.takenBack += r.n
				continue
			}
			r.c.available += r.n
			if !r.c.active && r.c.live(now) {
				r.c.active = true
				h.active = append(h.active, r.c)
			}
		}
	}
	return "", ""
}

// maxPending bounds a house's open holds, as a house's queue does: a house
// that has as many settles one instead of taking more. Without it open holds
// would pile up (a step takes 1.75 holds on average, and resolves at most
// one), and a long run would read an ever longer list of them every step.
const maxPending = 40

// revoke is the model of RevokeEntitlement: what is left unreserved on the
// entitlement's credit is taken back; pending holds keep their parts (a
// void later gives them to the revocation). A repeat answers the first.
func (m *model) revoke(h *mHouse, e *mEnt) (taken, pending int64) {
	if e.revoked {
		return e.taken, e.pending
	}
	e.revoked = true
	if c := e.credit; c != nil {
		c.revoked, taken, c.available = true, c.available, 0
		c.takenBack += taken
		for _, hd := range h.pending {
			for _, r := range hd.reserved {
				if r.c == c {
					pending += r.n
				}
			}
		}
	}
	e.taken, e.pending = taken, pending
	return taken, pending
}

// The test.

func TestLedgerModel(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		seed := ledgerModelSeed()
		steps := ledgerModelSteps(e.name)
		every := ledgerModelAudit(steps)
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		m := &model{jobs: map[string]bool{}}
		for range 16 { // several houses: isolation is part of the test, and each house's audit stays small
			_, id := newLedgerHouse(t, db)
			now := clock.Now()
			h := &mHouse{id: id}
			h.addCredit(&mCredit{
				id: signupCredit(t, db, id), kind: ledger.Grant, amount: ledger.SignupTokens, available: ledger.SignupTokens,
				expires: now.Add(ledger.TrialLength).UnixMilli(), created: now.UnixMilli(),
			})
			m.houses = append(m.houses, h)
		}
		var tally struct {
			grants, topups, orders, holds, multi, refused, dup, posts, voids, again, expiries int
			revokes, revokesAgain, revokedTokens, revokedPending                              int64
			audits, checks, big                                                               int
		}
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
			credits0 := len(h.credits)
			var touched []*mHold          // holds the step wrote or tried to resolve
			var absent []string           // holds the step must not have written
			var touchedCredits []*mCredit // older credits the step changed
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
				h.addCredit(mc)
				tally.grants++
			case r < 20: // a provider's paid order: a purchase, a subscription's first payment or a renewal, replayed now and then
				var orders int
				what, orders, err = m.paidOrder(t, db, rng, h, clock, now)
				tally.orders += orders
			case r < 23: // a top-up
				c := ledger.NewTopUp(1+rng.Int64N(40), "")
				what = fmt.Sprintf("top-up %d", c.Tokens)
				err = db.AddCredit(ctx, h.id, c)
				h.addCredit(&mCredit{id: c.ID, kind: ledger.TopUp, amount: c.Tokens, available: c.Tokens, created: now})
				tally.topups++
			case r < 55 && len(h.pending) < maxPending: // one hold or a multi-frame request, now and then reusing a job
				n := 1
				if rng.IntN(4) == 0 {
					n = 2 + rng.IntN(5)
					tally.multi++
				}
				hs := make([]ledger.Hold, n)
				most := int64(25)
				if n == 1 && rng.IntN(10) == 0 { // a big job: houses spend as they earn, so a long run's live credits stay few
					most = max(most, h.balance(now).Balance/2)
					tally.big++
				}
				for i := range hs {
					hs[i] = ledger.NewHold("", 1+rng.Int64N(most))
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
				if wantCode == "" {
					touched = h.holds[len(h.holds)-n:]
				} else {
					for _, x := range hs {
						absent = append(absent, x.ID)
					}
				}
				tally.holds += n
			case r < 88 && len(h.holds) > 0: // post or void a pending hold, or any hold; a house at maxPending settles instead of taking
				hd := h.holds[rng.IntN(len(h.holds))]
				if len(h.pending) > 0 && rng.IntN(4) > 0 { // open holds get settled, as a house's jobs end
					hd = h.pending[rng.IntN(len(h.pending))]
				}
				touched = []*mHold{hd}
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
				wantCode, wantState = m.resolve(h, hd, to, now)
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
			case r < 94 && len(h.ents) > 0: // an operator revokes a paid order's entitlement (now and then one revoked before)
				ent := h.ents[rng.IntN(len(h.ents))]
				again := ent.revoked
				what = fmt.Sprintf("revoke entitlement %s (revoked: %v)", ent.id, again)
				var got ops.Entitlement
				got, err = db.RevokeEntitlement(ctx, ent.id, "", "model")
				taken, pending := m.revoke(h, ent)
				if err == nil && (got.Status != ops.EntitlementRevoked || got.Revocation == nil ||
					got.Revocation.TokensTakenBack != taken || got.Revocation.TokensPending != pending) {
					err = fmt.Errorf("revoke answered %+v %+v; the model takes back %d with %d pending", got, got.Revocation, taken, pending)
				}
				if ent.credit != nil {
					touchedCredits = []*mCredit{ent.credit}
				}
				if again {
					tally.revokesAgain++
				} else {
					tally.revokes++
					tally.revokedTokens += taken
					tally.revokedPending += pending
				}
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
			where := fmt.Sprintf("seed %d step %d (%s)", seed, step, what)
			if step%every == 0 {
				compareHouse(t, db, h, clock.Now().UnixMilli(), where)
				tally.audits++
			} else {
				checkStep(t, db, h, clock.Now().UnixMilli(), where, slices.Concat(h.credits[credits0:], touchedCredits), touched, absent)
				tally.checks++
			}
			if step%(250*every) == 0 {
				for _, o := range m.houses {
					compareHouse(t, db, o, clock.Now().UnixMilli(), fmt.Sprintf("seed %d step %d (sweep)", seed, step))
					tally.audits++
				}
			}
			if *ledgerProgress > 0 && (step+1)%*ledgerProgress == 0 {
				took := time.Since(start)
				t.Logf("ledger model on %s: %d steps in %v (%.0f steps/s): %d holds, %d posts, %d voids, %d repeated resolutions, %d revokes; %d audits, %d per-step checks, all passed",
					e.name, step+1, took.Round(time.Second), float64(step+1)/took.Seconds(), tally.holds, tally.posts, tally.voids, tally.again,
					tally.revokes, tally.audits, tally.checks)
			}
		}
		for _, o := range m.houses {
			compareHouse(t, db, o, clock.Now().UnixMilli(), fmt.Sprintf("seed %d end", seed))
			tally.audits++
		}
		took := time.Since(start)
		t.Logf("ledger model on %s: seed %d, %d random steps in %v (%.0f steps/s): %d grants, %d top-ups, %d paid orders, %d holds (%d multi-frame requests, %d big ones, %d refused for tokens, %d reusing a job), %d posts, %d voids, %d repeated resolutions, %d clock moves, %d entitlements revoked (%d tokens taken back, %d then still held; %d repeated revokes); %d whole-house audits (every %d steps), %d per-step checks",
			e.name, seed, steps, took.Round(time.Millisecond), float64(steps)/took.Seconds(), tally.grants, tally.topups, tally.orders, tally.holds, tally.multi, tally.big, tally.refused,
			tally.dup, tally.posts, tally.voids, tally.again, tally.expiries, tally.revokes, tally.revokedTokens, tally.revokedPending, tally.revokesAgain, tally.audits, every, tally.checks)
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
	compareOpenHolds(t, got, h, where)
	for _, c := range h.credits {
		if n, ok := audit.available[c.id]; !ok || n != c.available {
			t.Fatalf("%s: credit %s has %d unreserved (stored: %v); the model says %d", where, c.id, n, ok, c.available)
		}
	}
	if len(audit.available) != len(h.credits) {
		t.Fatalf("%s: %d credits stored; the model has %d", where, len(audit.available), len(h.credits))
	}
	revoked := 0
	for _, c := range h.credits {
		if c.revoked {
			revoked++
			if audit.revoked[c.id] != c.takenBack {
				t.Fatalf("%s: revoked credit %s: %d taken back; the model says %d", where, c.id, audit.revoked[c.id], c.takenBack)
			}
		}
	}
	if len(audit.revoked) != revoked {
		t.Fatalf("%s: %d credits revoked; the model has %d", where, len(audit.revoked), revoked)
	}
}

// compareOpenHolds checks the balance's list of open holds against the
// model's pending holds.
func compareOpenHolds(t *testing.T, got ledger.Balance, h *mHouse, where string) {
	t.Helper()
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
	for _, hd := range h.pending {
		wantKeys = append(wantKeys, key{hd.created, hd.tokens, hd.job != ""})
	}
	byKey := func(a, b key) int {
		return cmp.Or(cmp.Compare(a.created, b.created), cmp.Compare(a.tokens, b.tokens), cmp.Compare(fmt.Sprint(a.job), fmt.Sprint(b.job)))
	}
	slices.SortFunc(gotKeys, byKey)
	slices.SortFunc(wantKeys, byKey)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s: open holds %v; the model's are %v", where, gotKeys, wantKeys)
	}
}

// checkStep is the check after a step between audits, reading only what
// the step could have changed: the house's balance parts and open holds (the
// balance's own path, on the partial indexes), the credits the step wrote,
// the holds it wrote or resolved and the credits they reserved, and the
// holds a refused request must not have written.
func checkStep(t *testing.T, db *DB, h *mHouse, now int64, where string, credits []*mCredit, holds []*mHold, absent []string) {
	t.Helper()
	ctx := context.Background()
	got, err := db.Balance(ctx, h.id)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if want := h.balance(now); partsOf(got) != partsOf(want) {
		t.Fatalf("%s: house %s balance %+v; the model says %+v", where, h.id, partsOf(got), partsOf(want))
	}
	compareOpenHolds(t, got, h, where)
	credit := func(c *mCredit) {
		var n int64
		if err := db.read().QueryRow(ctx, `SELECT available FROM ledger_credits WHERE organization_id = ? AND id = ?`,
			h.id, c.id).Scan(&n); err != nil || n != c.available {
			t.Fatalf("%s: credit %s has %d unreserved (%v); the model says %d", where, c.id, n, err, c.available)
		}
	}
	for _, c := range credits {
		credit(c)
	}
	for _, hd := range holds {
		got, err := db.Hold(ctx, h.id, hd.id)
		if err != nil || got.State != hd.state || got.Tokens != hd.tokens {
			t.Fatalf("%s: hold %s is %+v (%v); the model's is %s of %d", where, hd.id, got, err, hd.state, hd.tokens)
		}
		for _, r := range hd.reserved {
			credit(r.c)
		}
	}
	for _, id := range absent {
		if _, err := db.Hold(ctx, h.id, id); !isCode(err, errs.NotFound) {
			t.Fatalf("%s: a refused hold %s was written (%v)", where, id, err)
		}
	}
}
