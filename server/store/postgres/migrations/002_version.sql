-- The board's version: it grows with every change to the notes, in the transaction that makes it, so a server can
-- tell with one small read whether a page it cached is still true, whichever server wrote.
ALTER TABLE board_state ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
