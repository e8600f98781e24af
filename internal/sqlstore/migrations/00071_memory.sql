-- What the studio remembers (SPEC §2 Memory, §3 Memory, DECISIONS §1b, §8).
-- scope house: shared by the house (user_id null); scope user: the
-- personal memory of user_id. created_by_user_id is the author. A correction inserts a successor whose
-- supersedes_id names its predecessor, which becomes superseded; retiring
-- keeps the row. The user columns carry no foreign key: erasing a user
-- erases their personal memories (user_id) and clears their authorship of
-- the house's (created_by_user_id).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE memories (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT,
    created_by_user_id TEXT,
    scope           TEXT NOT NULL CHECK (scope IN ('house', 'user')),
    memory_class    TEXT NOT NULL,
    kind            TEXT NOT NULL,
    statement       TEXT NOT NULL,
    confidence      DOUBLE PRECISION NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('candidate', 'active', 'retired', 'superseded')),
    evidence_count  INTEGER NOT NULL,
    supersedes_id   TEXT,
    projected       INTEGER NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    CHECK ((scope = 'house' AND user_id IS NULL) OR (scope = 'user' AND user_id IS NOT NULL)),
    UNIQUE (organization_id, id)
);
CREATE INDEX memories_house ON memories (organization_id, status, created_at);

-- +goose Down
DROP TABLE memories;
