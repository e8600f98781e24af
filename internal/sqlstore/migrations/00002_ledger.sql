-- The token ledger (DECISIONS §4): each house's plan, its credits (grants and
-- top-ups), the holds that reserve tokens before work is queued, which
-- credits each hold reserved, and the debits a posted hold left behind.
-- Balance parts are sums over these rows; no table keeps a house balance.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up

-- One plan row per house, written when the house opens (a trial).
CREATE TABLE plans (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    tier            TEXT NOT NULL CHECK (tier IN ('trial', 'studio', 'atelier', 'maison')),
    status          TEXT NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'canceled')),
    period_start    BIGINT NOT NULL,
    renews_at       BIGINT,
    ends_at         BIGINT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    CHECK (status <> 'canceled' OR ends_at IS NOT NULL)
);

-- A credit: tokens the house may spend. amount never changes. available is
-- the part no hold has reserved: a hold moves tokens out of it, a void moves
-- them back, a post leaves it alone (the reserved tokens become debits), so
-- amount = available + reserved by pending holds + debited, always
-- (sqlstore.CheckLedger proves it). A grant stops counting at expires_at.
CREATE TABLE ledger_credits (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    kind               TEXT NOT NULL CHECK (kind IN ('grant', 'topup')),
    source             TEXT NOT NULL CHECK (source <> ''),
    amount             BIGINT NOT NULL CHECK (amount > 0),
    available          BIGINT NOT NULL,
    expires_at         BIGINT,
    reference          TEXT UNIQUE,
    reason             TEXT,
    granted_by_user_id TEXT REFERENCES users (id),
    created_at         BIGINT NOT NULL,
    CHECK (available >= 0 AND available <= amount),
    CHECK (kind = 'grant' OR expires_at IS NULL),
    CHECK (expires_at IS NULL OR expires_at > created_at),
    UNIQUE (organization_id, id)
);
-- Live credits, for taking holds and reading the balance: only credits with
-- unreserved tokens, and covering, so a house's spent history is never read.
CREATE INDEX ledger_credits_live ON ledger_credits (organization_id, kind, expires_at, created_at, id, available)
    WHERE available > 0;

-- A hold: pending, then posted or voided exactly once. A job has at most one.
CREATE TABLE ledger_holds (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    job_id          TEXT UNIQUE,
    tokens          BIGINT NOT NULL CHECK (tokens > 0),
    state           TEXT NOT NULL CHECK (state IN ('pending', 'posted', 'voided')),
    user_id         TEXT REFERENCES users (id),
    created_at      BIGINT NOT NULL,
    resolved_at     BIGINT,
    CHECK ((state = 'pending') = (resolved_at IS NULL)),
    UNIQUE (organization_id, id)
);
-- Open holds: the balance lists them and sums them as held.
CREATE INDEX ledger_holds_pending ON ledger_holds (organization_id, created_at, id) WHERE state = 'pending';

-- What a hold reserved, credit by credit, when it was taken. The composite
-- keys keep a hold and its credits in one house. Reservations are only ever
-- read by hold (the primary key); there is deliberately no index leading
-- with organization_id, which SQLite would otherwise prefer (it covers) and
-- scan every reservation the house ever made.
CREATE TABLE ledger_hold_credits (
    hold_id         TEXT NOT NULL,
    credit_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    tokens          BIGINT NOT NULL CHECK (tokens > 0),
    PRIMARY KEY (hold_id, credit_id),
    FOREIGN KEY (organization_id, hold_id) REFERENCES ledger_holds (organization_id, id),
    FOREIGN KEY (organization_id, credit_id) REFERENCES ledger_credits (organization_id, id)
);

-- What a posted hold consumed, from which credit: exactly its reservation
-- (the key makes a second debit of one reservation impossible).
CREATE TABLE ledger_debits (
    hold_id         TEXT NOT NULL,
    credit_id       TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    tokens          BIGINT NOT NULL CHECK (tokens > 0),
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (hold_id, credit_id),
    FOREIGN KEY (hold_id, credit_id) REFERENCES ledger_hold_credits (hold_id, credit_id),
    FOREIGN KEY (organization_id, hold_id) REFERENCES ledger_holds (organization_id, id)
);
CREATE INDEX ledger_debits_org ON ledger_debits (organization_id, created_at);

-- +goose Down
DROP TABLE ledger_debits;
DROP TABLE ledger_hold_credits;
DROP TABLE ledger_holds;
DROP TABLE ledger_credits;
DROP TABLE plans;
