-- Outbound webhooks (SPEC §4.14, §5 rules 9-10, §6; DECISIONS §8). A house
-- registers endpoints (https URL, the events it hears, the whsec_ secret it
-- signs with; disabled_at is set when a delivery is answered 410 Gone).
-- webhook_deliveries is the outbox: one row per (message, endpoint), written
-- in the transaction whose state it reports and sent after commit by a
-- worker holding a lease (lease_owner, lease_until). message_id is the
-- webhook-id header, the same on every attempt and for every endpoint that
-- hears the message. status: pending (next_at says when), delivered, failed.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT,
    url                TEXT NOT NULL,
    events             TEXT NOT NULL,
    secret             TEXT NOT NULL,
    disabled_at        BIGINT,
    created_at         BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX webhook_endpoints_house ON webhook_endpoints (organization_id, created_at);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    endpoint_id     TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    event           TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         BIGINT NOT NULL,
    lease_owner     TEXT,
    lease_until     BIGINT,
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    BIGINT,
    created_at      BIGINT NOT NULL,
    UNIQUE (organization_id, endpoint_id, message_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (organization_id, endpoint_id, created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
