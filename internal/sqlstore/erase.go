package sqlstore

// Erasing a user (POST /me/delete) and closing a house left with no seat.
//
// What an erasure does to each column that names a user is one table,
// userColumns; a test fails when the schema grows a user column it does
// not list. A closed house's rows are found from the schema itself: every
// table with an organization_id column, emptied of the house's rows in an
// order where no foreign key breaks, then the house's own row.

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"studio/internal/account"
)

// What an erasure does with a column that names the erased user.
type eraseAction uint8

const (
	eraseRows eraseAction = iota // the row is the user's own: deleted
	eraseNull                    // attribution on house work: set to null
	eraseKeep                    // kept (see the entry's note)
)

// userColumns lists every column that names a user and what erasure does
// with it. Houses the user leaves keep every row of their work; only the
// attribution goes.
var userColumns = []struct {
	table, column string
	action        eraseAction
}{
	{"sessions", "user_id", eraseRows},
	{"api_keys", "user_id", eraseRows},
	{"email_verifications", "user_id", eraseRows},
	{"email_log", "user_id", eraseRows}, // and every letter to the address
	{"notifications", "user_id", eraseRows},
	{"invitations", "user_id", eraseRows}, // and every door of the address
	{"seats", "user_id", eraseRows},
	{"invitations", "invited_by_user_id", eraseNull},
	{"seat_invitations", "invited_by_user_id", eraseNull},
	{"invite_codes", "owner_user_id", eraseNull}, // and the code is revoked: others' doors still name it
	{"invite_codes", "created_by_user_id", eraseNull},
	{"organizations", "founder_user_id", eraseNull},
	{"ledger_credits", "granted_by_user_id", eraseNull},
	{"entitlement_revocations", "revoked_by_user_id", eraseNull},
	{"ledger_holds", "user_id", eraseNull},
	{"packs", "user_id", eraseNull},
	{"assets", "created_by_user_id", eraseNull},
	{"folders", "created_by_user_id", eraseNull},
	{"looks", "created_by_user_id", eraseNull},
	{"jobs", "user_id", eraseNull},
	{"posts", "author_id", eraseNull},
	{"shares", "created_by_user_id", eraseNull},         // the link, its frames and the reviewers' marks stay with the house
	{"frame_feedback", "user_id", eraseNull},            // the house's answer to a verdict stays
	{"standing_notes", "created_by_user_id", eraseNull}, // a standing note is the house's
	{"directions", "user_id", eraseNull},                // the direction recorded for a redraw stays with its frame
	{"webhook_endpoints", "created_by_user_id", eraseNull},
	{"takes", "user_id", eraseRows},                   // the user's replay record of an answer (its idempotency key): the user's own
	{"house_models", "created_by_user_id", eraseNull}, // the house's own model stays with the house
	{"chat_turns", "user_id", eraseRows},              // the user's conversations with the assistant (turns before their sessions)
	{"chat_sessions", "user_id", eraseRows},
	{"memories", "user_id", eraseRows},                   // personal memories; successors of personal ones are personal too
	{"memories", "created_by_user_id", eraseNull},        // the house's memories stay, without their author
	{"memory_settings", "updated_by_user_id", eraseNull}, // the house's setting stays
	{"support_tickets", "user_id", eraseNull},            // the desk keeps the thread (and its messages) without the user
	{"support_shots", "user_id", eraseNull},              // the screenshots' sweep removes them after the retention period
	{"billing_checkouts", "created_by_user_id", eraseNull},
	{"brand_dna_reads", "user_id", eraseNull},        // a DNA read is the house's spend
	{"brand_marks", "created_by_user_id", eraseNull}, // the house's marks stay with the house
	{"access_grants", "user_id", eraseRows},          // an operator's grants to the user
	{"onboarding_marks", "user_id", eraseRows},       // the user's own checklist marks
	{"ai_calls", "user_id", eraseNull},               // an AI lane call is the house's spend
	{"access_grants", "granted_by_user_id", eraseNull},
	{"pipeline_presets", "created_by_user_id", eraseNull},   // a saved plan is the house's
	{"pipeline_runs", "user_id", eraseNull},                 // a run is the house's spend; its develops keep going
	{"billing_autocharge", "updated_by_user_id", eraseNull}, // the house's standing order stays
	{"referral_rewards", "host_user_id", eraseNull},         // the host's house keeps its reward
	{"analyst_digests", "run_by_user_id", eraseNull},        // the platform's digest stays, without who pressed
	{"analyst_cadence", "updated_by_user_id", eraseNull},    // the platform's cadence stays
	// The operators' audit of digest reads keeps the reader's id (no
	// foreign key): it names no one once the user row is gone.
	{"analyst_reads", "user_id", eraseKeep},
	// An approval keeps its approver's id: the schema pairs it with the
	// approval's time (00003's CHECK), and clearing both would undo the
	// house's decision. The id names no one once the user row is gone.
	{"assets", "approved_by_user_id", eraseKeep},
}

