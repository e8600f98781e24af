package sqlstore

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"studio/internal/ledger"
)

// TestLedgerPlansStayOnLiveRows: a house's spent history only grows, so the
// statements that take, post and void holds and read the balance must reach
// their rows through the indexes of live credits, pending holds and primary
// keys, never by scanning a ledger table. The house gets 20,000 spent
// credits and posted holds (5,000 under -race), and every hot statement's
// plan is checked before and after ANALYZE (statistics can change a
// planner's mind).
func TestLedgerPlansStayOnLiveRows(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, neighbour := newLedgerHouse(t, db)
		history := 20000
		if ledgerRace {
			history = 5000 // instrumented SQLite is slow to write; still 500 times the live rows
		}
		// Each spent credit of one token was reserved and debited by one posted hold.
		series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)`, history)
		for _, q := range []string{
			`INSERT INTO ledger_credits (id, organization_id, kind, source, amount, available, created_at) ` + series +
				` SELECT 'c' || CAST(i AS TEXT), ?, 'topup', 'history', 1, 0, i FROM n`,
			`INSERT INTO ledger_holds (id, organization_id, tokens, state, created_at, resolved_at) ` + series +
				` SELECT 'h' || CAST(i AS TEXT), ?, 1, 'posted', i, i + 1 FROM n`,
			`INSERT INTO ledger_hold_credits (hold_id, credit_id, organization_id, tokens) ` + series +
				` SELECT 'h' || CAST(i AS TEXT), 'c' || CAST(i AS TEXT), ?, 1 FROM n`,
			`INSERT INTO ledger_debits (hold_id, credit_id, organization_id, tokens, created_at) ` + series +
				` SELECT 'h' || CAST(i AS TEXT), 'c' || CAST(i AS TEXT), ?, 1, i + 1 FROM n`,
		} {
			if _, err := db.RawExec(ctx, q, house); err != nil {
				t.Fatalf("history: %v", err)
			}
		}
		pending := make([]ledger.Hold, 5)
		for i := range pending {
			pending[i] = ledger.NewHold(uuid.NewString(), 2)
		}
		if err := db.TakeHolds(ctx, house, pending); err != nil {
			t.Fatal(err)
		}
		if err := db.TakeHold(ctx, neighbour, ledger.NewHold("", 3)); err != nil {
			t.Fatal(err)
		}
		checkLedger(t, db, house, neighbour)

		hold, now := pending[0].ID, db.nowMs()
		hot := []struct {
			name  string
			query string
			args  []any
		}{
			{"live credits", qLiveCredits, []any{house, now}},
			{"live sums", qLiveSums, []any{house, now}},
			{"held sums", qHeldSums, []any{house}},
			{"open holds", qOpenHolds, []any{house}},
			{"resolve", qResolveHold, []any{ledger.Posted, now, house, hold}},
			{"post debits", qPostDebits, []any{now, house, hold}},
			{"void return", qVoidReturn, []any{hold, house, house, hold}},
			{"void revoked", qVoidRevoked, []any{now, house, hold}},
		}
		for _, analyzed := range []bool{false, true} {
			if analyzed {
				for _, table := range []string{"ledger_credits", "ledger_holds", "ledger_hold_credits", "ledger_debits"} {
					q := "ANALYZE " + table
					if _, err := db.RawExec(ctx, q); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, h := range hot {
				t.Run(fmt.Sprintf("%s/analyzed=%v", h.name, analyzed), func(t *testing.T) {
					plan := ledgerPlan(t, db, h.query, h.args...)
					for _, line := range plan {
						if why := readsHistory(db.engine, line); why != "" {
							t.Errorf("%s:\n%s", why, strings.Join(plan, "\n"))
							break
						}
					}
				})
			}
		}
		if b := balanceOf(t, db, house); b.Held != 10 || b.Balance != 50 {
			t.Errorf("balance %+v", partsOf(b))
		}
	})
}

// ledgerPlan returns the engine's plan of a statement, one line per step:
// SQLite's EXPLAIN QUERY PLAN, and PostgreSQL's EXPLAIN ANALYZE (the
// statement runs, in a transaction that is rolled back) so that the rows
// each step touched can be counted.
func ledgerPlan(t *testing.T, db *DB, query string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	sqlTx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sqlTx.Rollback() }()
	prefix := "EXPLAIN QUERY PLAN "
	if db.engine == Postgres {
		prefix = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "
	}
	rows, err := (&Tx{db: db, q: sqlTx}).Query(ctx, prefix+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

var (
	sqliteSearch = regexp.MustCompile(`^SEARCH (\S+) USING (?:COVERING )?INDEX (\S+) \((.*)\)$`)
	pgRows       = regexp.MustCompile(`(?:rows=(\d+) loops=(\d+))|(?:Rows Removed by \w+: (\d+))`)
)

// readsHistory tells why a plan line reads a house's spent history ("" when
// it does not). On SQLite a step must search a live partial index, or an
// index on more than organization_id (a primary key, a hold's id): an index
// searched on organization_id alone walks every row the house ever wrote.
// On PostgreSQL no step may touch more than 100 rows (the house has
// thousands of spent ones and under 10 live ones).
func readsHistory(engine Engine, line string) string {
	line = strings.TrimSpace(line)
	if engine == Postgres {
		for _, m := range pgRows.FindAllStringSubmatch(line, -1) {
			rows, _ := strconv.Atoi(m[1])
			loops, _ := strconv.Atoi(m[2])
			removed, _ := strconv.Atoi(m[3])
			if rows*loops > 100 || removed > 100 {
				return "a step touched more than 100 rows"
			}
		}
		return ""
	}
	if strings.HasPrefix(line, "SCAN ") {
		return "a step scans a table"
	}
	m := sqliteSearch.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	if m[2] == "ledger_credits_live" || m[2] == "ledger_holds_pending" {
		return ""
	}
	for term := range strings.SplitSeq(m[3], " AND ") {
		if !strings.HasPrefix(term, "organization_id") {
			return ""
		}
	}
	return "a step searches an index on organization_id alone"
}
