-- The judge: one verdict per developed frame, the house's answer to it,
-- the queue of frames waiting to be judged, standing notes, the directions
-- given with takes, the takes' idempotency, the opinions raised on runs,
-- and what a provider received for each develop.
--
-- verdicts: written once per job (the primary key); score is NULL exactly
-- when the frame was unreadable. findings is a JSON array of {code, where,
-- confidence, fromInput}. judge, model, note, cost, cost_usd and
-- latency_ms are for operators and never on the wire.
-- frame_feedback: the shared feedback row of a frame; the judge's label
-- route sets only agrees_with_judge, rating and note (last answer wins).
-- judge_tasks: the frames waiting for a verdict, raised in the transaction
-- that settles the frame; a judge claims one with a lease, and a failed
-- attempt waits until not_before.
-- standing_notes: scope_tools is a JSON array of tool slugs, sorted (empty
-- = every tool); scope_key is the same joined by commas, norm the text
-- normalised (lower case, single spaces, no closing punctuation): one note
-- in force per (house, norm, scope).
-- directions: each direction given with a take, per new job.
-- takes: a take's idempotency key and its answer, per (house, user, key).
-- opinions: one opinion notification per settlement of a run.

-- +goose Up
CREATE TABLE verdicts (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    job_id          TEXT NOT NULL,
    score           INTEGER CHECK (score IS NULL OR (score BETWEEN 1 AND 100)),
    unreadable      INTEGER NOT NULL CHECK (unreadable IN (0, 1)),
    flagged         INTEGER NOT NULL CHECK (flagged IN (0, 1)),
    show_score      INTEGER NOT NULL CHECK (show_score IN (0, 1)),
    retry_futile    INTEGER NOT NULL CHECK (retry_futile IN (0, 1)),
    findings        TEXT NOT NULL,
    rubric_version  INTEGER NOT NULL,
    judge           TEXT NOT NULL,
    model           TEXT,
    note            TEXT,
    cost            BIGINT NOT NULL DEFAULT 0,
    cost_usd        DOUBLE PRECISION NOT NULL DEFAULT 0,
    latency_ms      BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, job_id),
    CHECK ((score IS NULL) = (unreadable = 1))
);

CREATE TABLE frame_feedback (
    organization_id   TEXT NOT NULL REFERENCES organizations (id),
    job_id            TEXT NOT NULL,
    user_id           TEXT REFERENCES users (id),
    agrees_with_judge INTEGER CHECK (agrees_with_judge IS NULL OR agrees_with_judge IN (0, 1)),
    rating            INTEGER CHECK (rating IS NULL OR (rating BETWEEN 1 AND 5)),
    note              TEXT CHECK (note IS NULL OR note <> ''),
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    PRIMARY KEY (organization_id, job_id)
);

CREATE TABLE judge_tasks (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    job_id          TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    not_before      BIGINT NOT NULL,
    lease_owner     TEXT,
    lease_until     BIGINT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, job_id)
);
CREATE INDEX judge_tasks_due ON judge_tasks (not_before);

CREATE TABLE standing_notes (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT REFERENCES users (id),
    text               TEXT NOT NULL,
    norm               TEXT NOT NULL,
    scope_tools        TEXT NOT NULL,
    scope_key          TEXT NOT NULL,
    scope_phrase       TEXT NOT NULL,
    evidence_job_ids   TEXT NOT NULL,
    active_from        BIGINT NOT NULL,
    retired_at         BIGINT,
    created_at         BIGINT NOT NULL
);
CREATE INDEX standing_notes_house ON standing_notes (organization_id, created_at);
CREATE UNIQUE INDEX standing_notes_in_force ON standing_notes (organization_id, norm, scope_key) WHERE retired_at IS NULL;

CREATE TABLE directions (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    job_id          TEXT NOT NULL,
    source_job_id   TEXT NOT NULL,
    user_id         TEXT REFERENCES users (id),
    tool            TEXT NOT NULL,
    said            TEXT NOT NULL,
    norm            TEXT NOT NULL,
    take_id         TEXT NOT NULL,
    shoot           TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, job_id)
);
CREATE INDEX directions_norm ON directions (organization_id, norm, created_at);

CREATE TABLE takes (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    answer          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (organization_id, user_id, idempotency_key)
);

CREATE TABLE opinions (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    run_id          TEXT NOT NULL,
    newest_job_id   TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, run_id, newest_job_id)
);

ALTER TABLE jobs ADD COLUMN provider_prompt TEXT;
ALTER TABLE jobs ADD COLUMN provider_refs TEXT;

-- +goose Down
ALTER TABLE jobs DROP COLUMN provider_refs;
ALTER TABLE jobs DROP COLUMN provider_prompt;
DROP TABLE opinions;
DROP TABLE takes;
DROP TABLE directions;
DROP TABLE standing_notes;
DROP TABLE judge_tasks;
DROP TABLE frame_feedback;
DROP TABLE verdicts;
