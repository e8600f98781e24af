package sqlstore

import (
	"context"
	"slices"
	"testing"
)

// TestUserColumnsCovered fails when the schema has a column that names a
// user and userColumns does not say what erasing a user does with it: a
// table added later must decide (delete the row, null the attribution, or
// keep it with a reason).
func TestUserColumnsCovered(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		db := openLedgerDB(t, e, nil)
		cols, err := db.userColumnsInSchema(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) < 10 {
			t.Fatalf("found only %v; is the schema query right?", cols)
		}
		for _, c := range cols {
			if !slices.ContainsFunc(userColumns, func(u struct {
				table, column string
				action        eraseAction
			}) bool {
				return u.table == c[0] && u.column == c[1]
			}) {
				t.Errorf("%s.%s names a user; add it to userColumns (erase.go) with what erasure does to it", c[0], c[1])
			}
		}
		for _, u := range userColumns {
			if !slices.Contains(cols, [2]string{u.table, u.column}) {
				t.Errorf("userColumns lists %s.%s, which the schema does not have", u.table, u.column)
			}
		}
	})
}

// TestHouseTablesChildrenFirst: every table of a house comes before each
// table it references, and the known ones are all there.
func TestHouseTablesChildrenFirst(t *testing.T) {
	forEachLedgerEngine(t, func(t *testing.T, e ledgerEngine) {
		db := openLedgerDB(t, e, nil)
		order, err := db.houseTables(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, refs, err := db.schemaGraph(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pos := map[string]int{}
		for i, tname := range order {
			pos[tname] = i
		}
		for _, want := range []string{"assets", "asset_tags", "folders", "jobs", "ledger_credits", "ledger_holds",
			"ledger_hold_credits", "ledger_debits", "plans", "seats", "api_keys", "posts", "looks", "seat_invitations"} {
			if _, ok := pos[want]; !ok {
				t.Errorf("%s is not among the house's tables %v", want, order)
			}
		}
		for from, tos := range refs {
			for _, to := range tos {
				pf, okf := pos[from]
				pt, okt := pos[to]
				if okf && okt && from != to && pf > pt {
					t.Errorf("%s references %s but is emptied after it", from, to)
				}
			}
		}
	})
}

func TestChildrenFirstRefusesACycle(t *testing.T) {
	if _, err := childrenFirst([]string{"a", "b"}, map[string][]string{"a": {"b"}, "b": {"a"}}); err == nil {
		t.Error("a cycle was ordered")
	}
}
