-- The casting board (SPEC §2 Model, §4.10). casting_faces is the service's
-- catalogue, loaded by operators (`studio models import DIR`); it belongs to
-- no house, on purpose, and its unique key is the manifest's key.
-- face_claims are the houses' holds on faces (a purchase, or the one live
-- exclusive claim a face may carry). house_models are the models a house
-- made from its own photographs; house_model_assets is each one's dossier
-- (collage, sheets, originals, each in order). A locked look records the
-- collage of the model it cast as its base frame's parent.

-- +goose Up
CREATE TABLE casting_faces (
    id            TEXT PRIMARY KEY,
    catalogue_key TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    tier          TEXT NOT NULL CHECK (tier IN ('free', 'sale', 'exclusive')),
    price_cents   BIGINT NOT NULL CHECK (price_cents >= 0),
    currency      TEXT NOT NULL,
    images        TEXT NOT NULL,
    traits        TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX casting_faces_created ON casting_faces (created_at);

CREATE TABLE face_claims (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    face_id         TEXT NOT NULL REFERENCES casting_faces (id),
    kind            TEXT NOT NULL CHECK (kind IN ('purchase', 'exclusive')),
    created_at      BIGINT NOT NULL,
    released_at     BIGINT,
    PRIMARY KEY (organization_id, face_id)
);
CREATE UNIQUE INDEX face_claims_one_exclusive ON face_claims (face_id) WHERE kind = 'exclusive' AND released_at IS NULL;

CREATE TABLE house_models (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    created_by_user_id TEXT,
    name               TEXT NOT NULL,
    traits             TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    UNIQUE (organization_id, id)
);
CREATE INDEX house_models_created ON house_models (organization_id, created_at);

CREATE TABLE house_model_assets (
    organization_id TEXT NOT NULL,
    model_id        TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('collage', 'sheet', 'original')),
    position        INTEGER NOT NULL,
    asset_id        TEXT NOT NULL,
    PRIMARY KEY (organization_id, model_id, role, position),
    FOREIGN KEY (organization_id, model_id) REFERENCES house_models (organization_id, id),
    FOREIGN KEY (organization_id, asset_id) REFERENCES assets (organization_id, id)
);
CREATE INDEX house_model_assets_asset ON house_model_assets (organization_id, asset_id);

ALTER TABLE looks ADD COLUMN look_base_parent_asset_id TEXT;

-- +goose Down
ALTER TABLE looks DROP COLUMN look_base_parent_asset_id;
DROP TABLE house_model_assets;
DROP TABLE house_models;
DROP TABLE face_claims;
DROP TABLE casting_faces;
