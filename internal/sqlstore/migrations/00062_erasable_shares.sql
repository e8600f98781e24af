-- A share link outlives its minter's account (issue 14, POST /me/delete):
-- shares.created_by_user_id becomes nullable, so an erased minter leaves
-- the link, its frames and its reviewers' marks with the house. SQLite
-- cannot drop NOT NULL, and share_frames and share_marks refer to shares,
-- so the three tables are rebuilt together: new tables referring to each
-- other, rows copied parent first, the old ones dropped children first,
-- the new ones renamed (SQLite rewrites the references to a renamed table;
-- PostgreSQL's follow the table), indexes made again under their names.
-- The same statements run on PostgreSQL.

-- +goose Up
CREATE TABLE shares_v62 (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT REFERENCES users (id),
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
CREATE TABLE share_frames_v62 (
    organization_id TEXT NOT NULL,
    share_id        TEXT NOT NULL,
    i               INTEGER NOT NULL CHECK (i >= 0 AND i < 60),
    asset_id        TEXT NOT NULL,
    note            TEXT,
    PRIMARY KEY (share_id, i),
    FOREIGN KEY (organization_id, share_id) REFERENCES shares_v62 (organization_id, id),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);
CREATE TABLE share_marks_v62 (
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
    FOREIGN KEY (share_id, i) REFERENCES share_frames_v62 (share_id, i),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);

INSERT INTO shares_v62 (id, organization_id, created_by_user_id, token_hash, token_hint, recipient_label, email, message,
    frames, mark_seq, notified_seq, finished_at, expires_at, revoked_at, created_at)
SELECT id, organization_id, created_by_user_id, token_hash, token_hint, recipient_label, email, message,
    frames, mark_seq, notified_seq, finished_at, expires_at, revoked_at, created_at
FROM shares;
INSERT INTO share_frames_v62 (organization_id, share_id, i, asset_id, note)
SELECT organization_id, share_id, i, asset_id, note FROM share_frames;
INSERT INTO share_marks_v62 (organization_id, share_id, i, asset_id, verdict, note, drawings, exports, exported_at,
    created_at, updated_at)
SELECT organization_id, share_id, i, asset_id, verdict, note, drawings, exports, exported_at, created_at, updated_at
FROM share_marks;

DROP TABLE share_marks;
DROP TABLE share_frames;
DROP TABLE shares;
ALTER TABLE shares_v62 RENAME TO shares;
ALTER TABLE share_frames_v62 RENAME TO share_frames;
ALTER TABLE share_marks_v62 RENAME TO share_marks;

CREATE INDEX shares_house ON shares (organization_id, created_at);
CREATE INDEX share_frames_asset ON share_frames (organization_id, asset_id);
CREATE INDEX share_marks_asset ON share_marks (organization_id, asset_id, updated_at);
CREATE INDEX share_marks_house ON share_marks (organization_id, updated_at);

-- +goose Down
-- Forward only: a null minter has no user to restore.
SELECT 1;
