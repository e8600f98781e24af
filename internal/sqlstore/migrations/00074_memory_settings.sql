-- Whether a house lets its memory reach develop prompts (issue 15: "where
-- the house enables it"). No row reads as off. The person who last changed
-- it is kept for the house's record; erasure clears the column.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE memory_settings (
    organization_id    TEXT PRIMARY KEY REFERENCES organizations (id),
    develops           INTEGER NOT NULL CHECK (develops IN (0, 1)),
    updated_by_user_id TEXT,
    updated_at         BIGINT NOT NULL
);

-- +goose Down
DROP TABLE memory_settings;
