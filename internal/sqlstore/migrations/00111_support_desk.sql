-- The help desk answers (issue 28): operators close and reopen tickets.
-- A closed ticket keeps its status column (open) and gets closed_at; the
-- wire shows it as closed. The desk lists tickets of every house by their
-- latest message.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
ALTER TABLE support_tickets ADD COLUMN closed_at BIGINT;
CREATE INDEX support_tickets_last ON support_tickets (last_message_at);

-- +goose Down
DROP INDEX support_tickets_last;
ALTER TABLE support_tickets DROP COLUMN closed_at;
