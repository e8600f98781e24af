-- The house in every key (issue 8).
--
-- 1. An idempotency key is unique per (house, user, key), not (user, key):
--    a user seated in two houses may reuse a key in each and gets two jobs
--    and two holds. 00004 declared the old key as a table-level UNIQUE,
--    which SQLite cannot drop, so the jobs table is rebuilt: a new table
--    without it, every row copied, the old table dropped, the new one
--    renamed, and the indexes made again under their old names. The key is
--    now a named unique index, so a later change is a DROP INDEX. Nothing
--    refers to jobs by a foreign key (look_jobs and ledger_holds carry job
--    ids without one), so dropping the old table with foreign keys on
--    deletes nothing elsewhere. The same statements run on PostgreSQL.
--
-- 2. The library list pages newest first by (created_at, id) within the
--    house: the house's indexes end with id, so a page below a cursor is a
--    range of the index on both engines (SQLite's rowid is not the id).

-- +goose Up
DROP INDEX jobs_house_seq;
DROP INDEX jobs_house_created;
DROP INDEX jobs_queued;
DROP INDEX jobs_leased;

CREATE TABLE jobs_v7 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    tool            TEXT NOT NULL,
    tier            TEXT NOT NULL CHECK (tier IN ('1k', '2k', '4k')),
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    params          TEXT NOT NULL,
    inputs          TEXT NOT NULL,
    brand_id        TEXT,
    retry_of_job_id TEXT,
    idempotency_key TEXT,
    fingerprint     TEXT NOT NULL,
    cost            BIGINT NOT NULL CHECK (cost >= 0),
    hold_id         TEXT,
    result_asset_id TEXT,
    error           TEXT,
    event_seq       BIGINT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until     BIGINT,
    created_at      BIGINT NOT NULL,
    started_at      BIGINT,
    finished_at     BIGINT
);

INSERT INTO jobs_v7 (id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
    idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner, lease_until,
    created_at, started_at, finished_at)
SELECT id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
    idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner, lease_until,
    created_at, started_at, finished_at
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_v7 RENAME TO jobs;

CREATE UNIQUE INDEX jobs_idempotency ON jobs (organization_id, user_id, idempotency_key);
CREATE INDEX jobs_house_seq ON jobs (organization_id, event_seq);
CREATE INDEX jobs_house_created ON jobs (organization_id, created_at, id);
CREATE INDEX jobs_queued ON jobs (created_at, id) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE status = 'running';

DROP INDEX assets_org_created;
DROP INDEX assets_org_folder;
CREATE INDEX assets_house_created ON assets (organization_id, created_at, id);
CREATE INDEX assets_house_folder ON assets (organization_id, folder_id, created_at, id);

-- +goose Down
DROP INDEX assets_house_folder;
DROP INDEX assets_house_created;
CREATE INDEX assets_org_created ON assets (organization_id, created_at);
CREATE INDEX assets_org_folder ON assets (organization_id, folder_id, created_at);

DROP INDEX jobs_idempotency;
CREATE UNIQUE INDEX jobs_user_key ON jobs (user_id, idempotency_key);
