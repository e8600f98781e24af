-- The help desk (SPEC §2 Support ticket, §3, §4.14). A ticket belongs to
-- the seat that opened it in its house; an escalation from the support
-- bridge may name no house or no user (organization_id, user_id null).
-- status noted marks a report that asked for no reply. A message's author
-- is customer, support or note (internal, never shown to the customer);
-- read_at marks the desk's answers the customer opened. Screenshots are
-- blobs under support/<house>/<id>, removed with their row after
-- SUPPORT_SHOT_RETENTION_DAYS. service_secrets keeps secrets every
-- instance must share (the key that signs screenshot links), made on
-- first use. User columns carry no foreign key (erasure decides).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE support_tickets (
    id              TEXT PRIMARY KEY,
    organization_id TEXT REFERENCES organizations (id),
    user_id         TEXT,
    status          TEXT NOT NULL CHECK (status IN ('open', 'noted')),
    subject         TEXT NOT NULL,
    topic           TEXT,
    contact_email   TEXT,
    current_url     TEXT,
    source          TEXT NOT NULL CHECK (source IN ('app', 'bridge')),
    reason          TEXT,
    bridge_session  TEXT,
    rating          INTEGER,
    screen          TEXT,
    transcript      TEXT,
    created_at      BIGINT NOT NULL,
    last_message_at BIGINT NOT NULL
);
CREATE INDEX support_tickets_user ON support_tickets (organization_id, user_id, last_message_at);
CREATE INDEX support_tickets_created ON support_tickets (created_at);

CREATE TABLE support_messages (
    id          TEXT PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES support_tickets (id),
    author      TEXT NOT NULL CHECK (author IN ('customer', 'support', 'note')),
    author_name TEXT NOT NULL,
    content     TEXT NOT NULL,
    screenshots TEXT NOT NULL DEFAULT '[]',
    read_at     BIGINT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX support_messages_ticket ON support_messages (ticket_id, created_at);

CREATE TABLE support_shots (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT,
    mime            TEXT NOT NULL,
    blob_key        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX support_shots_created ON support_shots (created_at);

CREATE TABLE service_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE service_secrets;
DROP TABLE support_shots;
DROP TABLE support_messages;
DROP TABLE support_tickets;
