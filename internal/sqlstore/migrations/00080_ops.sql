-- Operators (issue 16): the access an operator grants a user to a toolkit or a tool, and an index for reads
-- across houses (the admin develops, failures and frames lists).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
-- A grant of a toolkit or a tool to a user (not to a house: access follows
-- the person). One row per (user, kind, item); a revoke deletes it.
CREATE TABLE access_grants (
    user_id            TEXT NOT NULL REFERENCES users (id),
    kind               TEXT NOT NULL CHECK (kind IN ('toolkit', 'tool')),
    item               TEXT NOT NULL CHECK (item <> ''),
    granted_by_user_id TEXT REFERENCES users (id),
    created_at         BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind, item)
);

CREATE INDEX jobs_created ON jobs (created_at);
CREATE INDEX assets_created ON assets (created_at);
CREATE INDEX ledger_holds_settled ON ledger_holds (resolved_at) WHERE state = 'posted';

-- +goose Down
DROP INDEX ledger_holds_settled;
DROP INDEX assets_created;
DROP INDEX jobs_created;
DROP TABLE access_grants;
