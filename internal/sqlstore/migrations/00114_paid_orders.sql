-- A paid order grants what was paid for, once (issue 28, DECISIONS §11).
--
-- billing_checkout_grants: the one grant of a checkout. A checkout grants
-- at most once, whatever the order ids its deliveries carry: the primary
-- key is the checkout.
--
-- billing_refusals: an order the service would not grant (its amount or
-- currency is not the checkout's price, or its customer is another
-- house's), once per order: the provider's retries, and other deliveries
-- of the order, change nothing and raise no second alert.
--
-- billing_sub_events: every event of a subscription the provider sent
-- (payments, cancels, status changes), with when it happened (the
-- delivery's timestamp). A plan's status is the fold of its subscription's
-- events in the order they happened, not the order they arrived: a cancel
-- that arrives before the first payment is kept here and counts when the
-- payment lands. Events of one instant count in the order they arrived.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE billing_checkout_grants (
    provider       TEXT NOT NULL,
    checkout_id    TEXT NOT NULL,
    entitlement_id TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (provider, checkout_id)
);

CREATE TABLE billing_refusals (
    provider        TEXT NOT NULL,
    order_id        TEXT NOT NULL,
    organization_id TEXT,
    reason          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (provider, order_id)
);

CREATE TABLE billing_sub_events (
    provider        TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    delivery_id     TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    occurred_at     BIGINT NOT NULL,
    period_end      BIGINT,
    ends_at         BIGINT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (provider, subscription_id, delivery_id)
);

-- What was there before: each checkout already granted grants no more;
-- each plan that mirrors a subscription has the events its row stands for
-- (its last payment, then its cancel or failed renewal), so that the fold
-- of later events starts from it.
INSERT INTO billing_checkout_grants (provider, checkout_id, entitlement_id, created_at)
SELECT provider, checkout_id, MIN(id), MIN(created_at) FROM entitlements
WHERE checkout_id IS NOT NULL GROUP BY provider, checkout_id;

INSERT INTO billing_sub_events (provider, subscription_id, delivery_id, event_type, occurred_at, period_end, ends_at, created_at)
SELECT provider, subscription_id, 'migrated:paid', 'order.paid', period_start, renews_at, NULL, period_start FROM plans
WHERE provider IS NOT NULL AND subscription_id IS NOT NULL;

INSERT INTO billing_sub_events (provider, subscription_id, delivery_id, event_type, occurred_at, period_end, ends_at, created_at)
SELECT provider, subscription_id, 'migrated:status',
    CASE status WHEN 'canceled' THEN 'subscription.canceled' ELSE 'subscription.past_due' END,
    updated_at, NULL, ends_at, updated_at FROM plans
WHERE provider IS NOT NULL AND subscription_id IS NOT NULL AND status IN ('canceled', 'past_due');

-- +goose Down
DROP TABLE billing_sub_events;
DROP TABLE billing_refusals;
DROP TABLE billing_checkout_grants;
