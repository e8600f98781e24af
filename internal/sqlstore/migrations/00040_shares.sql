-- Share links (SPEC §2 Share and Share mark, §3 Share, §4.11). A link is an
-- ordered snapshot of a house's assets (share_frames, i from 0) sent to a
-- reviewer without an account; only the SHA-256 of its token is stored
-- (token_hash, looked up by every reviewer request), with the token's first
-- characters as a hint for the list. mark_seq counts mark requests: the one
-- that takes it from 0 to 1 raises share.marked; notified_seq is the
-- mark_seq the last notifying finish saw. share_marks holds one row per
-- (link, frame); asset_id repeats the frame's asset for the director's reads.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE shares (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT NOT NULL REFERENCES users (id),
    token_hash         TEXT NOT NULL UNIQUE,
    token_hint         TEXT NOT NULL,
    recipient_label    TEXT,
    email              TEXT,
    message            TEXT,
    frames             INTEGER NOT NULL CHECK (frames BETWEEN 1 AND 60),
    mark_seq           BIGINT NOT NULL DEFAULT 0,
    notified_seq       BIGINT NOT NULL DEFAULT 0,
    finished_at        BIGINT,
    expires_at         BIGINT NOT NULL,
    revoked_at         BIGINT,
    created_at         BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX shares_house ON shares (organization_id, created_at);

CREATE TABLE share_frames (
    organization_id TEXT NOT NULL,
    share_id        TEXT NOT NULL,
    i               INTEGER NOT NULL CHECK (i >= 0 AND i < 60),
    asset_id        TEXT NOT NULL,
    note            TEXT,
    PRIMARY KEY (share_id, i),
    FOREIGN KEY (organization_id, share_id) REFERENCES shares (organization_id, id),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);
CREATE INDEX share_frames_asset ON share_frames (organization_id, asset_id);

CREATE TABLE share_marks (
    organization_id TEXT NOT NULL,
    share_id        TEXT NOT NULL,
    i               INTEGER NOT NULL,
    asset_id        TEXT NOT NULL,
    verdict         TEXT CHECK (verdict IN ('keep', 'pass')),
    note            TEXT,
    drawings        TEXT NOT NULL DEFAULT '[]',
    exports         INTEGER NOT NULL DEFAULT 0,
    exported_at     BIGINT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (share_id, i),
    FOREIGN KEY (share_id, i) REFERENCES share_frames (share_id, i),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);
CREATE INDEX share_marks_asset ON share_marks (organization_id, asset_id, updated_at);
CREATE INDEX share_marks_house ON share_marks (organization_id, updated_at);

-- +goose Down
DROP TABLE share_marks;
DROP TABLE share_frames;
DROP TABLE shares;
