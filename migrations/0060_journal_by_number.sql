-- The projection journal names a record's chat by its number in the log, and a transcript row by
-- its seq (issue 38: storage against the text of the messages).
--
-- A record held its chat's 36-character id, and a transcript row's key named it by chat and turn
-- (another 36 characters): ~160 bytes a record, most of them names. The journal keeps up to 2,000
-- of each chat's latest events, so a player with twenty chats of 500 turns keeps all of them: the
-- journal was as large as the text. A record now holds the chat's number (`chat_refs`), and a
-- transcript row, stored under the seq of the event that opened its turn since 0053 (a seq no
-- projection changes), is named by it.
--
-- Each record's row is found by its old key. A record whose row is gone and which no later record
-- of a delete names cannot be rewritten: its chat's journal is then kept only after it (the
-- horizon moved there), and steering further back replays the chat, as it does past any horizon.
-- rewrites: projection_journal

-- They write the journal's old columns: the app writes them afresh as it opens (`ensureJournal`).
DROP TRIGGER IF EXISTS journal_activity_delete;
DROP TRIGGER IF EXISTS journal_activity_insert;
DROP TRIGGER IF EXISTS journal_activity_update;
DROP TRIGGER IF EXISTS journal_chat_lorebooks_delete;
DROP TRIGGER IF EXISTS journal_chat_lorebooks_insert;
DROP TRIGGER IF EXISTS journal_chat_lorebooks_update;
DROP TRIGGER IF EXISTS journal_chat_state_delete;
DROP TRIGGER IF EXISTS journal_chat_state_insert;
DROP TRIGGER IF EXISTS journal_chat_state_update;
DROP TRIGGER IF EXISTS journal_chats_delete;
DROP TRIGGER IF EXISTS journal_chats_insert;
DROP TRIGGER IF EXISTS journal_chats_update;
DROP TRIGGER IF EXISTS journal_classifier_failures_delete;
DROP TRIGGER IF EXISTS journal_classifier_failures_insert;
DROP TRIGGER IF EXISTS journal_classifier_failures_update;
DROP TRIGGER IF EXISTS journal_containers_delete;
DROP TRIGGER IF EXISTS journal_containers_insert;
DROP TRIGGER IF EXISTS journal_containers_update;
DROP TRIGGER IF EXISTS journal_edge_facts_delete;
DROP TRIGGER IF EXISTS journal_edge_facts_insert;
DROP TRIGGER IF EXISTS journal_edge_facts_update;
DROP TRIGGER IF EXISTS journal_edges_delete;
DROP TRIGGER IF EXISTS journal_edges_insert;
DROP TRIGGER IF EXISTS journal_edges_update;
DROP TRIGGER IF EXISTS journal_field_defs_delete;
DROP TRIGGER IF EXISTS journal_field_defs_insert;
DROP TRIGGER IF EXISTS journal_field_defs_update;
DROP TRIGGER IF EXISTS journal_field_values_delete;
DROP TRIGGER IF EXISTS journal_field_values_insert;
DROP TRIGGER IF EXISTS journal_field_values_update;
DROP TRIGGER IF EXISTS journal_items_delete;
DROP TRIGGER IF EXISTS journal_items_insert;
DROP TRIGGER IF EXISTS journal_items_update;
DROP TRIGGER IF EXISTS journal_memories_delete;
DROP TRIGGER IF EXISTS journal_memories_insert;
DROP TRIGGER IF EXISTS journal_memories_update;
DROP TRIGGER IF EXISTS journal_scene_summaries_delete;
DROP TRIGGER IF EXISTS journal_scene_summaries_insert;
DROP TRIGGER IF EXISTS journal_scene_summaries_update;
DROP TRIGGER IF EXISTS journal_scenes_delete;
DROP TRIGGER IF EXISTS journal_scenes_insert;
DROP TRIGGER IF EXISTS journal_scenes_update;
DROP TRIGGER IF EXISTS journal_state_edits_delete;
DROP TRIGGER IF EXISTS journal_state_edits_insert;
DROP TRIGGER IF EXISTS journal_state_edits_update;
DROP TRIGGER IF EXISTS journal_threads_delete;
DROP TRIGGER IF EXISTS journal_threads_insert;
DROP TRIGGER IF EXISTS journal_threads_update;
DROP TRIGGER IF EXISTS journal_transcript_rows_delete;
DROP TRIGGER IF EXISTS journal_transcript_rows_insert;
DROP TRIGGER IF EXISTS journal_transcript_rows_update;
DROP TRIGGER IF EXISTS journal_value_changes_delete;
DROP TRIGGER IF EXISTS journal_value_changes_insert;
DROP TRIGGER IF EXISTS journal_value_changes_update;

-- The seq of each transcript row a record of a delete names (looked up by key: a scan for each
-- record would be the journal's size squared).
CREATE TABLE journal_deleted AS
  SELECT key, old ->> '$.seq' AS seq FROM projection_journal WHERE tbl = 'transcript_rows' AND op = 'delete' AND old ->> '$.seq' IS NOT NULL;
CREATE INDEX journal_deleted_by_key ON journal_deleted (key);

CREATE TABLE journal_keyed AS
  SELECT j.id, j.seq, c.ref AS chat, j.chat_id, j.tbl, j.key, j.op, j.old,
    CASE WHEN j.tbl = 'transcript_rows' THEN coalesce(
      (SELECT r.seq FROM transcript_rows r WHERE r.chat = j.key ->> '$.chat' AND r.turn_id = j.key ->> '$.turn_id'),
      (SELECT d.seq FROM journal_deleted d WHERE d.key = j.key)
    ) END AS row_seq
  FROM projection_journal j LEFT JOIN chat_refs c ON c.id = j.chat_id;

INSERT INTO journal_horizon (chat_id, seq)
  SELECT chat_id, max(seq) + 1 FROM journal_keyed WHERE tbl = 'transcript_rows' AND row_seq IS NULL AND chat_id IS NOT NULL GROUP BY chat_id HAVING true
  ON CONFLICT (chat_id) DO UPDATE SET seq = max(seq, excluded.seq);

CREATE TABLE journal_numbered (
  id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,                    -- the event whose projection made the change
  chat INTEGER,                            -- chat_refs: the changed row's chat
  tbl TEXT NOT NULL,
  key TEXT NOT NULL,                       -- the changed row's primary key, as JSON (rowids are reused
                                           -- once a row is deleted, so they cannot name a row later)
  op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
  old TEXT                                 -- JSON of the row before an update or a delete
) STRICT;

INSERT INTO journal_numbered (id, seq, chat, tbl, key, op, old)
  SELECT k.id, k.seq, k.chat, k.tbl, CASE WHEN k.tbl = 'transcript_rows' THEN json_object('seq', k.row_seq) ELSE k.key END, k.op, k.old
  FROM journal_keyed k
  WHERE k.seq >= coalesce((SELECT h.seq FROM journal_horizon h WHERE h.chat_id = k.chat_id), 0)
  ORDER BY k.id;

DROP TABLE journal_keyed;
DROP TABLE journal_deleted;
DROP TABLE projection_journal;
ALTER TABLE journal_numbered RENAME TO projection_journal;
CREATE INDEX projection_journal_by_seq ON projection_journal (seq);
