-- The studio assistant's conversations (SPEC §2 Chat session, §4.12). A
-- session belongs to one user in one house; a turn keeps the director's
-- message, the assistant's answer and the mutations it applied (JSON). A
-- turn's id may come from the client (turnId), so it is unique per house,
-- not globally. User columns carry no foreign key: erasing a user erases
-- their conversations (README, "People").
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE chat_sessions (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    user_id         TEXT NOT NULL,
    title           TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    last_turn_at    BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX chat_sessions_user ON chat_sessions (organization_id, user_id, last_turn_at);

CREATE TABLE chat_turns (
    organization_id TEXT NOT NULL,
    id              TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    message         TEXT NOT NULL,
    reply           TEXT NOT NULL,
    applied         TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, id),
    FOREIGN KEY (organization_id, session_id) REFERENCES chat_sessions (organization_id, id)
);
CREATE INDEX chat_turns_session ON chat_turns (organization_id, session_id, created_at);

-- +goose Down
DROP TABLE chat_turns;
DROP TABLE chat_sessions;
