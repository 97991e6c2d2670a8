-- What each event's projection changed in a chat's rows, so a change of visibility near the end
-- of a long chat (a swipe, a rewind, an undo) undoes only the tail instead of replaying the whole
-- story. Derived state like every projection: a rebuild clears and refills it. Written by temporary
-- triggers the engine installs on each chat table (src/engine/log/journal.ts).
CREATE TABLE projection_journal (
  id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,                    -- the event whose projection made the change
  chat_id TEXT,                            -- the changed row's chat
  tbl TEXT NOT NULL,
  key TEXT NOT NULL,                       -- the changed row's primary key, as JSON (rowids are reused
                                           -- once a row is deleted, so they cannot name a row later)
  op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
  old TEXT                                 -- JSON of the row before an update or a delete
) STRICT;
CREATE INDEX projection_journal_by_chat ON projection_journal (chat_id, seq);
