-- Pipelines (issue 16): saved plans of tool steps, and runs of a plan over
-- a house's assets. A run holds every planned frame (steps x assets) when
-- it starts; each frame's develop id is chosen then, so its hold names the
-- develop (ledger_holds.job_id) before the jobs row exists. The frame's
-- develop is queued when the step before it lands, by the transaction that
-- settles that step (sqlstore/pipeline.go). One portable set: it runs
-- unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE pipeline_presets (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    name               TEXT NOT NULL,
    steps              TEXT NOT NULL,
    created_by_user_id TEXT REFERENCES users (id),
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
CREATE UNIQUE INDEX pipeline_presets_name ON pipeline_presets (organization_id, name);
CREATE INDEX pipeline_presets_house ON pipeline_presets (organization_id, created_at, id);

CREATE TABLE pipeline_runs (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
    preset_id       TEXT,
    name            TEXT NOT NULL,
    steps           TEXT NOT NULL,
    asset_ids       TEXT NOT NULL,
    idempotency_key TEXT,
    fingerprint     TEXT NOT NULL,
    cost            BIGINT NOT NULL CHECK (cost > 0),
    cancelled_at    BIGINT,
    created_at      BIGINT NOT NULL
);
CREATE UNIQUE INDEX pipeline_runs_key ON pipeline_runs (organization_id, user_id, idempotency_key);
CREATE INDEX pipeline_runs_house ON pipeline_runs (organization_id, created_at, id);

-- One row per planned frame: waiting (held, not yet queued), started (its
-- develop exists) or dropped (released unrun).
CREATE TABLE pipeline_frames (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    run_id          TEXT NOT NULL REFERENCES pipeline_runs (id),
    asset_index     INTEGER NOT NULL,
    step            INTEGER NOT NULL,
    source_asset_id TEXT NOT NULL,
    job_id          TEXT NOT NULL,
    hold_id         TEXT NOT NULL,
    tokens          BIGINT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('waiting', 'started', 'dropped')),
    PRIMARY KEY (run_id, asset_index, step)
);
CREATE UNIQUE INDEX pipeline_frames_job ON pipeline_frames (organization_id, job_id);

-- +goose Down
DROP TABLE pipeline_frames;
DROP TABLE pipeline_runs;
DROP TABLE pipeline_presets;
