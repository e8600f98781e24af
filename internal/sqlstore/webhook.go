package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"studio/internal/errs"
	"studio/internal/ts"
	"studio/internal/webhook"
)

const endpointCols = `id, organization_id, COALESCE(created_by_user_id, ''), url, events, secret, disabled_at, created_at`

func scanEndpoint(row interface{ Scan(...any) error }) (webhook.Endpoint, error) {
	var e webhook.Endpoint
	var events string
	var disabled sql.NullInt64
	var created int64
	if err := row.Scan(&e.ID, &e.HouseID, &e.UserID, &e.URL, &events, &e.Secret, &disabled, &created); err != nil {
		return webhook.Endpoint{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(events), &e.Events); err != nil {
		return webhook.Endpoint{}, fmt.Errorf("endpoint %s events: %w", e.ID, err)
	}
	e.Active = !disabled.Valid
	e.CreatedAt = ts.Milli(created)
	return e, nil
}

// Endpoints returns the house's webhook endpoints, oldest first.
func (db *DB) Endpoints(ctx context.Context, house string) ([]webhook.Endpoint, error) {
	return endpointsTx(ctx, db.read(), house)
}

func endpointsTx(ctx context.Context, tx *Tx, house string) ([]webhook.Endpoint, error) {
	rows, err := tx.Query(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE organization_id = ?
		ORDER BY created_at, id`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.Endpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Endpoint returns one webhook endpoint of the house.
func (db *DB) Endpoint(ctx context.Context, house, id string) (webhook.Endpoint, error) {
	return scanEndpoint(db.read().QueryRow(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints
		WHERE organization_id = ? AND id = ?`, house, id))
}

// CreateEndpoint registers a webhook endpoint, unless the house has most
// already (webhook.ErrTooManyEndpoints). The count and the insert are one
// transaction under the house's lock (lockHouse), so registrations racing
// for the last place cannot both take it.
func (db *DB) CreateEndpoint(ctx context.Context, e webhook.Endpoint, most int) error {
	events, err := json.Marshal(e.Events)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *Tx) error {
		if err := db.lockHouse(ctx, tx, e.HouseID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM webhook_endpoints WHERE organization_id = ?`, e.HouseID).Scan(&n); err != nil {
			return err
		}
		if n >= most {
			return errs.With(webhook.ErrTooManyEndpoints, "max", most)
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhook_endpoints (id, organization_id, created_by_user_id, url, host, events, secret, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.HouseID, nullStr(e.UserID), e.URL, webhook.Host(e.URL), string(events), e.Secret,
			e.CreatedAt.UnixMilli())
		return err
	})
}

// DeleteEndpoint removes the endpoint and every delivery of it but those
// a sender holds right now, in one transaction. Those are left for
// InFlight to see out: the sender removes each when it records its attempt.
func (db *DB) DeleteEndpoint(ctx context.Context, house, id string) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM webhook_endpoints WHERE organization_id = ? AND id = ?`, house, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(errs.NotFound, err)
		}
		_, err = tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?
			AND NOT (status = 'pending' AND lease_until IS NOT NULL AND lease_until > ?)`, house, id, db.nowMs())
		return err
	})
}

// InFlight counts a deleted endpoint's deliveries still held by a sender
// at now, after removing those whose sender's lease lapsed (a crashed
// sender's: nobody claims them again, their endpoint being gone).
func (db *DB) InFlight(ctx context.Context, house, endpoint string, now time.Time) (int, error) {
	var n int
	err := db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?
			AND (lease_until IS NULL OR lease_until <= ?)
			AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.organization_id = ? AND e.id = ?)`,
			house, endpoint, now.UnixMilli(), house, endpoint); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?`,
			house, endpoint).Scan(&n)
	})
	return n, err
}

const deliveryCols = `d.id, d.organization_id, d.endpoint_id, d.message_id, d.event, d.body, d.status, d.attempts, d.next_at,
	d.last_status, d.last_error, d.delivered_at, d.created_at`

func scanDelivery(row interface{ Scan(...any) error }, extra ...any) (webhook.Delivery, error) {
	var d webhook.Delivery
	var body string
	var next, created int64
	var lastStatus, delivered sql.NullInt64
	var lastError sql.NullString
	dest := append([]any{&d.ID, &d.HouseID, &d.EndpointID, &d.MessageID, &d.Event, &body, &d.Status, &d.Attempts, &next,
		&lastStatus, &lastError, &delivered, &created}, extra...)
	if err := row.Scan(dest...); err != nil {
		return webhook.Delivery{}, notFound(err)
	}
	d.Body = []byte(body)
	if d.Status == webhook.Pending {
		at := ts.Milli(next)
		d.NextAttemptAt = &at
	}
	if lastStatus.Valid {
		s := int(lastStatus.Int64)
		d.LastStatus = &s
	}
	if lastError.Valid {
		d.LastError = &lastError.String
	}
	d.DeliveredAt = tsPtr(delivered)
	d.CreatedAt = ts.Milli(created)
	return d, nil
}

// Deliveries lists an endpoint's deliveries, newest first.
func (db *DB) Deliveries(ctx context.Context, house, endpoint string, limit int) ([]webhook.Delivery, error) {
	rows, err := db.read().Query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries d
		WHERE d.organization_id = ? AND d.endpoint_id = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?`, house, endpoint, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// hostFree is the claim's condition on a delivery's endpoint e: fewer
