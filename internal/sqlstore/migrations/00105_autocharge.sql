-- Auto top-up (issue 18, SPEC §4.19): the house's standing order (buy a
-- pack when the spendable balance falls below a threshold) and the day's
-- run, at most one a day per house: the primary key is what makes a run
-- idempotent under concurrent calls.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up

CREATE TABLE billing_autocharge (
    organization_id    TEXT PRIMARY KEY REFERENCES organizations (id),
    enabled            INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    threshold          BIGINT NOT NULL CHECK (threshold >= 0),
    pack_tokens        BIGINT NOT NULL CHECK (pack_tokens >= 0),
    updated_by_user_id TEXT REFERENCES users (id),
    updated_at         BIGINT NOT NULL
);

CREATE TABLE billing_autocharge_runs (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    day             TEXT NOT NULL,
    checkout_id     TEXT NOT NULL,
    tokens          BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, day)
);

-- +goose Down
DROP TABLE billing_autocharge_runs;
DROP TABLE billing_autocharge;
