-- What each AI lane call cost (issue 13): the model that answered, the
-- tokens the provider counted and the dollars it stated (usage.cost, when
-- a gateway states one), per call that reached the provider, answered or
-- not (a provider bills a bad answer too). For operators only (the admin
-- ai-costs route sums cost_usd beside the DNA reads' and the verdicts');
-- never on a house's wire. One portable set for SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE ai_calls (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id),
    user_id           TEXT REFERENCES users (id),
    lane              TEXT NOT NULL CHECK (lane <> ''),
    model             TEXT,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd          DOUBLE PRECISION NOT NULL DEFAULT 0,
    latency_ms        BIGINT NOT NULL DEFAULT 0,
    ok                INTEGER NOT NULL CHECK (ok IN (0, 1)),
    created_at        BIGINT NOT NULL
);
CREATE INDEX ai_calls_created ON ai_calls (created_at);
CREATE INDEX ai_calls_house ON ai_calls (organization_id, created_at);

-- +goose Down
DROP INDEX ai_calls_house;
DROP INDEX ai_calls_created;
DROP TABLE ai_calls;
