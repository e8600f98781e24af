-- The referral program's host reward (issue 18; invite.Referral*): written
-- once per invitation when the guest's house pays its first subscription
-- (the provider's delivery), held holdDays, then credited to the host's
-- personal house once (credited_at), or voided when the guest's
-- subscription is revoked before that. organization_id is the host's house;
-- the guest's house and the invitation are named without a reference, so
-- closing either leaves the record.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE referral_rewards (
    id                    TEXT PRIMARY KEY,
    organization_id       TEXT NOT NULL REFERENCES organizations (id),
    host_user_id          TEXT REFERENCES users (id),
    invitation_id         TEXT NOT NULL UNIQUE,
    guest_organization_id TEXT NOT NULL,
    entitlement_id        TEXT NOT NULL,
    tokens                BIGINT NOT NULL CHECK (tokens > 0),
    due_at                BIGINT NOT NULL,
    credited_at           BIGINT,
    credit_id             TEXT,
    voided_at             BIGINT,
    created_at            BIGINT NOT NULL,
    CHECK (credited_at IS NULL OR voided_at IS NULL),
    UNIQUE (organization_id, id)
);
CREATE INDEX referral_rewards_due ON referral_rewards (due_at) WHERE credited_at IS NULL AND voided_at IS NULL;
CREATE INDEX referral_rewards_guest ON referral_rewards (guest_organization_id);

-- +goose Down
DROP TABLE referral_rewards;
