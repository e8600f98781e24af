package sqlstore

import (
	"context"
	"database/sql"

	"github.com/pressly/goose/v3"

	"studio/internal/webhook"
)

// webhookHostsVersion gives each webhook endpoint the host its deliveries
// are counted by (webhook.PerHost, issue 28). It is a Go migration because
// the host is the URL's, parsed as the sender parses it, which portable SQL
// cannot do: the column is added, every existing endpoint's host written,
// and the leased deliveries indexed (the claim counts them per host).
const webhookHostsVersion = 110

func webhookHostsMigration(e Engine) *goose.Migration {
	update := `UPDATE webhook_endpoints SET host = ? WHERE id = ?`
	if e == Postgres {
		update = `UPDATE webhook_endpoints SET host = $1 WHERE id = $2`
	}
	up := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE webhook_endpoints ADD COLUMN host TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, url FROM webhook_endpoints`)
		if err != nil {
			return err
		}
		hosts := map[string]string{}
		for rows.Next() {
			var id, url string
			if err := rows.Scan(&id, &url); err != nil {
				rows.Close()
				return err
			}
			hosts[id] = webhook.Host(url)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for id, host := range hosts {
			if _, err := tx.ExecContext(ctx, update, host, id); err != nil {
				return err
			}
		}
		for _, s := range []string{
			`CREATE INDEX webhook_endpoints_host ON webhook_endpoints (host)`,
			`CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL`,
		} {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	down := func(ctx context.Context, tx *sql.Tx) error {
		for _, s := range []string{
			`DROP INDEX webhook_deliveries_leased`,
			`DROP INDEX webhook_endpoints_host`,
			`ALTER TABLE webhook_endpoints DROP COLUMN host`,
		} {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	return goose.NewGoMigration(webhookHostsVersion, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}
