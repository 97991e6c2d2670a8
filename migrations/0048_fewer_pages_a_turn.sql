-- Fewer B-trees written by each turn (issue 38: the bytes one Send writes).
--
-- 1. `events_by_kind` holds only the kinds searched by kind (engine/log/rare-kinds.ts, which says
--    the same list: a test holds them together). Every turn's events wrote a page of it in each
--    commit, in the middle of the index, where a split rewrites its neighbours as well.
DROP INDEX events_by_kind;
CREATE INDEX events_by_kind ON events (kind, id)
  WHERE kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit');

-- The purge check states the index's condition, so each deleted row looks up the purges there
-- instead of reading the whole log.
DROP TRIGGER events_are_permanent;
CREATE TRIGGER events_are_permanent BEFORE DELETE ON events
WHEN OLD.kind = 'purged'
  OR (NOT EXISTS (SELECT 1 FROM events p, json_each(p.payload, '$.chats') c
                  WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                    AND c.value = OLD.chat_id)
      AND NOT EXISTS (SELECT 1 FROM events p, json_each(p.payload, '$.events') e
                      WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                        AND e.value = OLD.id))
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event, and only a logged purge removes data');
END;

-- 2. `value_changes` clustered on its key: a rowid table kept each change twice over, in the table
--    and in the index of its key, and an analysis adds several a turn.
CREATE TABLE value_changes_clustered (
  chat_id TEXT NOT NULL,
  target TEXT NOT NULL,
  field TEXT NOT NULL,
  seq INTEGER NOT NULL,
  part TEXT NOT NULL DEFAULT '',
  how TEXT NOT NULL,
  value TEXT,
  undone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, target, field, seq, part)
) STRICT, WITHOUT ROWID;
INSERT INTO value_changes_clustered SELECT chat_id, target, field, seq, part, how, value, undone FROM value_changes;
DROP TABLE value_changes;
ALTER TABLE value_changes_clustered RENAME TO value_changes;
