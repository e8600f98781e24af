-- A failed develop says why in a code beside its sentence (issue 27):
-- PROVIDER_TIMEOUT for one that passed its render deadline (DECISIONS
-- §11), and the provider failures the engines name (a refused key, no
-- credit at the provider, a refusal by its safety check, a result that is
-- not what the tool makes). NULL for every develop that has not failed,
-- and for failures recorded before this column.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE jobs ADD COLUMN error_code TEXT;

-- +goose Down
ALTER TABLE jobs DROP COLUMN error_code;
