-- The house's assets by the digest of their bytes (sha256, written since
-- 00003 for every row, so nothing is backfilled): a file sent with a
-- submit reuses the house's asset with the same bytes (DECISIONS §10).
-- One portable set for SQLite and PostgreSQL.

-- +goose Up
CREATE INDEX assets_org_sha256 ON assets (organization_id, sha256);

-- +goose Down
DROP INDEX assets_org_sha256;
