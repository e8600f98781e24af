package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"studio/internal/mail"
)

// ClaimDrip records a drip letter's dedupe key; false when it was claimed
// before.
func (db *DB) ClaimDrip(ctx context.Context, key, template, to string, at time.Time) (bool, error) {
	res, err := db.writer().Exec(ctx, `INSERT INTO drip_sends (dedupe_key, template, to_addr, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (dedupe_key) DO NOTHING`, key, template, to, at.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReleaseDrip gives a dedupe key back (its letter was not taken).
func (db *DB) ReleaseDrip(ctx context.Context, key string) error {
	_, err := db.writer().Exec(ctx, `DELETE FROM drip_sends WHERE dedupe_key = ?`, key)
	return err
}

const entryCols = `id, to_addr, template, subject, body_text, body_html, status, provider_id, created_at`

func scanEntry(row interface{ Scan(...any) error }) (mail.Entry, error) {
	var e mail.Entry
	var html, provider sql.NullString
	var at int64
	if err := row.Scan(&e.ID, &e.To, &e.Template, &e.Subject, &e.Text, &html, &e.Status, &provider, &at); err != nil {
		return mail.Entry{}, notFound(err)
	}
	e.HTML, e.ProviderID, e.CreatedAt = html.String, provider.String, msTime(at)
	return e, nil
}

// LatestEmail is the newest letter of a template to an address.
func (db *DB) LatestEmail(ctx context.Context, to, template string) (mail.Entry, error) {
	return scanEntry(db.writer().QueryRow(ctx, `SELECT `+entryCols+` FROM email_log WHERE to_addr = ? AND template = ?
		ORDER BY created_at DESC, id DESC LIMIT 1`, to, template))
}

// SeenWebhook records a provider delivery's id; false when it was seen.
func (db *DB) SeenWebhook(ctx context.Context, id, typ string, at time.Time) (bool, error) {
	res, err := db.writer().Exec(ctx, `INSERT INTO email_webhook_events (id, type, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, typ, at.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MarkEmail sets the status of the letter the provider knows by
// providerID and returns it; NOT_FOUND when the log has none.
func (db *DB) MarkEmail(ctx context.Context, providerID, status string, at time.Time) (mail.Entry, error) {
	var e mail.Entry
	err := db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE email_log SET status = ?, updated_at = ? WHERE provider_id = ?`, status, at.UnixMilli(), providerID)
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		e, err = scanEntry(tx.QueryRow(ctx, `SELECT `+entryCols+` FROM email_log WHERE provider_id = ? LIMIT 1`, providerID))
		return err
	})
	return e, err
}

// RaiseAlert records something the operators must look at.
func (db *DB) RaiseAlert(ctx context.Context, id, kind, subject, detail string, at time.Time) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO operator_alerts (id, kind, subject, detail, created_at) VALUES (?, ?, ?, ?, ?)`,
		id, kind, subject, detail, at.UnixMilli())
	return err
}
