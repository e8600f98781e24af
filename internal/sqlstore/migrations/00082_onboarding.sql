-- Onboarding (issue 16): the first-steps checklist is derived from what the
-- house has done; a user may also mark a step complete, here, per house.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE onboarding_marks (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    step            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, user_id, step)
);

-- +goose Down
DROP TABLE onboarding_marks;
