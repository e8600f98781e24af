package sqlstore

// The account view's ledger reads, avatars, and a user's export.

import (
	"context"
	"database/sql"

	"studio/internal/account"
	"studio/internal/ledger"
	"studio/internal/ts"
)

// Spend sums the house's holds posted at or after since, by workflow, most
// tokens first. A posted hold debited exactly its tokens.
func (db *DB) Spend(ctx context.Context, house string, since int64) ([]account.WorkflowSpend, error) {
	rows, err := db.read().Query(ctx, `SELECT workflow, SUM(tokens), COUNT(*), MAX(resolved_at) FROM ledger_holds
		WHERE organization_id = ? AND state = 'posted' AND resolved_at >= ?
		GROUP BY workflow ORDER BY SUM(tokens) DESC, workflow`, house, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.WorkflowSpend{}
	for rows.Next() {
		var w account.WorkflowSpend
		var last int64
		if err := rows.Scan(&w.Workflow, &w.Tokens, &w.Runs, &last); err != nil {
			return nil, err
		}
		if w.Workflow == "" {
			w.Workflow = "other"
		}
		w.LastAt = ts.Milli(last)
		out = append(out, w)
	}
	return out, rows.Err()
}

// CreditHistory lists the house's credits, newest first.
func (db *DB) CreditHistory(ctx context.Context, house string, limit int) ([]ledger.Credit, error) {
	rows, err := db.read().Query(ctx, `SELECT c.id, c.kind, c.source, c.amount, c.expires_at, c.reference, c.reason, c.created_at,
		(SELECT e.amount_cents FROM entitlements e WHERE e.organization_id = c.organization_id AND e.credit_id = c.id),
		(SELECT v.revoked_at FROM entitlement_revocations v WHERE v.organization_id = c.organization_id AND v.credit_id = c.id)
		FROM ledger_credits c WHERE c.organization_id = ? ORDER BY c.created_at DESC, c.id DESC LIMIT ?`, house, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ledger.Credit{}
	for rows.Next() {
		var c ledger.Credit
		var exp sql.NullInt64
		var ref, reason sql.NullString
		var created int64
		var paid, revoked sql.NullInt64
		if err := rows.Scan(&c.ID, &c.Kind, &c.Source, &c.Tokens, &exp, &ref, &reason, &created, &paid, &revoked); err != nil {
			return nil, err
		}
		c.ExpiresAt, c.Reference, c.Reason, c.CreatedAt = tsPtr(exp), ref.String, reason.String, ts.Milli(created)
		c.RevokedAt = tsPtr(revoked)
		if paid.Valid {
			c.PaidCents = &paid.Int64
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Purchases lists the house's paid model orders that gave it a face,
// newest first (a face another house took first is not the house's).
func (db *DB) Purchases(ctx context.Context, house string, limit int) ([]account.Purchase, error) {
	rows, err := db.read().Query(ctx, `SELECT e.id, e.created_at, COALESCE(f.name, ''), e.amount_cents, e.provider, e.order_id,
		(SELECT v.revoked_at FROM entitlement_revocations v WHERE v.organization_id = e.organization_id AND v.entitlement_id = e.id)
		FROM entitlements e LEFT JOIN casting_faces f ON f.id = e.face_id
		WHERE e.organization_id = ? AND e.kind = 'model' AND e.claim IN ('purchase', 'exclusive')
		ORDER BY e.created_at DESC, e.id DESC LIMIT ?`, house, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []account.Purchase{}
	for rows.Next() {
		var b account.Purchase
		var at int64
		var provider, order string
		var revoked sql.NullInt64
		if err := rows.Scan(&b.ID, &at, &b.Item, &b.AmountCents, &provider, &order, &revoked); err != nil {
			return nil, err
		}
		b.RevokedAt = tsPtr(revoked)
		b.At, b.Item, b.Reference = ts.Milli(at), "Model "+b.Item, provider+":"+order
		out = append(out, b)
	}
	return out, rows.Err()
}

// CardOnFile reports whether the house is a customer of a payment
// provider (it paid through one, which keeps its payment method).
func (db *DB) CardOnFile(ctx context.Context, house string) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM billing_customers WHERE organization_id = ?`, house).Scan(&n)
	return n > 0, err
}

// BillingEmail is where the house's billing letters go: the address an
// owner set, else the first owner's.
func (db *DB) BillingEmail(ctx context.Context, house string) (string, error) {
	var email string
	var nullEmail sql.NullString
	err := db.read().QueryRow(ctx, `SELECT COALESCE((SELECT email FROM billing_settings WHERE organization_id = ?),
		(SELECT u.email FROM seats s JOIN users u ON u.id = s.user_id
		WHERE s.organization_id = ? AND s.role = 'owner' ORDER BY s.created_at, u.id LIMIT 1))`, house, house).Scan(&nullEmail)
	email = nullEmail.String
	if err == nil && !nullEmail.Valid {
		err = sql.ErrNoRows
	}
	return email, notFound(err)
}

// SetAvatar records a user's picture path and type ("" clears both).
func (db *DB) SetAvatar(ctx context.Context, userID, path, mime string) error {
	_, err := db.writer().Exec(ctx, `UPDATE users SET image = ?, avatar_mime = ? WHERE id = ?`, nullStr(path), nullStr(mime), userID)
	return err
}

// Avatar returns the type of a user's picture; NOT_FOUND without one.
func (db *DB) Avatar(ctx context.Context, userID string) (string, error) {
	var mime sql.NullString
	err := db.read().QueryRow(ctx, `SELECT avatar_mime FROM users WHERE id = ?`, userID).Scan(&mime)
	if err == nil && !mime.Valid {
		err = sql.ErrNoRows
	}
	return mime.String, notFound(err)
}

// SharesHouse reports whether two users hold seats in a common house.
func (db *DB) SharesHouse(ctx context.Context, a, b string) (bool, error) {
	var n int
	err := db.read().QueryRow(ctx, `SELECT COUNT(*) FROM seats x JOIN seats y ON y.organization_id = x.organization_id
		WHERE x.user_id = ? AND y.user_id = ?`, a, b).Scan(&n)
	return n > 0, err
}

// ExportUser reads the user's own rows, in one snapshot.
func (db *DB) ExportUser(ctx context.Context, userID, email string) (account.Export, error) {
	x := account.Export{Seats: []account.ExportSeat{}, Sessions: []account.ExportSession{}, Keys: []account.ExportKey{},
		Memories: []account.ExportMemory{}, Invitations: []account.ExportInvitation{}, InvitationsSent: []account.ExportSentOffer{},
		Emails: []account.ExportEmail{}}
	err := db.snapshotRead(ctx, func(tx *Tx) error {
		return readAll(ctx, tx, []query{
			{`SELECT s.organization_id, o.name, s.role, CASE WHEN o.founder_user_id = s.user_id AND o.personal = 1 THEN 1 ELSE 0 END, s.created_at
				FROM seats s JOIN organizations o ON o.id = s.organization_id WHERE s.user_id = ? ORDER BY s.created_at, o.id`,
				[]any{userID}, func(r scanner) error {
					var v account.ExportSeat
					var at int64
					err := r.Scan(&v.OrganizationID, &v.OrganizationName, &v.Role, &v.Founder, &at)
					v.Since = ts.Milli(at)
					x.Seats = append(x.Seats, v)
					return err
				}},
			{`SELECT id, active_organization_id, created_at, expires_at FROM sessions WHERE user_id = ? ORDER BY created_at, id`,
				[]any{userID}, func(r scanner) error {
					var v account.ExportSession
					var c, e int64
					err := r.Scan(&v.ID, &v.ActiveOrganizationID, &c, &e)
					v.CreatedAt, v.ExpiresAt = ts.Milli(c), ts.Milli(e)
					x.Sessions = append(x.Sessions, v)
					return err
				}},
			{`SELECT id, organization_id, name, role, prefix, last_used_at, revoked_at, created_at FROM api_keys
				WHERE user_id = ? ORDER BY created_at, id`, []any{userID}, func(r scanner) error {
				var v account.ExportKey
				var used, rev sql.NullInt64
				var c int64
				err := r.Scan(&v.ID, &v.OrganizationID, &v.Name, &v.Role, &v.Prefix, &used, &rev, &c)
				v.LastUsedAt, v.RevokedAt, v.CreatedAt = tsPtr(used), tsPtr(rev), ts.Milli(c)
				x.Keys = append(x.Keys, v)
				return err
			}},
			{`SELECT id, organization_id, memory_class, kind, statement, status, created_at FROM memories WHERE user_id = ? AND scope = 'user'
				ORDER BY created_at, id`,
				[]any{userID}, func(r scanner) error {
					var v account.ExportMemory
					var c int64
					err := r.Scan(&v.ID, &v.OrganizationID, &v.MemoryClass, &v.Kind, &v.Statement, &v.Status, &c)
					v.CreatedAt = ts.Milli(c)
					x.Memories = append(x.Memories, v)
					return err
				}},
			{`SELECT i.id, i.status, i.organization_id, o.name, i.role, i.created_at, i.accepted_at FROM seat_invitations i
				JOIN organizations o ON o.id = i.organization_id WHERE i.email = ? ORDER BY i.created_at, i.id`,
				[]any{email}, func(r scanner) error {
					v := account.ExportInvitation{Kind: "seat"}
					var house, name, role string
					var c int64
					var acc sql.NullInt64
					err := r.Scan(&v.ID, &v.Status, &house, &name, &role, &c, &acc)
					v.OrganizationID, v.OrganizationName, v.Role = &house, &name, &role
					v.CreatedAt, v.AcceptedAt = ts.Milli(c), tsPtr(acc)
					x.Invitations = append(x.Invitations, v)
					return err
				}},
			{`SELECT id, kind, status, grant_tokens, created_at, accepted_at FROM invitations WHERE email = ? ORDER BY created_at, id`,
				[]any{email}, func(r scanner) error {
					var v account.ExportInvitation
					var c int64
					var acc sql.NullInt64
					err := r.Scan(&v.ID, &v.Kind, &v.Status, &v.GrantTokens, &c, &acc)
					v.CreatedAt, v.AcceptedAt = ts.Milli(c), tsPtr(acc)
					x.Invitations = append(x.Invitations, v)
					return err
				}},
			{`SELECT id, organization_id, email, role, status, created_at FROM seat_invitations
				WHERE invited_by_user_id = ? ORDER BY created_at, id`, []any{userID}, func(r scanner) error {
				var v account.ExportSentOffer
				var c int64
				err := r.Scan(&v.ID, &v.OrganizationID, &v.Email, &v.Role, &v.Status, &c)
				v.CreatedAt = ts.Milli(c)
				x.InvitationsSent = append(x.InvitationsSent, v)
				return err
			}},
			{`SELECT name, COALESCE(house, ''), COALESCE(website, ''), details, status, created_at FROM invite_requests WHERE email = ?`,
				[]any{email}, func(r scanner) error {
					var v account.ExportApplication
					var c int64
					err := r.Scan(&v.Name, &v.House, &v.Website, &v.Details, &v.Status, &c)
					v.CreatedAt = ts.Milli(c)
					x.Application = &v
					return err
				}},
			{`SELECT code, used_count, max_uses, created_at FROM invite_codes WHERE owner_user_id = ?`,
				[]any{userID}, func(r scanner) error {
					var v account.ExportCode
					var c int64
					err := r.Scan(&v.Code, &v.UsedCount, &v.MaxUses, &c)
					v.CreatedAt = ts.Milli(c)
					x.ReferralCode = &v
					return err
				}},
			{`SELECT template, subject, body_text, status, created_at FROM email_log WHERE user_id = ? OR to_addr = ?
				ORDER BY created_at, id`, []any{userID, email}, func(r scanner) error {
				var v account.ExportEmail
				var c int64
				err := r.Scan(&v.Template, &v.Subject, &v.Text, &v.Status, &c)
				v.CreatedAt = ts.Milli(c)
				x.Emails = append(x.Emails, v)
				return err
			}},
		})
	})
	return x, err
}

type scanner interface{ Scan(...any) error }

// query is a read and what to do with each of its rows.
type query struct {
	sql  string
	args []any
	row  func(scanner) error
}

// readAll runs the queries in order, calling each one's row for every row.
func readAll(ctx context.Context, tx *Tx, qs []query) error {
	for _, q := range qs {
		if err := each(ctx, tx, q.sql, q.args, func(r *sql.Rows) error { return q.row(r) }); err != nil {
			return err
		}
	}
	return nil
}
