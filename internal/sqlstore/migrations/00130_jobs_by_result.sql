-- The develop that made a frame, found by the frame (MCP get_verdict by
-- assetId, issue 31): jobs are read by house and result asset.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE INDEX jobs_house_result ON jobs (organization_id, result_asset_id) WHERE result_asset_id IS NOT NULL;

-- +goose Down
DROP INDEX jobs_house_result;
