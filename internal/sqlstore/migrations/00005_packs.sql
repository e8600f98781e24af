-- Packs (batch downloads) and notifications. A pack row records what was
-- asked: the asset ids (JSON array, in the asked order) and the renditions
-- (JSON array of {name, width, height}). An instant pack is ready at once
-- and its archive is built on each download; a queued pack is the queue
-- itself: the builder claims a row with a lease, writes the archive to the
-- blob store and marks it ready or failed. A pack lives 7 days from
-- created_at; then the builder deletes its archive and clears blob_key. A notification belongs to a house and, when user_id is set,
-- to one recipient; event_seq is the house's event cursor at the time it
-- was raised (organizations.event_seq is the counter).

-- +goose Up
CREATE TABLE packs (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
    mode            TEXT NOT NULL CHECK (mode IN ('instant', 'pack')),
    status          TEXT NOT NULL CHECK (status IN ('queued', 'building', 'ready', 'failed')),
    name            TEXT,
    filename        TEXT NOT NULL,
    asset_ids       TEXT NOT NULL,
    sizes           TEXT NOT NULL,
    items           INTEGER NOT NULL CHECK (items >= 0),
    bytes           BIGINT NOT NULL CHECK (bytes >= 0),
    blob_key        TEXT,
    error           TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until     BIGINT,
    created_at      BIGINT NOT NULL,
    finished_at     BIGINT
);
CREATE INDEX packs_house ON packs (organization_id, created_at);
CREATE INDEX packs_queued ON packs (created_at, id) WHERE status IN ('queued', 'building');
CREATE INDEX packs_stored ON packs (created_at) WHERE blob_key IS NOT NULL;

CREATE TABLE notifications (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT REFERENCES users (id),
    kind            TEXT NOT NULL,
    subject_type    TEXT NOT NULL,
    subject_id      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    matures_at      BIGINT NOT NULL,
    event_seq       BIGINT NOT NULL,
    read_at         BIGINT
);
CREATE INDEX notifications_house_seq ON notifications (organization_id, event_seq);

-- +goose Down
DROP TABLE notifications;
DROP TABLE packs;
