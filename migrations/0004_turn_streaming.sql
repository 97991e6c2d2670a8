-- Streamed text of replies still being written, saved about twice a second. Not a projection and
-- not an event: a scratch buffer, so a tab that dies mid-stream loses at most half a second. The
-- next leader turns what it finds here into a truncated assistant_turn, then deletes the row.
CREATE TABLE stream_checkpoints (
  turn_id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  text TEXT NOT NULL,
  updated_ts INTEGER NOT NULL
) STRICT;

-- Why a reply failed (relay error code and message), for the banner that offers Retry.
ALTER TABLE transcript ADD COLUMN error TEXT;
