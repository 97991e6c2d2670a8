-- The changes a story made to its values ("Why?", "Undo this change") name their chat by its
-- number in the log and keep their target's ids packed (issue 38: storage against the text).
--
-- A row is its key: its chat's id (36 characters), its target ('edge:' and two ids, 'memory:' and
-- one), its field, seq and part. A reply's analysis writes three or more, so at 10,000 turns
-- analysed they took 2.6 MB, more than the transcript's rows and its search index together. A row
-- now names its chat by its number (`chat_refs`, as the transcript's rows do since 0057) and keeps
-- its target through `payload_packed` (an id in 17 bytes; migration 0058), read back through
-- `payload_json`. The view `value_changes` reads them as before; a query that finds a target's
-- changes compares the rows' `target` with `payload_packed(?)`, which their key serves.
-- The journal's records of these rows are renamed for the rows' table, and name the chat by number.
-- rewrites: value_changes
INSERT INTO chat_refs (id) SELECT DISTINCT v.chat_id FROM value_changes v WHERE NOT EXISTS (SELECT 1 FROM chat_refs c WHERE c.id = v.chat_id);

CREATE TABLE value_change_rows (
  chat INTEGER NOT NULL,                   -- chat_refs
  target ANY NOT NULL,                     -- payload_packed (read through payload_json)
  field TEXT NOT NULL,
  seq INTEGER NOT NULL,
  part TEXT NOT NULL DEFAULT '',
  how TEXT NOT NULL,
  value TEXT,
  undone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat, target, field, seq, part)
) STRICT, WITHOUT ROWID;

INSERT INTO value_change_rows (chat, target, field, seq, part, how, value, undone)
  SELECT c.ref, payload_packed(v.target), v.field, v.seq, v.part, v.how, v.value, v.undone
  FROM value_changes v JOIN chat_refs c ON c.id = v.chat_id ORDER BY 1, 2, 3, 4, 5;

-- Dropping the rows drops their journal's triggers: the app writes them afresh as it opens.
DROP TABLE value_changes;

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
CREATE VIEW value_changes AS
  SELECT c.id AS chat_id, payload_json(r.target) AS target, r.field, r.seq, r.part, r.how, r.value, r.undone
  FROM value_change_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;

UPDATE projection_journal
  SET tbl = 'value_change_rows',
      key = json_set(json_remove(key, '$.chat_id'), '$.chat', chat),
      old = CASE WHEN old IS NULL OR json_type(old, '$.chat_id') IS NULL THEN old
                 ELSE json_set(json_remove(old, '$.chat_id'), '$.chat', chat) END
  WHERE tbl = 'value_changes';
