-- The service's letters (SPEC §4.14, §6 inbound events, DECISIONS §10).
-- The e-mail log keeps each letter's HTML part beside its text, and the
-- provider's later word on it (status, updated_at), found by the provider's
-- message id. drip_sends claims a drip letter's dedupeKey once (global on
-- purpose: the drip route is the service's, not a house's).
-- email_webhook_events de-duplicates the provider's deliveries by
-- webhook-id. operator_alerts is what the operators must look at (a letter
-- bounced or marked as spam).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE email_log ADD COLUMN body_html TEXT;
ALTER TABLE email_log ADD COLUMN updated_at BIGINT;
CREATE INDEX email_log_provider ON email_log (provider_id);

CREATE TABLE drip_sends (
    dedupe_key   TEXT PRIMARY KEY,
    template     TEXT NOT NULL,
    to_addr      TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE TABLE email_webhook_events (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    received_at BIGINT NOT NULL
);

CREATE TABLE operator_alerts (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    subject    TEXT NOT NULL,
    detail     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX operator_alerts_created ON operator_alerts (created_at);

-- +goose Down
DROP TABLE operator_alerts;
DROP TABLE email_webhook_events;
DROP TABLE drip_sends;
DROP INDEX email_log_provider;
ALTER TABLE email_log DROP COLUMN updated_at;
ALTER TABLE email_log DROP COLUMN body_html;
