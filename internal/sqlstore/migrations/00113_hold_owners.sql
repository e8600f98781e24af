-- Every hold has an owner that outlives a crash (issue 28). A job's hold
-- is its job's (job_id), which the job claims' leases and deadlines see
-- through. A hold of no job (an AI lane's, an upload's reading, a brand
-- re-read) pays for a call one process makes: it records that process
-- (holder, a row of hold_holders whose lease the process renews while it
-- lives) and until when the call can finish (expires_at). A sweep voids a
-- pending hold whose call can no longer finish: past expires_at, or whose
-- holder's lease lapsed (the process died).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE ledger_holds ADD COLUMN holder TEXT;
ALTER TABLE ledger_holds ADD COLUMN expires_at BIGINT;
CREATE INDEX ledger_holds_calls ON ledger_holds (created_at) WHERE state = 'pending' AND job_id IS NULL;

CREATE TABLE hold_holders (
    id          TEXT PRIMARY KEY,
    started_at  BIGINT NOT NULL,
    lease_until BIGINT NOT NULL
);

-- +goose Down
DROP TABLE hold_holders;
DROP INDEX ledger_holds_calls;
ALTER TABLE ledger_holds DROP COLUMN expires_at;
ALTER TABLE ledger_holds DROP COLUMN holder;
