package sqlstore

// The ledger's audit: every invariant of a house's token account recomputed
// from its rows (ledger.go writes them).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"

	"studio/internal/ledger"
)

// CheckLedger recomputes the house's ledger from its rows, in one snapshot,
// and reports every invariant that does not hold (nil when all do):
//
//   - each credit: amount = available + reserved by pending holds + debited
//   - revoked, and 0 <= available <= amount; a top-up never expires; a
//     revoked credit has nothing available, and each later revocation row
//     names a voided hold and exactly what it had reserved on the credit;
//   - each hold: its reservations sum to its tokens; a pending or voided hold
//     has no debits; a posted hold's debits are exactly its reservations, so
//     it debited exactly its amount; resolved_at is set iff it is resolved;
//     a job has at most one hold;
//   - held = the sum of pending holds; balance = grant + topup - held >= 0,
//     and Balance (the SQL path) answers the same parts;
//   - conservation: the tokens ever credited = balance + held + debited +
//     revoked + the unreserved remainder of expired grants.
//
// Tests run it after every step; an operator may run it on a live house.
func (db *DB) CheckLedger(ctx context.Context, house string) error {
	_, err := db.auditLedger(ctx, house)
	return err
}

// ledgerAudit is what an audit read: the balance as Balance answers it and
// each credit's unreserved tokens.
type ledgerAudit struct {
	balance   ledger.Balance
	available map[string]int64 // credit id -> unreserved tokens
	revoked   map[string]int64 // revoked credit id -> tokens taken back from it
}

// auditLedger runs CheckLedger's audit and returns what it read.
func (db *DB) auditLedger(ctx context.Context, house string) (ledgerAudit, error) {
	var a ledgerAudit
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		var err error
		a, err = db.checkLedgerTx(ctx, tx, house, db.nowMs())
		return err
	})
	return a, err
}