// EraseUser erases a user in one transaction: decide sees every house
// where they hold a seat (locked) and may refuse; then the user's own rows
// go, attribution on house work becomes null, houses left with no seat
// are closed, and the user row goes last.
func (db *DB) EraseUser(ctx context.Context, userID, email string, decide func([]account.Standing) error) (account.Erasure, error) {
	order, err := db.houseTables(ctx)
	if err != nil {
		return account.Erasure{}, err
	}
	var out account.Erasure
	err = db.write(ctx, func(tx *Tx) error {
		out = account.Erasure{}
		var houses []string
		rows, err := tx.Query(ctx, `SELECT organization_id FROM seats WHERE user_id = ? ORDER BY organization_id`, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return err
			}
			houses = append(houses, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var standings []account.Standing
		for _, h := range houses { // in id order: two erasures lock houses in the same order
			if err := db.lockHouse(ctx, tx, h); err != nil {
				return err
			}
			st := account.Standing{HouseID: h}
			if err := tx.QueryRow(ctx, `SELECT s.role,
					(SELECT COUNT(*) FROM seats WHERE organization_id = s.organization_id AND role = 'owner'),
					(SELECT COUNT(*) FROM seats WHERE organization_id = s.organization_id)
				FROM seats s WHERE s.organization_id = ? AND s.user_id = ?`, h, userID).Scan(&st.Role, &st.Owners, &st.Seats); err != nil {
				return err
			}
			standings = append(standings, st)
		}
		if err := decide(standings); err != nil {
			return err
		}
		if err := eraseRowsOf(ctx, tx, userID, email); err != nil {
			return err
		}
		for _, st := range standings {
			if st.Seats > 1 {
				out.Left = append(out.Left, st.HouseID)
				continue
			}
			keys, err := houseBlobs(ctx, tx, st.HouseID)
			if err != nil {
				return err
			}
			out.Blobs = append(out.Blobs, keys...)
			if err := closeHouse(ctx, tx, order, st.HouseID); err != nil {
				return err
			}
			out.Closed = append(out.Closed, st.HouseID)
		}
		_, err = tx.Exec(ctx, `DELETE FROM users WHERE id = ?`, userID)
		return err
	})
	return out, err
}

// eraseRowsOf applies userColumns, and removes what is the user's by
// address: letters, invitations, seat offers, their application, and a
// house's billing address that was theirs.
func eraseRowsOf(ctx context.Context, tx *Tx, userID, email string) error {
	byAddress := []string{
		`DELETE FROM email_log WHERE to_addr = ?`,
		`DELETE FROM invitations WHERE email = ?`,
		`DELETE FROM seat_invitations WHERE email = ?`,
		`DELETE FROM invite_requests WHERE email = ?`,
		`DELETE FROM billing_settings WHERE email = ?`, // a house whose billing letters went to it falls back to its first owner
	}
	for _, q := range byAddress {
		if _, err := tx.Exec(ctx, q, email); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE invite_codes SET revoked_at = COALESCE(revoked_at, ?) WHERE owner_user_id = ?`,
		tx.db.nowMs(), userID); err != nil {
		return err
	}
	// Turns of the user's sessions go with them, whoever wrote them.
	if _, err := tx.Exec(ctx, `DELETE FROM chat_turns WHERE EXISTS (SELECT 1 FROM chat_sessions c
		WHERE c.organization_id = chat_turns.organization_id AND c.id = chat_turns.session_id AND c.user_id = ?)`, userID); err != nil {
		return err
	}
	for _, c := range userColumns {
		var q string
		switch c.action {
		case eraseRows:
			q = `DELETE FROM ` + c.table + ` WHERE ` + c.column + ` = ?`
		case eraseNull:
			q = `UPDATE ` + c.table + ` SET ` + c.column + ` = NULL WHERE ` + c.column + ` = ?`
		default:
			continue
		}
		if _, err := tx.Exec(ctx, q, userID); err != nil {
			return fmt.Errorf("erase %s.%s: %w", c.table, c.column, err)
		}
	}
	return nil
}

// houseBlobs lists the stored bytes a house's rows name.
func houseBlobs(ctx context.Context, tx *Tx, house string) ([]string, error) {
	var keys []string
	err := readAll(ctx, tx, []query{{`SELECT blob_key FROM assets WHERE organization_id = ?
		UNION ALL SELECT blob_key FROM packs WHERE organization_id = ? AND blob_key IS NOT NULL`, []any{house, house}, func(r scanner) error {
		var k string
		err := r.Scan(&k)
		keys = append(keys, k)
		return err
	}}})
	return keys, err
}

// closeHouse removes every row of a house: the tables with an
// organization_id column in order (children first), sessions still
// pointing at it, then the house itself.
func closeHouse(ctx context.Context, tx *Tx, order []string, house string) error {
	for _, t := range order {
		if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE organization_id = ?`, house); err != nil {
			return fmt.Errorf("close house: %s: %w", t, err)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE active_organization_id = ?`, house); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM organizations WHERE id = ?`, house)
	return err
}

var houseOrder struct {
	sync.Mutex
	byDB map[*DB][]string
}

// houseTables lists every table with an organization_id column, each
// before the tables it references, read from the schema once per DB.
func (db *DB) houseTables(ctx context.Context) ([]string, error) {
	houseOrder.Lock()
	defer houseOrder.Unlock()
	if t, ok := houseOrder.byDB[db]; ok {
		return t, nil
	}
	tables, refs, err := db.schemaGraph(ctx)
	if err != nil {
		return nil, err
	}
	order, err := childrenFirst(tables, refs)
	if err != nil {
		return nil, err
	}
	if houseOrder.byDB == nil {
		houseOrder.byDB = map[*DB][]string{}
	}
	houseOrder.byDB[db] = order
	return order, nil
}

// schemaGraph reads the tables with an organization_id column and, for
// every table, the tables its foreign keys reference.
func (db *DB) schemaGraph(ctx context.Context) ([]string, map[string][]string, error) {
	tablesQ := `SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
		WHERE m.type = 'table' AND c.name = 'organization_id' ORDER BY m.name`
	refsQ := `SELECT m.name, f."table" FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`
	if db.engine == Postgres {
		tablesQ = `SELECT table_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND column_name = 'organization_id' ORDER BY table_name`
		refsQ = `SELECT cl.relname, rf.relname FROM pg_constraint c
			JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class rf ON rf.oid = c.confrelid
			JOIN pg_namespace n ON n.oid = cl.relnamespace
			WHERE c.contype = 'f' AND n.nspname = current_schema()`
	}
	var tables []string
	refs := map[string][]string{}
	err := readAll(ctx, db.read(), []query{
		{tablesQ, nil, func(r scanner) error {
			var t string
			err := r.Scan(&t)
			tables = append(tables, t)
			return err
		}},
		{refsQ, nil, func(r scanner) error {
			var from, to string
			err := r.Scan(&from, &to)
			refs[from] = append(refs[from], to)
			return err
		}},
	})
	return tables, refs, err
}

// childrenFirst orders tables so that a table comes before every table it
// references (self-references aside: one statement deletes both ends).
func childrenFirst(tables []string, refs map[string][]string) ([]string, error) {
	in := map[string]bool{}
	for _, t := range tables {
		in[t] = true
	}
	// waiting[t] counts the tables of the set that reference t and are not
	// placed yet: t is emptied only after them.
	waiting := map[string]int{}
	for _, t := range tables {
		for _, to := range refs[t] {
			if to != t && in[to] {
				waiting[to]++ // to must wait for t to be emptied first
			}
		}
	}
	var order []string
	placed := map[string]bool{}
	for len(order) < len(tables) {
		progressed := false
		for _, t := range tables {
			if placed[t] || waiting[t] > 0 {
				continue
			}
			placed[t], progressed = true, true
			order = append(order, t)
			for _, to := range refs[t] {
				if to != t && in[to] {
					waiting[to]--
				}
			}
		}
		if !progressed {
			var left []string
			for _, t := range tables {
				if !placed[t] {
					left = append(left, t)
				}
			}
			slices.Sort(left)
			return nil, fmt.Errorf("close house: foreign keys form a cycle among %v", left)
		}
	}
	return order, nil
}

// HouseRows counts a house's rows in every table with an organization_id
// column, and its own row under "organizations": all zero once the house is
// closed (tests and operators read it).
func (db *DB) HouseRows(ctx context.Context, house string) (map[string]int64, error) {
	tables, err := db.houseTables(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	var n int64
	if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM organizations WHERE id = ?`, house).Scan(&n); err != nil {
		return nil, err
	}
	out["organizations"] = n
	for _, t := range tables {
		if err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM `+t+` WHERE organization_id = ?`, house).Scan(&n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, nil
}

// userColumnsInSchema lists every column that names a user: a foreign key
// to users, or a name ending in user_id or author_id.
func (db *DB) userColumnsInSchema(ctx context.Context) ([][2]string, error) {
	q := `SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table'
		AND (c.name LIKE '%user_id' OR c.name = 'author_id'
			OR EXISTS (SELECT 1 FROM pragma_foreign_key_list(m.name) f WHERE f."from" = c.name AND f."table" = 'users'))
		ORDER BY m.name, c.name`
	if db.engine == Postgres {
		q = `SELECT table_name, column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND (column_name LIKE '%user_id' OR column_name = 'author_id')
			UNION
			SELECT cl.relname, a.attname FROM pg_constraint c
				JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class rf ON rf.oid = c.confrelid
				JOIN pg_namespace n ON n.oid = cl.relnamespace
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
				WHERE c.contype = 'f' AND rf.relname = 'users' AND n.nspname = current_schema()
			ORDER BY 1, 2`
	}
	var out [][2]string
	err := readAll(ctx, db.read(), []query{{q, nil, func(r scanner) error {
		var t, c string
		err := r.Scan(&t, &c)
		out = append(out, [2]string{t, c})
		return err
	}}})
	return out, err
}
