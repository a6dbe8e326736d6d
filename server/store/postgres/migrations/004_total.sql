-- The number of notes on the board, kept in the transaction of every change, so that a page or a post reads it
-- from one row instead of counting the notes table (which grows with the board).
ALTER TABLE board_state ADD COLUMN total BIGINT NOT NULL DEFAULT 0;
UPDATE board_state SET total = (SELECT count(*) FROM notes);
