-- The house's identity (SPEC §2 Brand profile, Brand mark; §4.8): one
-- profile row per house (absent until first written: a house without one
-- reads empty defaults), the log of its DNA reads (for operators: who, what
-- it cost and what the provider reported; never on the wire), and its logo
-- renditions registered as marks. Lists are JSON text. One portable set
-- for SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE brand_profiles (
    organization_id    TEXT PRIMARY KEY REFERENCES organizations (id),
    vision_en          TEXT NOT NULL DEFAULT '',
    vibe               TEXT NOT NULL DEFAULT '[]',
    palette            TEXT NOT NULL DEFAULT '[]',
    signature_keywords TEXT NOT NULL DEFAULT '[]',
    inject_enabled     INTEGER NOT NULL DEFAULT 0,
    dna_runs           INTEGER NOT NULL DEFAULT 0 CHECK (dna_runs >= 0),
    -- the read that holds the house's free first read while it runs, and
    -- until when (a read that died leaves it to lapse)
    dna_claim          TEXT,
    dna_claim_until    BIGINT,
    updated_at         BIGINT NOT NULL,
    CHECK ((dna_claim IS NULL) = (dna_claim_until IS NULL))
);

CREATE TABLE brand_dna_reads (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id),
    user_id           TEXT,
    images            INTEGER NOT NULL,
    charged           BIGINT NOT NULL,
    hold_id           TEXT,
    model             TEXT,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd          DOUBLE PRECISION NOT NULL DEFAULT 0,
    latency_ms        BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL
);
CREATE INDEX brand_dna_reads_house ON brand_dna_reads (organization_id, created_at);

-- A mark belongs to the house set (collection_id NULL) or to one
-- collection's override. level is '' for the house set and the collection
-- id otherwise, so that the unique key sees the house set as one level
-- (NULLs are distinct in a UNIQUE constraint on both engines).
CREATE TABLE brand_marks (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    asset_id           TEXT NOT NULL,
    collection_id      TEXT,
    level              TEXT NOT NULL,
    material           TEXT NOT NULL CHECK (material <> ''),
    placement          TEXT,
    note               TEXT,
    sort_order         INTEGER NOT NULL,
    created_by_user_id TEXT,
    created_at         BIGINT NOT NULL,
    UNIQUE (organization_id, level, asset_id),
    FOREIGN KEY (organization_id, collection_id) REFERENCES folders (organization_id, id),
    CHECK (level = COALESCE(collection_id, ''))
);
CREATE INDEX brand_marks_level ON brand_marks (organization_id, level, sort_order);

-- +goose Down
DROP TABLE brand_marks;
DROP TABLE brand_dna_reads;
DROP TABLE brand_profiles;
