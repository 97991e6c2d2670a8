-- The changes a story made to its values keep no copy of the value (issue 38: storage against the
-- text of the messages).
--
-- "Why?" showed each change's value from the row, which held it as JSON: a memory's whole summary,
-- a learned fact (already the row's part, and in the facts' own rows), a feeling's delta. Every one
-- is what the event's kind declares of its payload (`changes` in its definition), and the event is
-- in the log beside the row: "Why?" now reads it from there (queries/value-history.ts), at most a
-- hundred payloads a list. At 10,000 turns with each reply analysed that was ~0.65 MB of values.
-- The rows keep what is looked up: their key, how the change was made and whether it was undone.
-- A journal record of a deleted row (a purge writes them) drops the value too: an undo writes back
-- every column a record holds.
-- rewrites: value_change_rows
DROP VIEW value_changes;

CREATE TABLE value_change_compact (
  chat INTEGER NOT NULL,                   -- chat_refs
  target ANY NOT NULL,                     -- payload_packed (read through payload_json)
  field TEXT NOT NULL,
  seq INTEGER NOT NULL,                    -- the event that made the change: its value is in the payload
  part TEXT NOT NULL DEFAULT '',
  how TEXT NOT NULL,
  undone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat, target, field, seq, part)
) STRICT, WITHOUT ROWID;

INSERT INTO value_change_compact (chat, target, field, seq, part, how, undone)
  SELECT chat, target, field, seq, part, how, undone FROM value_change_rows ORDER BY 1, 2, 3, 4, 5;

-- Dropping the rows drops their journal's triggers: the app writes them afresh as it opens.
DROP TABLE value_change_rows;
ALTER TABLE value_change_compact RENAME TO value_change_rows;

CREATE VIEW value_changes AS
  SELECT c.id AS chat_id, payload_json(r.target) AS target, r.field, r.seq, r.part, r.how, r.undone
  FROM value_change_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;

UPDATE projection_journal SET old = json_remove(old, '$.value')
  WHERE tbl = 'value_change_rows' AND old IS NOT NULL AND json_type(old, '$.value') IS NOT NULL;
