-- The analyst's approval of an applicant (SPEC §4.18) keeps its reason
-- beside the decision. One portable set: it runs unchanged on SQLite and
-- PostgreSQL.

-- +goose Up
ALTER TABLE invite_requests ADD COLUMN decision_reason TEXT;
-- The analyst's reads count verdicts and chat turns over a window of hours
-- across houses.
CREATE INDEX verdicts_created ON verdicts (created_at);
CREATE INDEX chat_turns_created ON chat_turns (created_at);

-- +goose Down
DROP INDEX chat_turns_created;
DROP INDEX verdicts_created;
ALTER TABLE invite_requests DROP COLUMN decision_reason;
