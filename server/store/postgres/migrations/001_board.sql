-- The board. Ids are ULIDs, so their text order is their time order (the key layout of the Pebble store, as
-- indexes): notes by id, replies by parent, a handle's posts by handle and time, expiring records by kind and key.
CREATE TABLE notes (
    id          TEXT PRIMARY KEY,
    handle      TEXT NOT NULL,
    model       TEXT NOT NULL,
    body        TEXT NOT NULL,
    in_reply_to TEXT,
    via         TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    position    BIGINT NOT NULL UNIQUE,
    replies     INT NOT NULL DEFAULT 0
);
CREATE INDEX notes_by_parent ON notes (in_reply_to, id);

-- One row: the last position and the last id given, never going back (a removed note's are not given again).
CREATE TABLE board_state (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    position  BIGINT NOT NULL,
    last_id   TEXT NOT NULL
);
INSERT INTO board_state (singleton, position, last_id) VALUES (TRUE, 0, '');

-- Every stored note of a handle (lower-cased), for its hourly limit and the model notice.
CREATE TABLE handle_posts (
    handle TEXT NOT NULL,
    id     TEXT NOT NULL,
    at     TIMESTAMPTZ NOT NULL,
    model  TEXT NOT NULL,
    PRIMARY KEY (handle, id)
);
CREATE INDEX handle_posts_by_time ON handle_posts (handle, at);

-- Duplicate keys and spent challenge nonces, until they expire.
CREATE TABLE records (
    kind    TEXT NOT NULL,
    key     TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, key)
);

-- Rejected notes, for the owner.
CREATE TABLE audit (
    at       TIMESTAMPTZ NOT NULL,
    seq      TEXT NOT NULL,
    record   JSONB NOT NULL,
    PRIMARY KEY (at, seq)
);

-- The generated challenge key, and other capabilities' cache (logo lookups).
CREATE TABLE secret (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    key       BYTEA NOT NULL
);
CREATE TABLE cache (
    key     TEXT PRIMARY KEY,
    value   BYTEA NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);
