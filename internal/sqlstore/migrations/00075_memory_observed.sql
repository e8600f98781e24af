-- Memory that learns (issue 15; SPEC §2 Memory kind, DECISIONS §8 status
-- candidate). A chat turn whose applied mutations make a choice the studio
-- can learn (a background preset, an aesthetic, a quality, an output)
-- records an observation: a personal memory of kind observed, keyed by
-- what was chosen (observed_key, e.g. "set-aesthetic=editorial") within
-- its slot (observed_slot, the op). One row per person and key: further
-- turns count evidence on it, a candidate is promoted to active at the
-- threshold, and a retired or superseded row keeps the key taken, so what
-- a person told the studio to forget is not learned again. Told memories
-- leave both columns null (NULLs never collide in the unique index).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE memories ADD COLUMN observed_slot TEXT;
ALTER TABLE memories ADD COLUMN observed_key TEXT;
CREATE UNIQUE INDEX memories_observed ON memories (organization_id, user_id, observed_key);

-- +goose Down
DROP INDEX memories_observed;
ALTER TABLE memories DROP COLUMN observed_key;
ALTER TABLE memories DROP COLUMN observed_slot;
