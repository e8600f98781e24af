-- A catalogue face cast in a house's look (issue 13): the face's cover,
-- kept once as the house's own asset (kind model, tool casting), so that a
-- look, its develops and the library name it as any model photograph. One
-- row per (house, face); a cast whose asset was removed is made again and
-- the row points at the new asset. face_id names a casting_faces row, which
-- 00055 creates after this file runs: no foreign key to it here. One
-- portable set for SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE face_casts (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    face_id         TEXT NOT NULL,
    asset_id        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, face_id),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);

-- +goose Down
DROP TABLE face_casts;