func (db *DB) checkLedgerTx(ctx context.Context, tx *Tx, house string, now int64) (ledgerAudit, error) {
	type credit struct {
		kind                            ledger.CreditKind
		amount, available               int64
		expires                         sql.NullInt64
		reservedPending, reservedPosted int64
		debited                         int64
		revoked                         int64
		isRevoked                       bool
	}
	type hold struct {
		job      sql.NullString
		tokens   int64
		state    ledger.HoldState
		resolved sql.NullInt64
		reserved map[string]int64 // credit -> tokens
		debits   map[string]int64
	}
	credits := map[string]*credit{}
	holds := map[string]*hold{}
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }

	each := func(q string, scan func(*sql.Rows) error) error {
		rows, err := tx.Query(ctx, q, house)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	err := each(`SELECT id, kind, amount, available, expires_at FROM ledger_credits WHERE organization_id = ?`, func(r *sql.Rows) error {
		var id string
		c := &credit{}
		if err := r.Scan(&id, &c.kind, &c.amount, &c.available, &c.expires); err != nil {
			return err
		}
		credits[id] = c
		return nil
	})
	if err != nil {
		return ledgerAudit{}, err
	}
	err = each(`SELECT id, job_id, tokens, state, resolved_at FROM ledger_holds WHERE organization_id = ?`, func(r *sql.Rows) error {
		var id string
		h := &hold{reserved: map[string]int64{}, debits: map[string]int64{}}
		if err := r.Scan(&id, &h.job, &h.tokens, &h.state, &h.resolved); err != nil {
			return err
		}
		holds[id] = h
		return nil
	})
	if err != nil {
		return ledgerAudit{}, err
	}
	err = each(`SELECT r.hold_id, r.credit_id, r.tokens FROM ledger_holds h
		JOIN ledger_hold_credits r ON r.hold_id = h.id AND r.organization_id = h.organization_id
		WHERE h.organization_id = ?`, func(r *sql.Rows) error {
		var holdID, creditID string
		var n int64
		if err := r.Scan(&holdID, &creditID, &n); err != nil {
			return err
		}
		h, c := holds[holdID], credits[creditID]
		if h == nil || c == nil {
			bad("reservation %s/%s names a hold or credit the house does not have", holdID, creditID)
			return nil
		}
		h.reserved[creditID] += n
		switch h.state {
		case ledger.Pending:
			c.reservedPending += n
		case ledger.Posted:
			c.reservedPosted += n
		}
		return nil
	})
	if err != nil {
		return ledgerAudit{}, err
	}
	var debited int64
	err = each(`SELECT hold_id, credit_id, tokens FROM ledger_debits WHERE organization_id = ?`, func(r *sql.Rows) error {
		var holdID, creditID string
		var n int64
		if err := r.Scan(&holdID, &creditID, &n); err != nil {
			return err
		}
		h, c := holds[holdID], credits[creditID]
		if h == nil || c == nil {
			bad("debit %s/%s names a hold or credit the house does not have", holdID, creditID)
			return nil
		}
		h.debits[creditID] += n
		c.debited += n
		debited += n
		return nil
	})
	if err != nil {
		return ledgerAudit{}, err
	}

	var revoked int64
	type later struct {
		hold, credit string
		tokens       int64
	}
	var laters []later
	err = each(`SELECT credit_id, hold_id, tokens FROM ledger_revocations WHERE organization_id = ?`, func(r *sql.Rows) error {
		var creditID string
		var holdID sql.NullString
		var n int64
		if err := r.Scan(&creditID, &holdID, &n); err != nil {
			return err
		}
		c := credits[creditID]
		if c == nil {
			bad("revocation of %s names a credit the house does not have", creditID)
			return nil
		}
		c.revoked += n
		revoked += n
		if holdID.Valid {
			laters = append(laters, later{holdID.String, creditID, n})
		} else {
			c.isRevoked = true
		}
		return nil
	})
	if err != nil {
		return ledgerAudit{}, err
	}
	for _, l := range laters {
		h, c := holds[l.hold], credits[l.credit]
		switch {
		case h == nil:
			bad("revocation of %s names a hold %s the house does not have", l.credit, l.hold)
		case !c.isRevoked:
			bad("credit %s: a void's tokens were taken back, but the credit is not revoked", l.credit)
		case h.state != ledger.Voided || h.reserved[l.credit] != l.tokens:
			bad("credit %s: hold %s (%s, reserved %d) gave %d to the revocation", l.credit, l.hold, h.state, h.reserved[l.credit], l.tokens)
		}
	}

	var credited, liveGrant, liveTopup, expiredRest, held, heldGrant, heldTopup int64
	for id, c := range credits {
		credited += c.amount
		if c.available < 0 || c.available > c.amount {
			bad("credit %s: available %d outside [0, %d]", id, c.available, c.amount)
		}
		if c.amount != c.available+c.reservedPending+c.debited+c.revoked {
			bad("credit %s: amount %d != available %d + reserved %d + debited %d + revoked %d", id, c.amount, c.available,
				c.reservedPending, c.debited, c.revoked)
		}
		if c.isRevoked && c.available != 0 {
			bad("credit %s: revoked with %d available", id, c.available)
		}
		if c.debited != c.reservedPosted {
			bad("credit %s: debited %d != reserved by posted holds %d", id, c.debited, c.reservedPosted)
		}
		if c.kind == ledger.TopUp && c.expires.Valid {
			bad("credit %s: a top-up with an expiry", id)
		}
		live := !c.expires.Valid || c.expires.Int64 > now
		switch {
		case !live:
			expiredRest += c.available
		case c.kind == ledger.Grant:
			liveGrant += c.available
		default:
			liveTopup += c.available
		}
	}
	jobs := map[string]string{}
	pending := 0
	for id, h := range holds {
		var reserved int64
		for creditID, n := range h.reserved {
			reserved += n
			if h.state == ledger.Pending {
				if credits[creditID].kind == ledger.Grant {
					heldGrant += n
				} else {
					heldTopup += n
				}
			}
		}
		if reserved != h.tokens {
			bad("hold %s: reserved %d != tokens %d", id, reserved, h.tokens)
		}
		if (h.state == ledger.Pending) == h.resolved.Valid {
			bad("hold %s: state %s with resolved_at %v", id, h.state, h.resolved)
		}
		switch h.state {
		case ledger.Pending:
			held += h.tokens
			pending++
			if len(h.debits) > 0 {
				bad("hold %s: pending with debits", id)
			}
		case ledger.Voided:
			if len(h.debits) > 0 {
				bad("hold %s: voided with debits", id)
			}
		case ledger.Posted:
			if !maps.Equal(h.debits, h.reserved) {
				bad("hold %s: posted debits %v != reservations %v", id, h.debits, h.reserved)
			}
		default:
			bad("hold %s: state %q", id, h.state)
		}
		if h.job.Valid {
			if other, dup := jobs[h.job.String]; dup {
				bad("job %s has two holds: %s and %s", h.job.String, other, id)
			}
			jobs[h.job.String] = id
		}
	}
	want := ledger.Balance{Balance: liveGrant + liveTopup, Grant: liveGrant + heldGrant, Topup: liveTopup + heldTopup, Held: held}
	if want.Balance < 0 || want.Balance != want.Grant+want.Topup-want.Held {
		bad("balance %d != grant %d + topup %d - held %d (or negative)", want.Balance, want.Grant, want.Topup, want.Held)
	}
	if credited != want.Balance+held+debited+revoked+expiredRest {
		bad("credited %d != balance %d + held %d + debited %d + revoked %d + expired %d", credited, want.Balance, held, debited,
			revoked, expiredRest)
	}
	got, err := db.balanceTx(ctx, tx, house, now)
	if err != nil {
		return ledgerAudit{}, err
	}
	var listed int64
	for _, h := range got.Holds {
		listed += h.Tokens
	}
	if got.Balance != want.Balance || got.Grant != want.Grant || got.Topup != want.Topup || got.Held != want.Held ||
		listed != held || len(got.Holds) != pending {
		bad("Balance answers %+v; the rows say %+v", got, want)
	}
	audit := ledgerAudit{balance: got, available: make(map[string]int64, len(credits)), revoked: map[string]int64{}}
	for id, c := range credits {
		audit.available[id] = c.available
		if c.isRevoked {
			audit.revoked[id] = c.revoked
		}
	}
	if len(problems) > 0 {
		return audit, fmt.Errorf("ledger of house %s: %w", house, errors.Join(problems...))
	}
	return audit, nil
}