// than perHost deliveries to e's host are being sent (held by a sender
// whose lease runs at ?, now, or later).
const hostFree = `(SELECT COUNT(*) FROM webhook_deliveries x
	JOIN webhook_endpoints xe ON xe.organization_id = x.organization_id AND xe.id = x.endpoint_id
	WHERE x.lease_until IS NOT NULL AND x.lease_until >= ? AND x.status = 'pending' AND xe.host = e.host) < ?`

// claimLock is the PostgreSQL advisory lock every delivery claim takes
// for its transaction: claims follow one another, as on SQLite's single
// writer, so the count of a host's deliveries in flight (hostFree) cannot
// be read by two claims at once. A claim is a few statements; senders
// are few.
const claimLock = 0x77656268_6f6f6b73 // "webhooks"

// ClaimDelivery takes the pending delivery due longest whose endpoint is
// active, that no sender holds (or whose sender's lease lapsed), and whose
// host has fewer than perHost deliveries being sent, for worker until
// leaseUntil, and counts the attempt. Claims are serialised (claimLock on
// PostgreSQL; SQLite's single writer), which is what makes the per-host
// count exact across processes. The outbox spans every house, so the first
// query names none; the claim itself does.
func (db *DB) ClaimDelivery(ctx context.Context, worker string, now, leaseUntil time.Time, perHost int) (d webhook.Delivery, ok bool, err error) {
	err = db.write(ctx, func(tx *Tx) error {
		if db.engine == Postgres {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(claimLock)); err != nil {
				return err
			}
		}
		q := `SELECT d.id, d.organization_id FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
			WHERE d.status = 'pending' AND d.next_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
			AND e.disabled_at IS NULL AND ` + hostFree + `
			ORDER BY d.next_at, d.id LIMIT 1`
		var id, house string
		if err := tx.QueryRow(ctx, q, now.UnixMilli(), now.UnixMilli(), now.UnixMilli(), perHost).Scan(&id, &house); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_owner = ?, lease_until = ?
			WHERE organization_id = ? AND id = ?`, worker, leaseUntil.UnixMilli(), house, id); err != nil {
			return err
		}
		var url, secret string
		d, err = scanDelivery(tx.QueryRow(ctx, `SELECT `+deliveryCols+`, e.url, e.secret FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
			WHERE d.organization_id = ? AND d.id = ?`, house, id), &url, &secret)
		d.URL, d.Secret = url, secret
		return err
	})
	ok = err == nil && d.ID != ""
	return d, ok, err
}

// RecordAttempt writes the outcome of an attempt the worker holds, and
// disables the endpoint (failing what it still had queued) when it was
// answered 410, in one transaction. A delivery whose endpoint was deleted
// while it was being sent is removed: the deletion is waiting for it.
func (db *DB) RecordAttempt(ctx context.Context, d webhook.Delivery, worker string, a webhook.Attempt) error {
	return db.write(ctx, func(tx *Tx) error {
		var exists int
		err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM webhook_endpoints WHERE organization_id = ? AND id = ?`,
			d.HouseID, d.EndpointID).Scan(&exists)
		if err != nil {
			return err
		}
		if exists == 0 {
			_, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE organization_id = ? AND id = ?`, d.HouseID, d.ID)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = ?, next_at = ?, last_status = ?, last_error = ?,
			delivered_at = ?, lease_owner = NULL, lease_until = NULL
			WHERE organization_id = ? AND id = ? AND lease_owner = ?`,
			a.Status, nextAt(a), nullInt(a.HTTPStatus), nullStr(a.Error), deliveredAt(a),
			d.HouseID, d.ID, worker); err != nil {
			return err
		}
		if a.Gone {
			return disableEndpointTx(ctx, tx, d.HouseID, d.EndpointID, a.At)
		}
		return nil
	})
}

