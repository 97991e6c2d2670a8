-- The log's command ids indexed where there is one (issue 38: the bytes one Send writes).
--
-- `command_id TEXT UNIQUE` indexed every event, the NULLs too, and only a command's first event
-- has an id: each commit wrote a page of NULLs, in the middle of the index where they end and the
-- ids begin. A partial index holds the ids alone, and `WHERE command_id = ?` still finds them
-- there. SQLite drops a column's UNIQUE only with its table, so the log is copied whole, in order,
-- and its indexes are built after, full: the app shows how far it has come.
-- rewrites: events
CREATE TABLE events_rebuilt (
  seq INTEGER PRIMARY KEY,                 -- local arrival order only; nothing refers to it
  id TEXT NOT NULL UNIQUE,                 -- UUIDv7 from a hybrid logical clock: id order is event order
  device_id TEXT NOT NULL,                 -- the database that wrote the event
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat_id TEXT,                            -- null for global events
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  cause_id TEXT,                           -- the event that caused this derived one
  command_id TEXT                          -- the tab's id for the user action, on its first event (events_by_command)
) STRICT;
INSERT INTO events_rebuilt (seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id)
  SELECT seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY seq;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;

CREATE UNIQUE INDEX events_by_command ON events (command_id) WHERE command_id IS NOT NULL;

CREATE INDEX events_by_cause ON events (cause_id) WHERE cause_id IS NOT NULL;

CREATE INDEX events_by_chat ON events (chat_id, id);

CREATE INDEX events_by_kind ON events (kind, id)
  WHERE kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit');

CREATE INDEX events_by_prompt_text ON events (chat_id, json_extract(payload, '$.hash'))
  WHERE kind = 'prompt_text_kept';

CREATE INDEX events_by_regenerated ON events (json_extract(payload, '$.regenerateOf'))
  WHERE kind = 'assistant_turn_started';

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;

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
