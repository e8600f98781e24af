-- Jobs: the develop queue. The jobs table is the queue itself: a worker
-- claims a queued row with a lease, renews it while it renders, and a
-- rescuer returns rows whose lease ran out. event_seq is the house's event
-- cursor of the job's latest change (organizations.event_seq is the counter).

-- +goose Up
CREATE TABLE jobs (
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
    finished_at     BIGINT,
    UNIQUE (user_id, idempotency_key)
);
CREATE INDEX jobs_house_seq ON jobs (organization_id, event_seq);
CREATE INDEX jobs_house_created ON jobs (organization_id, created_at);
CREATE INDEX jobs_queued ON jobs (created_at, id) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE status = 'running';

-- +goose Down
DROP TABLE jobs;
