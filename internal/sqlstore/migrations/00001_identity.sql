-- Identity: users, houses (organizations), seats, sessions, API keys, the
-- email log, and the fixed-window counters behind rate limits.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    email          TEXT NOT NULL UNIQUE,
    email_verified INTEGER NOT NULL DEFAULT 0,
    image          TEXT,
    password_hash  TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE TABLE organizations (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    personal        INTEGER NOT NULL DEFAULT 0,
    founder_user_id TEXT REFERENCES users (id),
    event_seq       BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL
);

CREATE TABLE seats (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX seats_user ON seats (user_id);

CREATE TABLE sessions (
    id                     TEXT PRIMARY KEY,
    token_hash             TEXT NOT NULL UNIQUE,
    user_id                TEXT NOT NULL REFERENCES users (id),
    active_organization_id TEXT NOT NULL REFERENCES organizations (id),
    expires_at             BIGINT NOT NULL,
    created_at             BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE api_keys (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    name            TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'member')),
    prefix          TEXT NOT NULL,
    key_hash        TEXT NOT NULL UNIQUE,
    last_used_at    BIGINT,
    revoked_at      BIGINT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX api_keys_org ON api_keys (organization_id, created_at);

CREATE TABLE email_verifications (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    expires_at BIGINT NOT NULL
);

CREATE TABLE email_log (
    id          TEXT PRIMARY KEY,
    user_id     TEXT,
    to_addr     TEXT NOT NULL,
    template    TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body_text   TEXT NOT NULL,
    status      TEXT NOT NULL,
    provider_id TEXT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX email_log_created ON email_log (created_at);

CREATE TABLE rate_counters (
    k TEXT NOT NULL,
    w BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (k, w)
);

CREATE TABLE posts (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    author_id       TEXT NOT NULL REFERENCES users (id),
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX posts_org ON posts (organization_id, id);

-- +goose Down
DROP TABLE posts;
DROP TABLE rate_counters;
DROP TABLE email_log;
DROP TABLE email_verifications;
DROP TABLE api_keys;
DROP TABLE sessions;
DROP TABLE seats;
DROP TABLE organizations;
DROP TABLE users;
