-- Attribution a person can take back (issue 14, POST /me/delete): when a
-- user erases their account, the house keeps every job and post, and the
-- column naming the user becomes null. jobs.user_id and posts.author_id
-- were NOT NULL, which SQLite cannot drop, so both tables are rebuilt: a
-- new table, every row copied, the old one dropped (with its indexes), the
-- new one renamed and the indexes made again under their names. Nothing
-- refers to either table by a foreign key. The same statements run on
-- PostgreSQL. The jobs indexes are those of 00007 (house keys); the columns include
-- 00020's provider_prompt and provider_refs.

-- +goose Up
CREATE TABLE jobs_v61 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
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
    finished_at     BIGINT,
    provider_prompt TEXT,
    provider_refs   TEXT
);
INSERT INTO jobs_v61 (id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
    idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner, lease_until,
    created_at, started_at, finished_at, provider_prompt, provider_refs)
SELECT id, organization_id, user_id, tool, tier, status, params, inputs, brand_id, retry_of_job_id,
    idempotency_key, fingerprint, cost, hold_id, result_asset_id, error, event_seq, attempts, lease_owner, lease_until,
    created_at, started_at, finished_at, provider_prompt, provider_refs
FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_v61 RENAME TO jobs;
-- Erased users' jobs keep their keys without a user: NULLs never collide.
CREATE UNIQUE INDEX jobs_idempotency ON jobs (organization_id, user_id, idempotency_key);
CREATE INDEX jobs_house_seq ON jobs (organization_id, event_seq);
CREATE INDEX jobs_house_created ON jobs (organization_id, created_at, id);
CREATE INDEX jobs_queued ON jobs (created_at, id) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE status = 'running';

CREATE TABLE posts_v61 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    author_id       TEXT REFERENCES users (id),
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
INSERT INTO posts_v61 (id, organization_id, author_id, title, body, created_at, updated_at)
SELECT id, organization_id, author_id, title, body, created_at, updated_at FROM posts;
DROP TABLE posts;
ALTER TABLE posts_v61 RENAME TO posts;
CREATE INDEX posts_org ON posts (organization_id, id);

-- +goose Down
-- Forward only: a null attribution has no user to restore.
SELECT 1;
