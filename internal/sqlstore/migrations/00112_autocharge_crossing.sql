-- Auto top-up fires by itself (issue 28): when a settle leaves a house's
-- spendable balance below its rule's threshold, once per crossing. armed
-- says the balance was last seen at or above the threshold (a settle that
-- finds it below disarms the rule and queues a charge; one that finds it at
-- or above arms it again). billing_autocharge_due is the queue: at most one
-- charge waiting per house, written in the settle's transaction and taken
-- by a worker with a lease.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE billing_autocharge ADD COLUMN armed INTEGER NOT NULL DEFAULT 1 CHECK (armed IN (0, 1));

CREATE TABLE billing_autocharge_due (
    organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
    crossed_at      BIGINT NOT NULL,
    lease_until     BIGINT
);

-- +goose Down
DROP TABLE billing_autocharge_due;
ALTER TABLE billing_autocharge DROP COLUMN armed;
