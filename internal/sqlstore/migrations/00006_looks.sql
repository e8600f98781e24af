-- Looks (SPEC §2 Look, §4.6): compositions of a house, the jobs each look
-- queued (look_jobs ties a job to its look, stage and variation key), the
-- standing preset and the posture prefs of each house. Items, background
-- and variation keys are JSON text. One portable set for SQLite and
-- PostgreSQL.

-- +goose Up
CREATE TABLE looks (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT,
    brand_id           TEXT,
    batch_id           TEXT,
    name               TEXT NOT NULL,
    model_asset_id     TEXT NOT NULL,
    items              TEXT NOT NULL,
    background         TEXT NOT NULL,
    aesthetic          TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('draft', 'locked')),
    look_base_asset_id TEXT,
    look_base_job_id   TEXT,
    variation_keys     TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX looks_house_created ON looks (organization_id, created_at);

CREATE TABLE look_jobs (
    organization_id TEXT NOT NULL,
    look_id         TEXT NOT NULL,
    job_id          TEXT NOT NULL,
    stage           TEXT NOT NULL CHECK (stage IN ('lock', 'variation')),
    variation_key   TEXT NOT NULL,
    base_asset_id   TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, job_id),
    FOREIGN KEY (organization_id, look_id) REFERENCES looks (organization_id, id)
);
CREATE INDEX look_jobs_look ON look_jobs (organization_id, look_id, created_at);

CREATE TABLE look_presets (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    body            TEXT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE TABLE posture_prefs (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    body            TEXT NOT NULL,
    updated_at      BIGINT NOT NULL
);

-- +goose Down
DROP TABLE posture_prefs;
DROP TABLE look_presets;
DROP TABLE look_jobs;
DROP TABLE looks;
