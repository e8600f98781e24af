-- Model checkout (issue 18, SPEC §4.10): a checkout and an entitlement may
-- sell a catalogue face (kind 'model', face_id). The kinds are CHECKs, so
-- both tables are rebuilt (the portable way: SQLite cannot alter a CHECK);
-- nothing references them. A house has at most one open checkout per face
-- (a repeat click answers it again).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up

CREATE TABLE billing_checkouts_v2 (
    id                   TEXT PRIMARY KEY,
    organization_id      TEXT NOT NULL REFERENCES organizations (id),
    provider             TEXT NOT NULL,
    provider_checkout_id TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'custom', 'model')),
    tier                 TEXT,
    tokens               BIGINT NOT NULL CHECK (tokens >= 0),
    amount_cents         BIGINT NOT NULL CHECK (amount_cents >= 0),
    url                  TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('open', 'paid')),
    created_by_user_id   TEXT REFERENCES users (id),
    created_at           BIGINT NOT NULL,
    paid_at              BIGINT,
    face_id              TEXT REFERENCES casting_faces (id),
    CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
    CHECK ((kind = 'model') = (face_id IS NOT NULL)),
    UNIQUE (provider, provider_checkout_id),
    UNIQUE (organization_id, id)
);
INSERT INTO billing_checkouts_v2 (id, organization_id, provider, provider_checkout_id, kind, tier, tokens, amount_cents, url,
    status, created_by_user_id, created_at, paid_at)
    SELECT id, organization_id, provider, provider_checkout_id, kind, tier, tokens, amount_cents, url,
    status, created_by_user_id, created_at, paid_at FROM billing_checkouts;
DROP TABLE billing_checkouts;
ALTER TABLE billing_checkouts_v2 RENAME TO billing_checkouts;
CREATE INDEX billing_checkouts_open ON billing_checkouts (organization_id, created_at) WHERE status = 'open';
CREATE UNIQUE INDEX billing_checkouts_open_face ON billing_checkouts (organization_id, provider, face_id) WHERE status = 'open' AND face_id IS NOT NULL;
CREATE INDEX billing_checkouts_face ON billing_checkouts (face_id, created_at) WHERE face_id IS NOT NULL;

CREATE TABLE entitlements_v2 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    provider        TEXT NOT NULL,
    order_id        TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'renewal', 'custom', 'model')),
    tier            TEXT,
    tokens          BIGINT NOT NULL CHECK (tokens >= 0),
    amount_cents    BIGINT NOT NULL CHECK (amount_cents >= 0),
    checkout_id     TEXT,
    subscription_id TEXT,
    credit_id       TEXT,
    created_at      BIGINT NOT NULL,
    face_id         TEXT REFERENCES casting_faces (id),
    claim           TEXT CHECK (claim IN ('purchase', 'exclusive', 'taken')),
    UNIQUE (provider, order_id),
    UNIQUE (organization_id, id)
);
INSERT INTO entitlements_v2 (id, organization_id, provider, order_id, kind, tier, tokens, amount_cents, checkout_id,
    subscription_id, credit_id, created_at)
    SELECT id, organization_id, provider, order_id, kind, tier, tokens, amount_cents, checkout_id,
    subscription_id, credit_id, created_at FROM entitlements;
DROP TABLE entitlements;
ALTER TABLE entitlements_v2 RENAME TO entitlements;
CREATE INDEX entitlements_org ON entitlements (organization_id, created_at);

-- +goose Down
DELETE FROM entitlements WHERE kind = 'model';
DELETE FROM billing_checkouts WHERE kind = 'model';
CREATE TABLE entitlements_v1 (
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
INSERT INTO entitlements_v1 SELECT id, organization_id, provider, order_id, kind, tier, tokens, amount_cents, checkout_id,
    subscription_id, credit_id, created_at FROM entitlements;
DROP TABLE entitlements;
ALTER TABLE entitlements_v1 RENAME TO entitlements;
CREATE INDEX entitlements_org ON entitlements (organization_id, created_at);
CREATE TABLE billing_checkouts_v1 (
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
INSERT INTO billing_checkouts_v1 SELECT id, organization_id, provider, provider_checkout_id, kind, tier, tokens, amount_cents, url,
    status, created_by_user_id, created_at, paid_at FROM billing_checkouts;
DROP TABLE billing_checkouts;
ALTER TABLE billing_checkouts_v1 RENAME TO billing_checkouts;
CREATE INDEX billing_checkouts_open ON billing_checkouts (organization_id, created_at) WHERE status = 'open';
