-- The library: collections (folders), assets and their tags.
-- An asset's filing fields (sku, kind, fit, wearer, group) are reserved
-- tags in asset_tags (SPEC §2); the guessed flags, the approval and the
-- stored file's facts are columns. Rows of one house only ever point at
-- rows of the same house: the foreign keys carry organization_id.
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE folders (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    parent_id          TEXT,
    name               TEXT NOT NULL,
    created_by_user_id TEXT,
    created_at         BIGINT NOT NULL,
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, parent_id) REFERENCES folders (organization_id, id),
    CHECK (parent_id IS NULL OR parent_id <> id)
);
CREATE INDEX folders_org ON folders (organization_id, created_at);

CREATE TABLE assets (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id  TEXT,
    folder_id           TEXT,
    name                TEXT NOT NULL,
    mime                TEXT NOT NULL,
    width               INTEGER NOT NULL,
    height              INTEGER NOT NULL,
    size_bytes          BIGINT NOT NULL,
    sha256              TEXT NOT NULL,
    blob_key            TEXT NOT NULL,
    tool                TEXT,
    fit_guessed         INTEGER NOT NULL DEFAULT 0,
    wearer_guessed      INTEGER NOT NULL DEFAULT 0,
    mark_guessed        INTEGER NOT NULL DEFAULT 0,
    carries_mark        INTEGER NOT NULL DEFAULT 0,
    approved_by_user_id TEXT,
    approved_at         BIGINT,
    created_at          BIGINT NOT NULL,
    deleted_at          BIGINT,
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, folder_id) REFERENCES folders (organization_id, id),
    CHECK ((approved_by_user_id IS NULL) = (approved_at IS NULL))
);
CREATE INDEX assets_org_created ON assets (organization_id, created_at);
CREATE INDEX assets_org_folder ON assets (organization_id, folder_id, created_at);

CREATE TABLE asset_tags (
    organization_id TEXT NOT NULL,
    asset_id        TEXT NOT NULL,
    tag             TEXT NOT NULL,
    PRIMARY KEY (asset_id, tag),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);
CREATE INDEX asset_tags_org_tag ON asset_tags (organization_id, tag);

-- +goose Down
DROP TABLE asset_tags;
DROP TABLE assets;
DROP TABLE folders;
