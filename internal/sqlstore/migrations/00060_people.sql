-- People (issue 14): seat invitations, the door in (operators' invite codes
-- and users' referral codes, invitations that open the door for one
-- address, the applicant list), avatars, and the workflow a hold paid for
-- (the account view's spend per tool).
-- One portable set: it runs unchanged on SQLite and PostgreSQL.

-- +goose Up

-- An offer of a seat in a house to an e-mail address. A re-invite marks
-- the pending offer superseded in the same write, so a house has at most one
-- pending offer per address. invited_by_user_id becomes null when the
-- inviter erases their account.
CREATE TABLE seat_invitations (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id),
    email              TEXT NOT NULL,
    role               TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
    status             TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'superseded')),
    invited_by_user_id TEXT REFERENCES users (id),
    expires_at         BIGINT NOT NULL,
    created_at         BIGINT NOT NULL,
    accepted_at        BIGINT,
    UNIQUE (organization_id, id),
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL))
);
CREATE UNIQUE INDEX seat_invitations_pending ON seat_invitations (organization_id, email) WHERE status = 'pending';
CREATE INDEX seat_invitations_email ON seat_invitations (email);
CREATE INDEX seat_invitations_house ON seat_invitations (organization_id, created_at);

-- A code that opens the door: LABEL-XXXXXX (a vanity label, a dash and six
-- Crockford base32 characters). Operators mint codes (owner_user_id null);
-- every user has at most one referral code of their own (owner_user_id
-- set). used_count counts the addresses it opened the door for (never more
-- than max_uses), joined_count those that then signed up.
CREATE TABLE invite_codes (
    id                 TEXT PRIMARY KEY,
    code               TEXT NOT NULL UNIQUE,
    label              TEXT NOT NULL,
    grant_tokens       BIGINT NOT NULL CHECK (grant_tokens >= 0),
    max_uses           BIGINT NOT NULL CHECK (max_uses >= 1),
    used_count         BIGINT NOT NULL DEFAULT 0,
    joined_count       BIGINT NOT NULL DEFAULT 0,
    owner_user_id      TEXT UNIQUE REFERENCES users (id),
    created_by_user_id TEXT REFERENCES users (id),
    expires_at         BIGINT,
    revoked_at         BIGINT,
    created_at         BIGINT NOT NULL,
    CHECK (used_count >= 0 AND used_count <= max_uses),
    CHECK (joined_count >= 0 AND joined_count <= used_count)
);
CREATE INDEX invite_codes_created ON invite_codes (created_at);

-- The door: an address that may sign up while STUDIO_SIGNUP=invite, and the
-- grant its new house receives. kind admin: an operator's invitation, whose
-- link carries a token (stored hashed), issued then accepted; kind code: a
-- redeemed invite code, opened. One row per address and kind.
CREATE TABLE invitations (
    id                 TEXT PRIMARY KEY,
    email              TEXT NOT NULL,
    kind               TEXT NOT NULL CHECK (kind IN ('admin', 'code')),
    token_hash         TEXT UNIQUE,
    code_id            TEXT REFERENCES invite_codes (id),
    grant_tokens       BIGINT NOT NULL DEFAULT 0 CHECK (grant_tokens >= 0),
    status             TEXT NOT NULL CHECK (status IN ('issued', 'opened', 'accepted')),
    invited_by_user_id TEXT REFERENCES users (id),
    user_id            TEXT REFERENCES users (id),
    created_at         BIGINT NOT NULL,
    accepted_at        BIGINT,
    joined_at          BIGINT,
    UNIQUE (email, kind),
    CHECK ((kind = 'admin') = (token_hash IS NOT NULL)),
    CHECK ((kind = 'code') = (code_id IS NOT NULL)),
    CHECK ((status = 'accepted') = (accepted_at IS NOT NULL))
);
CREATE INDEX invitations_code ON invitations (code_id, created_at);
CREATE INDEX invitations_user ON invitations (user_id);

-- The applicant list: people who asked to be let in (SPEC §3 Invitation
-- applicant). details is the rest of the request as JSON.
CREATE TABLE invite_requests (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    house      TEXT,
    website    TEXT,
    details    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'invited', 'declined')),
    created_at BIGINT NOT NULL,
    decided_at BIGINT
);
CREATE INDEX invite_requests_status ON invite_requests (status, created_at);

-- A user's picture: its bytes are the blob avatars/<user id>; users.image
-- is its path with a ?v= stamp of the bytes, avatar_mime their type.
ALTER TABLE users ADD COLUMN avatar_mime TEXT;

-- The workflow a hold pays for: the job's tool, or the lane's name for a
-- hold that belongs to no job (today only the upload classifier's).
ALTER TABLE ledger_holds ADD COLUMN workflow TEXT NOT NULL DEFAULT '';
UPDATE ledger_holds SET workflow = COALESCE((SELECT tool FROM jobs WHERE jobs.id = ledger_holds.job_id), 'classify');
-- Spend over a window: posted holds of a house by the time they settled.
CREATE INDEX ledger_holds_posted ON ledger_holds (organization_id, resolved_at) WHERE state = 'posted';

-- +goose Down
DROP INDEX ledger_holds_posted;
ALTER TABLE ledger_holds DROP COLUMN workflow;
ALTER TABLE users DROP COLUMN avatar_mime;
DROP TABLE invite_requests;
DROP TABLE invitations;
DROP TABLE invite_codes;
DROP TABLE seat_invitations;
