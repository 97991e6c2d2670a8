-- No query reads a bot's memories across every chat: each names the chat too, and finds them by
-- memories_by_time or memories_by_owner_chat (checked by EXPLAIN QUERY PLAN over the node suite).
-- The index was a page written by every analysis that remembered something, and its bytes on disk.
DROP INDEX IF EXISTS memories_by_owner;
