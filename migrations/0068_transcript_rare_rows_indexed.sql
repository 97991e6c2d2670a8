-- The transcript's rare rows, each found by an index of its own (issue 38: work that does not grow
-- with the story).
--
-- A reply still streaming and a deleted turn are a handful of rows among a story's thousands, but
-- finding them walked every row of the chat, or of every chat:
-- - each start of the app looked for replies left streaming by a leader that died (every row of
--   every chat), and each Send looked for the chat's (every row of the chat);
-- - "Why?" numbered each line it names by counting the lines before it that are not deleted: a
--   read of every row before it, for each of up to a hundred lines.
-- Each index holds only its rare rows, so it costs nothing a Send writes unless a reply streams
-- (one entry added as it starts, taken away as it ends). A line's number is now the count of the
-- rows before it (the transcript's own index, not a row read) less the deleted ones (this index).
-- IF NOT EXISTS: a test that undoes later migrations runs this one again on its indexes.
CREATE INDEX IF NOT EXISTS transcript_streaming ON transcript_rows (chat, seq) WHERE status = 'streaming';
CREATE INDEX IF NOT EXISTS transcript_deleted ON transcript_rows (chat, seq) WHERE hidden = 1;
