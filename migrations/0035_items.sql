-- Items (issue 33, part 3): what each character carries or owns and what lies about, with who holds
-- it (an entity, or '' for nobody), where it is and its state. A tracked value (state/items.ts),
-- noted and moved by the one analysis call per reply; the activity's old `holding` list folds in.
CREATE TABLE items (
  chat_id TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  holder TEXT NOT NULL DEFAULT '',
  place TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT '',
  gone INTEGER NOT NULL DEFAULT 0,
  created_seq INTEGER NOT NULL,
  updated_seq INTEGER NOT NULL,
  PRIMARY KEY (chat_id, id)
) STRICT;
-- Both this table and value_changes (0034) are filled for the story so far by replaying the log:
-- with the projection journal emptied, the engine rebuilds every projection once when it opens
-- (engine.ts), which records where each value came from and folds old `holding` lists into items.
DELETE FROM projection_journal;
DELETE FROM journal_horizon;
