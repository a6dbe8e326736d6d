-- Handles the owner keeps from posting, by their lower-case form (one handle is blocked in every case).
CREATE TABLE blocks (
    handle_key TEXT PRIMARY KEY,
    handle     TEXT NOT NULL,
    at         TIMESTAMPTZ NOT NULL
);
