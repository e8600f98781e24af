package sqlstore

// The token ledger (DECISIONS §4, ARCHITECTURE "The ledger"). Tables are in
// migrations/00002_ledger.sql; the rules are in package ledger's doc.
//
// Exported methods each run one transaction. The enqueue (enqueue.go)
// composes the unexported *Tx building blocks inside its own transaction,
// so that holds and their job rows commit together or not at all.
//
// Every ledger write of a house first takes the house's lock (lockHouse), so
// the check-and-reserve of a hold cannot interleave with another ledger
// write of the same house on either engine.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"studio/internal/account"
	"studio/internal/errs"
	"studio/internal/ledger"
	"studio/internal/ts"
)

func init() { openHouseHooks = append(openHouseHooks, openLedger) }

// openLedger writes a new house's opening state inside the sign-up
// transaction: the trial plan and the sign-up grant, which expires with the
// trial (DECISIONS §4).
func openLedger(ctx context.Context, db *DB, tx *Tx, h account.House) error {
	start := h.CreatedAt
	if start.IsZero() {
		start = ts.Of(db.now())
	}
	end := ts.Of(start.Add(ledger.TrialLength))
	if _, err := tx.Exec(ctx, `INSERT INTO plans (organization_id, tier, status, period_start, renews_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, h.ID, ledger.TierTrial, ledger.Trialing, start.UnixMilli(), end.UnixMilli(),
		start.UnixMilli(), start.UnixMilli()); err != nil {
		return err
	}
	c := ledger.NewGrant(ledger.SignupTokens, ledger.SourceSignup, &end)
	c.CreatedAt = start
	return db.addCreditTx(ctx, tx, h.ID, c)
}

// lockHouse serialises the ledger writes of one house, and answers NOT_FOUND
// for a house that does not exist.
//
// Why a lock: taking a hold reads the house's live credits, checks their sum
// covers the request, and reserves tokens credit by credit. Two holds racing
// for the last tokens must not both read the same amounts.
//
//   - SQLite: every write transaction is BEGIN IMMEDIATE on the one writer
//     connection, so write transactions never overlap; the SELECT only checks
//     the house exists.
//   - PostgreSQL: SELECT ... FOR NO KEY UPDATE on the house row makes each
//     ledger write of the house wait until the one before it commits, so the
//     amounts read are the amounts written against. NO KEY UPDATE rather than
//     UPDATE: it does not block inserts elsewhere that merely reference the
//     house through a foreign key (those take KEY SHARE). The per-house event
//     counter (ARCHITECTURE, step 6) updates the same row and so takes the
//     same lock; a transaction that does both holds one lock, not two.
//
// The lock is per house: houses never wait for each other. The conditional
// updates below (available >= ?, state = 'pending') and the schema's CHECK
// constraints stay as a second line of defence; under the lock they never fire.
func (db *DB) lockHouse(ctx context.Context, tx *Tx, house string) error {
	if tx.locked == house {
		return nil
	}
	q := `SELECT id FROM organizations WHERE id = ?`
	if db.engine == Postgres {
		q += ` FOR NO KEY UPDATE`
	}
	var id string
	if err := tx.QueryRow(ctx, q, house).Scan(&id); err != nil {
		return notFound(err)
	}
	tx.locked = house
	return nil
}

// AddCredit adds a grant or a top-up to the house.
func (db *DB) AddCredit(ctx context.Context, house string, c ledger.Credit) error {
	return db.write(ctx, func(tx *Tx) error { return db.addCreditTx(ctx, tx, house, c) })
}

// CreditPersonalHouse adds a credit to the personal house the user founded
// and returns the house; NOT_FOUND when the user has none (or does not exist).
func (db *DB) CreditPersonalHouse(ctx context.Context, userID string, c ledger.Credit) (string, error) {
	var house string
	err := db.write(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `SELECT id FROM organizations WHERE founder_user_id = ? AND personal = 1
			ORDER BY created_at, id LIMIT 1`, userID).Scan(&house)
		if err != nil {
			return notFound(err)
		}
		return db.addCreditTx(ctx, tx, house, c)
	})
	return house, err
}

// addCreditTx adds a credit inside tx; a credit whose reference was already
// credited is ledger.ErrCreditExists.
func (db *DB) addCreditTx(ctx context.Context, tx *Tx, house string, c ledger.Credit) error {
	switch {
	case c.ID == "" || c.Tokens < 1:
		return fmt.Errorf("ledger: credit %q of %d tokens", c.ID, c.Tokens)
	case c.Kind != ledger.Grant && c.Kind != ledger.TopUp:
		return fmt.Errorf("ledger: credit kind %q", c.Kind)
	case c.Kind == ledger.TopUp && c.ExpiresAt != nil:
		return fmt.Errorf("ledger: a top-up never expires")
	}
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return err
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = ts.Of(db.now())
	}
	var expires sql.NullInt64
	if c.ExpiresAt != nil {
		expires = sql.NullInt64{Int64: c.ExpiresAt.UnixMilli(), Valid: true}
	}
	_, err := tx.Exec(ctx, `INSERT INTO ledger_credits (id, organization_id, kind, source, amount, available, expires_at,
		reference, reason, granted_by_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, house, c.Kind, c.Source, c.Tokens, c.Tokens, expires, nullStr(c.Reference), nullStr(c.Reason),
		nullStr(c.GrantedBy), created.UnixMilli())
	if errors.Is(err, errUnique) {
		return ledger.ErrCreditExists
	}
	return err
}

// The hot statements of the ledger, named so a test can hold their query
// plans to the live rows (ledger_plan_test.go): a house's spent history,
// which only grows, is never read to take, post or void a hold, or to read
// the balance.
const (
	// qLiveCredits lists live credits in spending order (house, now, house,
	// house). Live credits are read in three parts, each a range of the
	// partial index ledger_credits_live (house, kind, expires_at): grants
	// that expire after now, grants that never expire, top-ups (which never
	// expire). A grant that expired with tokens left stays in that index for
	// good (its rest counts as expired, never spent), so a single range over
	// the house (expires_at IS NULL OR expires_at > now) would read every
	// one of them.
	qLiveCredits = `SELECT id, available FROM (
			SELECT 0 AS part, expires_at, created_at, id, available FROM ledger_credits
				WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at > ?
			UNION ALL SELECT 1, expires_at, created_at, id, available FROM ledger_credits
				WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at IS NULL
			UNION ALL SELECT 2, expires_at, created_at, id, available FROM ledger_credits
				WHERE organization_id = ? AND kind = 'topup' AND available > 0 AND expires_at IS NULL) AS live
		ORDER BY part, expires_at, created_at, id`
	// qLiveSums sums the unreserved tokens of live credits by kind, in the
	// three parts of qLiveCredits (house, now, house, house).
	qLiveSums = `SELECT 'grant', CAST(COALESCE(SUM(available), 0) AS BIGINT) FROM ledger_credits
			WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at > ?
		UNION ALL SELECT 'grant', CAST(COALESCE(SUM(available), 0) AS BIGINT) FROM ledger_credits
			WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at IS NULL
		UNION ALL SELECT 'topup', CAST(COALESCE(SUM(available), 0) AS BIGINT) FROM ledger_credits
			WHERE organization_id = ? AND kind = 'topup' AND available > 0 AND expires_at IS NULL`
	// qLivePlanTokens sums the unreserved tokens of a house's live grants
	// of one source (house, now, house, house, source); a paid plan period
	// reads the plan's to cap its rollover. The grants are the two grant
	// ranges of qLiveCredits, for the same reason, and each one's source is
	// read by its key: source is not in the live credits' index, and a
	// filter on it let SQLite, with statistics from a young database,
	// prefer scanning the table.
	qLivePlanTokens = `SELECT CAST(COALESCE(SUM(available), 0) AS BIGINT) FROM (
			SELECT id, available FROM ledger_credits
				WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at > ?
			UNION ALL SELECT id, available FROM ledger_credits
				WHERE organization_id = ? AND kind = 'grant' AND available > 0 AND expires_at IS NULL) AS live
		WHERE (SELECT c.source FROM ledger_credits c WHERE c.organization_id = ? AND c.id = live.id) = ?`
	// qOpenHolds lists pending holds, newest first, each with the tokens it
	// reserved from grants and from top-ups (house). Both parts are scalar
	// subqueries on purpose: a planner cannot turn them into a join, so each
	// pending hold reads its own reservations by the hold's key and each
	// reservation its credit by the credit's key, whatever the statistics
	// say. As a join (holds, reservations, credits) PostgreSQL chose plans
	// by its row estimates: driving from all the house's credits and probing
	// every pending hold for each (fresh statistics), or scanning every
	// house's reservations (current ones); either grows with history.
	qOpenHolds = `SELECT h.job_id, h.tokens, h.created_at,
			(SELECT CAST(COALESCE(SUM(r.tokens), 0) AS BIGINT) FROM ledger_hold_credits r
				WHERE r.hold_id = h.id AND r.organization_id = h.organization_id
				AND (SELECT c.kind FROM ledger_credits c WHERE c.organization_id = r.organization_id AND c.id = r.credit_id) = 'grant'),
			(SELECT CAST(COALESCE(SUM(r.tokens), 0) AS BIGINT) FROM ledger_hold_credits r
				WHERE r.hold_id = h.id AND r.organization_id = h.organization_id
				AND (SELECT c.kind FROM ledger_credits c WHERE c.organization_id = r.organization_id AND c.id = r.credit_id) = 'topup')
		FROM ledger_holds h
		WHERE h.organization_id = ? AND h.state = 'pending' ORDER BY h.created_at DESC, h.id DESC`
	// qResolveHold moves a pending hold to posted or voided (state, now, house, hold).
	qResolveHold = `UPDATE ledger_holds SET state = ?, resolved_at = ?
		WHERE organization_id = ? AND id = ? AND state = 'pending'`
	// qPostDebits copies a hold's reservations into debits (now, house, hold).
	qPostDebits = `INSERT INTO ledger_debits (hold_id, credit_id, organization_id, tokens, created_at)
		SELECT hold_id, credit_id, organization_id, tokens, ? FROM ledger_hold_credits
		WHERE organization_id = ? AND hold_id = ?`
	// qReservations lists what a hold reserved, credit by credit, and
	// whether each credit was revoked (house, hold). A void then moves each
	// reservation by key (qVoidReturn, qVoidRevoked): as one UPDATE ... WHERE
	// id IN (the hold's credits), PostgreSQL turned the IN into a join that
	// could drive from all the house's credits.
	qReservations = `SELECT r.credit_id, r.tokens, CASE WHEN EXISTS (SELECT 1 FROM ledger_revocations v
			WHERE v.organization_id = r.organization_id AND v.credit_id = r.credit_id AND v.hold_id IS NULL) THEN 1 ELSE 0 END
		FROM ledger_hold_credits r WHERE r.organization_id = ? AND r.hold_id = ?`
	// qVoidReturn gives a voided hold's reservation back to its credit
	// (tokens, house, credit).
	qVoidReturn = `UPDATE ledger_credits SET available = available + ? WHERE organization_id = ? AND id = ?`
	// qVoidRevoked gives a voided hold's reservation on a revoked credit to
	// the credit's revocation, never back to the house (house, credit, hold,
	// tokens, now).
	qVoidRevoked = `INSERT INTO ledger_revocations (organization_id, credit_id, hold_id, tokens, created_at)
		VALUES (?, ?, ?, ?, ?)`
	// qPendingOnCredit sums what pending holds reserved on one credit
	// (credit, house): each pending hold's reservation is read by key, as
	// in qOpenHolds.
	qPendingOnCredit = `SELECT CAST(COALESCE(SUM((SELECT r.tokens FROM ledger_hold_credits r
			WHERE r.hold_id = h.id AND r.credit_id = ? AND r.organization_id = h.organization_id)), 0) AS BIGINT)
		FROM ledger_holds h WHERE h.organization_id = ? AND h.state = 'pending'`
)

// liveCredit is a credit a hold may draw on, in spending order.
type liveCredit struct {
	id        string
	available int64
	reserved  int64 // by the holds being taken
}

// liveCreditsTx lists the house's unexpired credits with unreserved tokens in
// spending order: grants before top-ups; among grants the soonest expiry
// first and a grant that never expires last; then oldest first.
func (db *DB) liveCreditsTx(ctx context.Context, tx *Tx, house string, now int64) ([]liveCredit, error) {
	rows, err := tx.Query(ctx, qLiveCredits, house, now, house, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []liveCredit
	for rows.Next() {
		var c liveCredit
		if err := rows.Scan(&c.id, &c.available); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// TakeHold reserves tokens for one hold; see takeHoldsTx.
func (db *DB) TakeHold(ctx context.Context, house string, h ledger.Hold) error {
	return db.TakeHolds(ctx, house, []ledger.Hold{h})
}

// TakeHolds reserves tokens for every hold or for none (multi-frame
// requests); see takeHoldsTx.
func (db *DB) TakeHolds(ctx context.Context, house string, hs []ledger.Hold) error {
	return db.write(ctx, func(tx *Tx) error { return db.takeHoldsTx(ctx, tx, house, hs) })
}

// takeHoldsTx writes the holds as pending and reserves their tokens from
// the house's live credits in spending order, all or nothing. When the
// spendable balance is below the sum of the holds it writes nothing and
// answers ledger.ErrInsufficientTokens with need (the sum) and spendable.
// A second hold for a job, or a reused hold id, is ledger.ErrHoldExists;
// as with any failed statement, the caller's transaction must then be
// rolled back (PostgreSQL refuses further statements in it).
func (db *DB) takeHoldsTx(ctx context.Context, tx *Tx, house string, hs []ledger.Hold) error {
	if len(hs) == 0 {
		return nil
	}
	var need int64
	for _, h := range hs {
		if h.ID == "" || h.Tokens < 1 || need+h.Tokens < need {
			return fmt.Errorf("ledger: hold %q of %d tokens", h.ID, h.Tokens)
		}
		need += h.Tokens
	}
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return err
	}
	now := db.nowMs()
	credits, err := db.liveCreditsTx(ctx, tx, house, now)
	if err != nil {
		return err
	}
	var spendable int64
	for _, c := range credits {
		spendable += c.available
	}
	if need > spendable {
		held, err := heldTx(ctx, tx, house)
		if err != nil {
			return err
		}
		return ledger.Insufficient(need, spendable, held)
	}
	next := 0 // the first credit with tokens left
	for _, h := range hs {
		created := now
		if !h.CreatedAt.IsZero() {
			created = h.CreatedAt.UnixMilli()
		}
		var holder sql.NullString
		var expires sql.NullInt64
		if h.JobID == "" { // a call's hold: its process and its deadline (hold_owners.go)
			holder = nullStr(db.holder)
			expires = sql.NullInt64{Int64: created + ledger.CallHold.Milliseconds(), Valid: true}
			if !h.Until.IsZero() {
				expires.Int64 = h.Until.UnixMilli()
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO ledger_holds (id, organization_id, job_id, tokens, state, user_id, workflow, created_at,
			holder, expires_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`, h.ID, house, nullStr(h.JobID), h.Tokens, nullStr(h.UserID),
			h.Workflow, created, holder, expires)
		if errors.Is(err, errUnique) {
			return errs.Wrap(ledger.ErrHoldExists, err)
		}
		if err != nil {
			return err
		}
		for left := h.Tokens; left > 0; {
			if next == len(credits) {
				return fmt.Errorf("ledger: house %s ran out of credits while reserving %d covered tokens", house, need)
			}
			c := &credits[next]
			n := min(left, c.available-c.reserved)
			if _, err := tx.Exec(ctx, `INSERT INTO ledger_hold_credits (hold_id, credit_id, organization_id, tokens)
				VALUES (?, ?, ?, ?)`, h.ID, c.id, house, n); err != nil {
				return err
			}
			c.reserved += n
			left -= n
			if c.reserved == c.available {
				next++
			}
		}
	}
	for _, c := range credits {
		if c.reserved == 0 {
			continue
		}
		res, err := tx.Exec(ctx, `UPDATE ledger_credits SET available = available - ?
			WHERE organization_id = ? AND id = ? AND available >= ?`, c.reserved, house, c.id, c.reserved)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("ledger: credit %s of house %s changed under the house lock (%d rows, %v)", c.id, house, n, err)
		}
	}
	return nil
}

// PostHold settles a pending hold: the tokens it reserved are debited from
// the credits it reserved them on. See resolveHoldTx for a hold that is
// already resolved.
func (db *DB) PostHold(ctx context.Context, house, holdID string) error {
	return db.write(ctx, func(tx *Tx) error { return db.postHoldTx(ctx, tx, house, holdID) })
}

// VoidHold releases a pending hold: the tokens it reserved return to their
// credits. See resolveHoldTx for a hold that is already resolved.
func (db *DB) VoidHold(ctx context.Context, house, holdID string) error {
	return db.write(ctx, func(tx *Tx) error { return db.voidHoldTx(ctx, tx, house, holdID) })
}

// postHoldTx posts the hold inside tx; see resolveHoldTx.
func (db *DB) postHoldTx(ctx context.Context, tx *Tx, house, holdID string) error {
	return db.resolveHoldTx(ctx, tx, house, holdID, ledger.Posted)
}

// voidHoldTx voids the hold inside tx; see resolveHoldTx.
func (db *DB) voidHoldTx(ctx context.Context, tx *Tx, house, holdID string) error {
	return db.resolveHoldTx(ctx, tx, house, holdID, ledger.Voided)
}

// resolveHoldTx moves a pending hold to posted or voided, exactly once. The
// move is a conditional update (state = 'pending'), so of two racing
// resolutions one wins; the other, and any later one, changes nothing and
// answers ledger.ErrHoldResolved carrying "state", the resolution that won.
// That answer leaves tx usable. A hold the house does not have is NOT_FOUND.
func (db *DB) resolveHoldTx(ctx context.Context, tx *Tx, house, holdID string, to ledger.HoldState) error {
	if to != ledger.Posted && to != ledger.Voided {
		return fmt.Errorf("ledger: resolve a hold to %q", to)
	}
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return err
	}
	now := db.nowMs()
	res, err := tx.Exec(ctx, qResolveHold, to, now, house, holdID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		var state string
		if err := tx.QueryRow(ctx, `SELECT state FROM ledger_holds WHERE organization_id = ? AND id = ?`,
			house, holdID).Scan(&state); err != nil {
			return notFound(err)
		}
		return errs.With(ledger.ErrHoldResolved, "state", state)
	}
	if to == ledger.Posted {
		if _, err = tx.Exec(ctx, qPostDebits, now, house, holdID); err != nil {
			return err
		}
		return db.autochargeAfterPostTx(ctx, tx, house, now)
	}
	return voidReservationsTx(ctx, tx, house, holdID, now)
}

// voidReservationsTx gives a voided hold's reservations back to their
// credits, but a revoked credit's to its revocation.
func voidReservationsTx(ctx context.Context, tx *Tx, house, holdID string, now int64) error {
	type reservation struct {
		credit  string
		tokens  int64
		revoked bool
	}
	rows, err := tx.Query(ctx, qReservations, house, holdID)
	if err != nil {
		return err
	}
	var rs []reservation
	for rows.Next() {
		var r reservation
		var revoked int
		if err := rows.Scan(&r.credit, &r.tokens, &revoked); err != nil {
			rows.Close()
			return err
		}
		r.revoked = revoked == 1
		rs = append(rs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range rs {
		if r.revoked {
			if _, err := tx.Exec(ctx, qVoidRevoked, house, r.credit, holdID, r.tokens, now); err != nil {
				return err
			}
			continue
		}
		res, err := tx.Exec(ctx, qVoidReturn, r.tokens, house, r.credit)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("ledger: credit %s of house %s: a void returned to %d rows (%v)", r.credit, house, n, err)
		}
	}
	return nil
}

// revokeCreditTx takes back what is left of a credit, once (DECISIONS §4
// as extended by issue 16): its unreserved tokens now, in a ledger row of
// their own, and what pending holds reserved on it when each of them is
// voided (resolveHoldTx); a hold posted later spent its part. The credit's
// row keeps its amount; its available drops to 0 and never grows again.
// It answers the tokens taken now and those pending holds still reserve,
// and already=true (writing nothing) when the credit was revoked before.
func (db *DB) revokeCreditTx(ctx context.Context, tx *Tx, house, creditID string, now int64) (taken, pending int64, already bool, err error) {
	if err := db.lockHouse(ctx, tx, house); err != nil {
		return 0, 0, false, err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM ledger_revocations WHERE organization_id = ? AND credit_id = ? AND hold_id IS NULL`,
		house, creditID).Scan(&n); err != nil {
		return 0, 0, false, err
	}
	if n > 0 {
		return 0, 0, true, nil
	}
	if err := tx.QueryRow(ctx, `SELECT available FROM ledger_credits WHERE organization_id = ? AND id = ?`,
		house, creditID).Scan(&taken); err != nil {
		return 0, 0, false, notFound(err)
	}
	if err := tx.QueryRow(ctx, qPendingOnCredit, creditID, house).Scan(&pending); err != nil {
		return 0, 0, false, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO ledger_revocations (organization_id, credit_id, hold_id, tokens, created_at)
		VALUES (?, ?, NULL, ?, ?)`, house, creditID, taken, now); err != nil {
		return 0, 0, false, err
	}
	res, err := tx.Exec(ctx, `UPDATE ledger_credits SET available = 0 WHERE organization_id = ? AND id = ? AND available = ?`,
		house, creditID, taken)
	if err != nil {
		return 0, 0, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, 0, false, fmt.Errorf("ledger: credit %s of house %s changed under the house lock (%d rows, %v)", creditID, house, n, err)
	}
	return taken, pending, false, nil
}

const holdCols = `id, job_id, tokens, state, user_id, workflow, created_at, resolved_at`

func scanHold(row interface{ Scan(...any) error }) (ledger.Hold, error) {
	var h ledger.Hold
	var job, user sql.NullString
	var created int64
	var resolved sql.NullInt64
	if err := row.Scan(&h.ID, &job, &h.Tokens, &h.State, &user, &h.Workflow, &created, &resolved); err != nil {
		return ledger.Hold{}, notFound(err)
	}
	h.JobID, h.UserID = job.String, user.String
	h.CreatedAt = ts.Milli(created)
	h.ResolvedAt = tsPtr(resolved)
	return h, nil
}

// Hold returns one hold of the house.
func (db *DB) Hold(ctx context.Context, house, holdID string) (ledger.Hold, error) {
	return scanHold(db.read().QueryRow(ctx, `SELECT `+holdCols+` FROM ledger_holds WHERE organization_id = ? AND id = ?`,
		house, holdID))
}

// JobHold returns the hold of a job of the house.
func (db *DB) JobHold(ctx context.Context, house, jobID string) (ledger.Hold, error) {
	return db.jobHoldTx(ctx, db.read(), house, jobID)
}

// jobHoldTx returns the hold of a job inside tx.
func (db *DB) jobHoldTx(ctx context.Context, tx *Tx, house, jobID string) (ledger.Hold, error) {
	return scanHold(tx.QueryRow(ctx, `SELECT `+holdCols+` FROM ledger_holds WHERE organization_id = ? AND job_id = ?`,
		house, jobID))
}

// snapshotRead runs fn in a read-only transaction on the read pool, so that
// its statements see one committed state: REPEATABLE READ on PostgreSQL, a
// deferred read transaction (one WAL snapshot) on SQLite.
func (db *DB) snapshotRead(ctx context.Context, fn func(*Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.engine == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	sqlTx, err := db.r.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin read: %w", translate(err))
	}
	defer func() { _ = sqlTx.Rollback() }()
	return fn(&Tx{db: db, q: sqlTx})
}

// Balance derives the house's balance parts and lists its open holds,
// newest first, from one consistent snapshot.
func (db *DB) Balance(ctx context.Context, house string) (ledger.Balance, error) {
	var b ledger.Balance
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		var err error
		b, err = db.balanceTx(ctx, tx, house, db.nowMs())
		return err
	})
	return b, err
}

// sumByKind runs a query of (kind, sum) rows.
func sumByKind(ctx context.Context, tx *Tx, q string, args ...any) (grant, topup int64, err error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind ledger.CreditKind
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			return 0, 0, err
		}
		switch kind {
		case ledger.Grant:
			grant += n
		case ledger.TopUp:
			topup += n
		}
	}
	return grant, topup, rows.Err()
}

// balanceTx derives the balance at instant now (Unix ms):
//
//	grant   = unreserved tokens of unexpired grants + tokens pending holds reserved from grants
//	topup   = unreserved tokens of top-ups          + tokens pending holds reserved from top-ups
//	held    = the sum of pending holds
//	balance = grant + topup - held = the unreserved tokens of live credits
//
// Tokens a pending hold reserved stay in their part even when their grant
// expires meanwhile, so held never exceeds grant + topup and balance >= 0.
func (db *DB) balanceTx(ctx context.Context, tx *Tx, house string, now int64) (ledger.Balance, error) {
	liveGrant, liveTopup, err := sumByKind(ctx, tx, qLiveSums, house, now, house, house)
	if err != nil {
		return ledger.Balance{}, err
	}
	var heldGrant, heldTopup int64
	rows, err := tx.Query(ctx, qOpenHolds, house)
	if err != nil {
		return ledger.Balance{}, err
	}
	defer rows.Close()
	b := ledger.Balance{Holds: []ledger.HeldTokens{}}
	for rows.Next() {
		var h ledger.HeldTokens
		var job sql.NullString
		var created, grant, topup int64
		if err := rows.Scan(&job, &h.Tokens, &created, &grant, &topup); err != nil {
			return ledger.Balance{}, err
		}
		if grant+topup != h.Tokens {
			return ledger.Balance{}, fmt.Errorf("ledger: house %s: a hold of %d tokens reserved %d", house, h.Tokens, grant+topup)
		}
		heldGrant += grant
		heldTopup += topup
		if job.Valid {
			h.JobID = &job.String
		}
		h.CreatedAt = ts.Milli(created)
		b.Held += h.Tokens
		b.Holds = append(b.Holds, h)
	}
	if err := rows.Err(); err != nil {
		return ledger.Balance{}, err
	}
	b.Grant, b.Topup = liveGrant+heldGrant, liveTopup+heldTopup
	b.Balance = liveGrant + liveTopup
	if b.Balance < 0 {
		return ledger.Balance{}, fmt.Errorf("ledger: house %s: a negative balance of %d", house, b.Balance)
	}
	return b, nil
}

// Spendable is what a hold could take from the house now: its live grants
// and top-ups, less nothing (open holds already took theirs).
func (db *DB) Spendable(ctx context.Context, house string) (int64, error) {
	g, t, err := sumByKind(ctx, db.read(), qLiveSums, house, db.nowMs(), house, house)
	return g + t, err
}

// Held is what the house's open (pending) holds reserve now.
func (db *DB) Held(ctx context.Context, house string) (int64, error) {
	return heldTx(ctx, db.read(), house)
}

// heldTx sums the house's pending holds: read only to tell a refused
// request what the house already holds, never to take a hold.
func heldTx(ctx context.Context, tx *Tx, house string) (int64, error) {
	var held int64
	err := tx.QueryRow(ctx, `SELECT CAST(COALESCE(SUM(tokens), 0) AS BIGINT) FROM ledger_holds
		WHERE organization_id = ? AND state = 'pending'`, house).Scan(&held)
	return held, err
}

// Plan returns the house's plan.
func (db *DB) Plan(ctx context.Context, house string) (ledger.Plan, error) {
	var p ledger.Plan
	var start int64
	var renews, ends sql.NullInt64
	var provider, sub sql.NullString
	err := db.read().QueryRow(ctx, `SELECT tier, status, period_start, renews_at, ends_at, provider, subscription_id
		FROM plans WHERE organization_id = ?`,
		house).Scan(&p.Tier, &p.Status, &start, &renews, &ends, &provider, &sub)
	if err != nil {
		return ledger.Plan{}, notFound(err)
	}
	p.PeriodStart, p.RenewsAt, p.EndsAt = ts.Milli(start), tsPtr(renews), tsPtr(ends)
	p.Provider, p.SubscriptionID = provider.String, sub.String
	return p, nil
}
