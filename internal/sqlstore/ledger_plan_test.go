package sqlstore

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"studio/internal/ledger"
)

// TestLedgerPlansStayOnLiveRows: a house's spent history only grows, so the
// statements that take, post and void holds and read the balance must reach
// their rows through the indexes of live credits, pending holds and primary
// keys, never by scanning a ledger table. The house gets 20,000 spent
// credits and posted holds, and as many grants that expired unspent (which
// stay in the live credits' partial index); 5,000 of each under -race.
// Every hot statement's
// plan is checked with statistics taken before the history was written
// (as autovacuum leaves them on a young database: every house looks tiny)
// and with current ones, since statistics can change a planner's mind. On
// PostgreSQL both the plan for the arguments (a custom plan) and the plan
// for any arguments (the generic plan a prepared statement switches to
// after five runs) are checked.
func TestLedgerPlansStayOnLiveRows(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		ctx := context.Background()
		clock := newLedgerClock()
		db := openLedgerDB(t, e, clock.Now)
		_, house := newLedgerHouse(t, db)
		_, neighbour := newLedgerHouse(t, db)
		ledgerTables := []string{"ledger_credits", "ledger_holds", "ledger_hold_credits", "ledger_debits"}
		analyze := func() {
			t.Helper()
			for _, table := range ledgerTables {
				if _, err := db.RawExec(ctx, "ANALYZE "+table); err != nil {
					t.Fatal(err)
				}
			}
		}
		if db.engine == Postgres { // statistics change only when the test says
			for _, table := range ledgerTables {
				if _, err := db.RawExec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)"); err != nil {
					t.Fatal(err)
				}
			}
		}
		analyze() // stale statistics: the tables hold two houses' sign-up grants
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
			`INSERT INTO ledger_credits (id, organization_id, kind, source, amount, available, expires_at, created_at) ` + series +
				` SELECT 'e' || CAST(i AS TEXT), ?, 'grant', 'history', 1, 1, i + 1, i FROM n`,
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
		var credit string
		if err := db.read().QueryRow(ctx, `SELECT credit_id FROM ledger_hold_credits WHERE hold_id = ?`, hold).Scan(&credit); err != nil {
			t.Fatal(err)
		}
		hot := []struct {
			name  string
			query string
			args  []any
		}{
			{"live credits", qLiveCredits, []any{house, now, house, house}},
			{"live sums", qLiveSums, []any{house, now, house, house}},
			{"live plan tokens", qLivePlanTokens, []any{house, now, house, house, ledger.SourcePlan}},
			{"open holds", qOpenHolds, []any{house}},
			{"resolve", qResolveHold, []any{ledger.Posted, now, house, hold}},
			{"post debits", qPostDebits, []any{now, house, hold}},
			{"reservations", qReservations, []any{house, hold}},
			{"void return", qVoidReturn, []any{int64(2), house, credit}},
			{"pending on a credit", qPendingOnCredit, []any{credit, house}},
		}
		modes := []bool{false}
		if db.engine == Postgres {
			modes = append(modes, true)
		}
		for _, stats := range []string{"stale", "current"} {
			if stats == "current" {
				analyze()
			}
			for _, h := range hot {
				for _, generic := range modes {
					t.Run(fmt.Sprintf("%s/stats=%s/generic=%v", h.name, stats, generic), func(t *testing.T) {
						plan := ledgerPlan(t, db, generic, h.query, h.args...)
						for _, line := range plan {
							if why := readsHistory(db.engine, line); why != "" {
								t.Errorf("%s:\n%s", why, strings.Join(plan, "\n"))
								break
							}
						}
					})
				}
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
// each step touched can be counted. With generic (PostgreSQL only) the
// statement is prepared and its generic plan, made for any arguments, is
// the one explained and run.
func ledgerPlan(t *testing.T, db *DB, generic bool, query string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	sqlTx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sqlTx.Rollback() }()
	tx := &Tx{db: db, q: sqlTx}
	prefix := "EXPLAIN QUERY PLAN "
	if db.engine == Postgres {
		prefix = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "
	}
	if generic {
		// A prepared statement outlives the transaction: a name of its own,
		// deallocated before the rollback returns the connection.
		name := fmt.Sprintf("ledger_plan_%d", planNames.Add(1))
		for _, q := range []string{"SET LOCAL plan_cache_mode = force_generic_plan", "PREPARE " + name + " AS " + db.bind(query)} {
			if _, err := sqlTx.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		defer func() { _, _ = sqlTx.ExecContext(ctx, "DEALLOCATE "+name) }()
		// EXECUTE takes its arguments as literals, not as parameters.
		lits := make([]string, len(args))
		for i, a := range args {
			switch a := a.(type) {
			case int64:
				lits[i] = strconv.FormatInt(a, 10)
			default:
				lits[i] = "'" + strings.ReplaceAll(fmt.Sprint(a), "'", "''") + "'"
			}
		}
		query, args = "EXECUTE "+name+" ("+strings.Join(lits, ", ")+")", nil
	}
	rows, err := tx.Query(ctx, prefix+query, args...)
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
	planNames    atomic.Int64 // names of prepared statements
	sqliteSearch = regexp.MustCompile(`^SEARCH (\S+) USING (?:COVERING )?INDEX (\S+) \((.*)\)$`)
	pgRows       = regexp.MustCompile(`(?:rows=(\d+) loops=(\d+))|(?:Rows Removed by \w+: (\d+))`)
)

// readsHistory tells why a plan line reads a house's spent history ("" when
// it does not). On SQLite a step must search the pending holds' partial
// index, or an index on more than organization_id (a primary key, a hold's
// id, a kind and expiry range of the live credits' partial index): an index
// searched on organization_id alone walks every row the house ever wrote,
// or, on the live credits' index, every grant that expired unspent.
// On PostgreSQL no step may touch more than 100 rows (the house has
// thousands of spent ones and under 10 live ones), and no plan may be
// parallel.
func readsHistory(engine Engine, line string) string {
	line = strings.TrimSpace(line)
	if engine == Postgres {
		if strings.Contains(line, "Gather") {
			return "a parallel plan: its workers take longer to start than the live rows to read"
		}
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
	if strings.HasPrefix(line, "SCAN ") && line != "SCAN live" { // live: qLiveCredits' few rows, not a table
		return "a step scans a table"
	}
	m := sqliteSearch.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	if m[2] == "ledger_holds_pending" {
		return ""
	}
	for term := range strings.SplitSeq(m[3], " AND ") {
		if !strings.HasPrefix(term, "organization_id") {
			return ""
		}
	}
	return "a step searches an index on organization_id alone"
}
