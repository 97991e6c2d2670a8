-- A streaming reply's saved text is kept in one B-tree, by its key, instead of a rowid table and an
-- index beside it: each save (every 2 s while a reply streams) wrote both, a third of its bytes.
CREATE TABLE stream_checkpoints_by_key (
  chat_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  text TEXT NOT NULL,
  updated_ts INTEGER NOT NULL,
  thinking TEXT,
  PRIMARY KEY (chat_id, turn_id)
) STRICT, WITHOUT ROWID;
INSERT INTO stream_checkpoints_by_key (chat_id, turn_id, text, updated_ts, thinking) SELECT chat_id, turn_id, text, updated_ts, thinking FROM stream_checkpoints;
DROP TABLE stream_checkpoints;
ALTER TABLE stream_checkpoints_by_key RENAME TO stream_checkpoints;
