-- The analyst digest (issue 16): what an operator's run computed from the
-- stored facts (movements window over window, proposed actions, caveats)
-- and the headlines the rules or the AI endpoint wrote; the cadence that
-- sets its window; and the log of who read which digest when. Platform
-- rows: they name no house, as the operators' reads read across houses.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
-- One row per run that computed (a press inside the window stores
-- nothing). body is the digest's JSON (headlines, movements, actions,
-- caveats); the model's usage is what the admin ai-costs route sums under
-- "analyst".
CREATE TABLE analyst_digests (
    id                TEXT PRIMARY KEY,
    window_hours      INTEGER NOT NULL CHECK (window_hours BETWEEN 1 AND 168),
    window_start      BIGINT NOT NULL,
    window_end        BIGINT NOT NULL,
    thin              INTEGER NOT NULL CHECK (thin IN (0, 1)),
    headlines_by      TEXT NOT NULL CHECK (headlines_by IN ('rules', 'model')),
    body              TEXT NOT NULL,
    model             TEXT,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd          DOUBLE PRECISION NOT NULL DEFAULT 0,
    run_by_user_id    TEXT REFERENCES users (id),
    created_at        BIGINT NOT NULL
);
CREATE INDEX analyst_digests_created ON analyst_digests (created_at);

-- The one cadence (id 1); absent until an operator sets it (168 hours,
-- off, until then).
CREATE TABLE analyst_cadence (
    id                 INTEGER PRIMARY KEY CHECK (id = 1),
    hours              INTEGER NOT NULL CHECK (hours BETWEEN 1 AND 168),
    enabled            INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    updated_by_user_id TEXT REFERENCES users (id),
    updated_at         BIGINT NOT NULL,
    -- The instant an automatic run last claimed the cadence: one instance
    -- of many wins each due run.
    auto_claimed_at    BIGINT
);

-- The operators' audit of digest reads: who read, when, which digest (null
-- while none exists) and how many previous headlines came with it. The
-- reader's id stays after an erasure (no foreign key: it names no one once
-- the user row is gone).
CREATE TABLE analyst_reads (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    digest_id  TEXT REFERENCES analyst_digests (id),
    history    INTEGER NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX analyst_reads_created ON analyst_reads (created_at);

-- The run's windowed counts across houses (jobs, verdicts, email_log and
-- posted holds have theirs already).
CREATE INDEX users_created ON users (created_at);

-- +goose Down
DROP INDEX users_created;
DROP INDEX analyst_reads_created;
DROP TABLE analyst_reads;
DROP TABLE analyst_cadence;
DROP INDEX analyst_digests_created;
DROP TABLE analyst_digests;
