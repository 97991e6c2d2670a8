-- Where this device stands with each sync server: how far its own log has been pushed (a local
-- seq) and how far the server's changes have been pulled (CouchDB's `since`, kept opaque). Local
-- state, never an event: it is not the story, and another device must not receive it. A pull
-- advances `pulled_since` in the transaction that merges what it pulled, so a crash between the two
-- is impossible; a push advances `pushed_seq` after the server took the batch, so a crash there
-- pushes the batch again, which changes nothing on the server.
CREATE TABLE sync_state (
  remote TEXT PRIMARY KEY,
  pushed_seq INTEGER NOT NULL DEFAULT 0,
  pulled_since TEXT
) STRICT;