// RecordTest writes a test message's delivery, already attempted once.
func (db *DB) RecordTest(ctx context.Context, d webhook.Delivery, a webhook.Attempt) error {
	return db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, message_id, event, body,
			status, attempts, next_at, last_status, last_error, delivered_at, created_at)
			SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ? WHERE EXISTS
			(SELECT 1 FROM webhook_endpoints WHERE organization_id = ? AND id = ?)`,
			d.ID, d.HouseID, d.EndpointID, d.MessageID, d.Event, string(d.Body), a.Status, nextAt(a),
			nullInt(a.HTTPStatus), nullStr(a.Error), deliveredAt(a), d.CreatedAt.UnixMilli(), d.HouseID, d.EndpointID); err != nil {
			return err
		}
		if a.Gone {
			return disableEndpointTx(ctx, tx, d.HouseID, d.EndpointID, a.At)
		}
		return nil
	})
}

func disableEndpointTx(ctx context.Context, tx *Tx, house, endpoint string, at time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = ? WHERE organization_id = ? AND id = ? AND disabled_at IS NULL`,
		at.UnixMilli(), house, endpoint); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', last_error = ?
		WHERE organization_id = ? AND endpoint_id = ? AND status = 'pending' AND lease_owner IS NULL`,
		"The endpoint was disabled (410 Gone) before this was sent.", house, endpoint)
	return err
}

func nextAt(a webhook.Attempt) int64 {
	if a.Status == webhook.Pending {
		return a.NextAt.UnixMilli()
	}
	return a.At.UnixMilli()
}

func deliveredAt(a webhook.Attempt) sql.NullInt64 {
	if a.Status == webhook.Delivered {
		return sql.NullInt64{Int64: a.At.UnixMilli(), Valid: true}
	}
	return sql.NullInt64{}
}

func nullInt(n int) sql.NullInt64 { return sql.NullInt64{Int64: int64(n), Valid: n != 0} }

// NextDue returns when the earliest pending delivery a sender could claim
// is due: no sender holds it and its host is below perHost. (A host that
// is full frees up when one of its sends ends; that sender claims again
// at once, and idle ones look again within their poll.)
func (db *DB) NextDue(ctx context.Context, perHost int) (time.Time, bool, error) {
	var at sql.NullInt64
	now := db.nowMs()
	if err := db.read().QueryRow(ctx, `SELECT MIN(d.next_at) FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
		WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < ?) AND e.disabled_at IS NULL
		AND `+hostFree, now, now, perHost).Scan(&at); err != nil {
		return time.Time{}, false, err
	}
	return time.UnixMilli(at.Int64), at.Valid, nil
}

// enqueueWebhooksTx writes the outbox rows of an event in the caller's
// transaction: one message, one delivery per active endpoint of the house
// that hears the event, due now. Nothing is written when none hears it.
func (db *DB) enqueueWebhooksTx(ctx context.Context, tx *Tx, house, event string, data any) error {
	eps, err := endpointsTx(ctx, tx, house)
	if err != nil {
		return err
	}
	var msg webhook.Message
	now := db.now()
	for _, e := range eps {
		if !e.Hears(event) {
			continue
		}
		if msg.ID == "" {
			if msg, err = webhook.NewMessage(event, now, data); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, message_id, event, body,
			status, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
			uuid.Must(uuid.NewV7()).String(), house, e.ID, msg.ID, event, string(msg.Body), now.UnixMilli(), now.UnixMilli()); err != nil {
			return fmt.Errorf("enqueue %s: %w", event, err)
		}
	}
	return nil
}
