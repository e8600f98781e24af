-- Money (issue 18, DECISIONS §10): checkouts opened with the payment
-- provider, the provider's deliveries seen (de-duplicated on webhook-id),
-- the entitlements its paid orders wrote (one per provider order), and the
-- house's subscription on its plan row. Only the payment webhook writes
-- entitlements, plan moves and purchased credits.
-- Provider ids (checkout, order, subscription, delivery) are global by
-- nature, so their unique keys name the provider, not the house.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up

-- An open checkout: recorded when a checkout route answers the provider's
-- hosted URL; paid when the provider's order for it arrives.
CREATE TABLE billing_checkouts (
    id                   TEXT PRIMARY KEY,
    organization_id      TEXT NOT NULL REFERENCES organizations (id),
    provider             TEXT NOT NULL,
    provider_checkout_id TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'custom')),
    tier                 TEXT,
    tokens               BIGINT NOT NULL CHECK (tokens >= 0),
    amount_cents         BIGINT NOT NULL CHECK (amount_cents >= 0),
    url                  TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('open', 'paid')),
    created_by_user_id   TEXT REFERENCES users (id),
    created_at           BIGINT NOT NULL,
    paid_at              BIGINT,
    CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
    UNIQUE (provider, provider_checkout_id),
    UNIQUE (organization_id, id)
);
CREATE INDEX billing_checkouts_open ON billing_checkouts (organization_id, created_at) WHERE status = 'open';

-- Every verified delivery, once: a second delivery with the same
-- webhook-id changes nothing.
CREATE TABLE billing_deliveries (
    provider    TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (provider, delivery_id)
);

-- What a paid order entitled the house to: one row per provider order.
CREATE TABLE entitlements (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    provider        TEXT NOT NULL,
    order_id        TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'renewal', 'custom')),
    tier            TEXT,
    tokens          BIGINT NOT NULL CHECK (tokens >= 0),
    amount_cents    BIGINT NOT NULL CHECK (amount_cents >= 0),
    checkout_id     TEXT,
    subscription_id TEXT,
    credit_id       TEXT,
    created_at      BIGINT NOT NULL,
    UNIQUE (provider, order_id),
    UNIQUE (organization_id, id)
);
CREATE INDEX entitlements_org ON entitlements (organization_id, created_at);

-- The house as the provider's customer.
CREATE TABLE billing_customers (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    provider        TEXT NOT NULL,
    customer_id     TEXT NOT NULL,
    PRIMARY KEY (organization_id, provider),
    UNIQUE (provider, customer_id)
);

-- Where the house's billing letters go, when an owner chose an address
-- (else the first owner's).
CREATE TABLE billing_settings (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    email           TEXT NOT NULL,
    updated_at      BIGINT NOT NULL
);

-- The subscription a plan row mirrors (null for a trial).
ALTER TABLE plans ADD COLUMN provider TEXT;
ALTER TABLE plans ADD COLUMN subscription_id TEXT;
CREATE UNIQUE INDEX plans_subscription ON plans (provider, subscription_id);

-- +goose Down
DROP INDEX plans_subscription;
ALTER TABLE plans DROP COLUMN subscription_id;
ALTER TABLE plans DROP COLUMN provider;
DROP TABLE billing_settings;
DROP TABLE billing_customers;
DROP TABLE entitlements;
DROP TABLE billing_deliveries;
DROP TABLE billing_checkouts;
