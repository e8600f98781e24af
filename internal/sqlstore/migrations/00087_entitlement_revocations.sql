-- Revoking an entitlement (issue 16, SPEC §4.17): an operator ends what a
-- paid order gave a house. History is never edited: the revocation is a row
-- of its own, and what it takes back from the order's credit is a ledger
-- row of its own.
--
-- ledger_revocations: tokens taken back from a credit. The row without a
-- hold is the revocation itself (the credit's unreserved tokens when it was
-- revoked; a credit is revoked at most once). Tokens pending holds had
-- reserved on it stay theirs: a hold posted later spent them; a hold voided
-- later gives them to a row naming that hold, never back to the credit, so
-- a revoked credit never grows again. CheckLedger: amount = available +
-- reserved by pending holds + debited + revoked.
--
-- entitlement_revocations: which entitlement, by whom, why, and the figures
-- the first answer gave (a repeat answers them again). The entitlements
-- table is created by a later-numbered migration (00100) on a fresh
-- database, so this one cannot reference it.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE ledger_revocations (
    organization_id TEXT NOT NULL,
    credit_id       TEXT NOT NULL,
    hold_id         TEXT,
    tokens          BIGINT NOT NULL CHECK (tokens >= 0),
    created_at      BIGINT NOT NULL,
    FOREIGN KEY (organization_id, credit_id) REFERENCES ledger_credits (organization_id, id),
    FOREIGN KEY (organization_id, hold_id) REFERENCES ledger_holds (organization_id, id),
    UNIQUE (organization_id, credit_id, hold_id)
);
CREATE UNIQUE INDEX ledger_revocations_credit ON ledger_revocations (organization_id, credit_id) WHERE hold_id IS NULL;

CREATE TABLE entitlement_revocations (
    entitlement_id     TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    credit_id          TEXT,
    tokens_taken       BIGINT NOT NULL CHECK (tokens_taken >= 0),
    tokens_pending     BIGINT NOT NULL CHECK (tokens_pending >= 0),
    claim_released     INTEGER NOT NULL CHECK (claim_released IN (0, 1)),
    reason             TEXT,
    revoked_by_user_id TEXT REFERENCES users (id),
    revoked_at         BIGINT NOT NULL,
    UNIQUE (organization_id, entitlement_id)
);
CREATE INDEX entitlement_revocations_credit ON entitlement_revocations (organization_id, credit_id);

-- +goose Down
DROP TABLE entitlement_revocations;
DROP TABLE ledger_revocations;
