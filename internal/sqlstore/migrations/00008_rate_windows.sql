-- Rate limits (internal/ratelimit): each fixed window of a counter records
-- when it ends, so windows of any length (a minute, an hour, a week) can be
-- pruned once they no longer limit anyone. Rows written before this
-- migration get 0 and go at the first prune. One portable set for SQLite
-- and PostgreSQL.

-- +goose Up
ALTER TABLE rate_counters ADD COLUMN ends_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX rate_counters_ends ON rate_counters (ends_at);

-- +goose Down
DROP INDEX rate_counters_ends;
ALTER TABLE rate_counters DROP COLUMN ends_at;
