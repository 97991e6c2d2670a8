-- The log names a chat and a device by a number (issue 38: storage against the text of the messages).
--
-- Every event held its chat's id and its device's id as 36-character text, and the index of events
-- by chat held the chat's id again: ~110 bytes an event for two names that a story repeats on every
-- one of its events. Its rows are now `event_rows`, which hold small numbers from `chat_refs` and
-- `device_refs`; at 1 KiB pages a row then shares its page with its neighbours instead of leaving
-- a third of it empty. `events` is a view that reads the names back, so every query reads and
-- writes the log as before: an insert into it names its chat and device, and deletes and updates
-- meet the log's guards on the rows. A number is given once and never changes: the refs are only
-- added to. The log is copied whole, in order, and its indexes are built after: the app shows how
-- far it has come.
-- rewrites: events
CREATE TABLE chat_refs (
  ref INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE device_refs (
  ref INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE
) STRICT;

INSERT INTO chat_refs (id) SELECT chat_id FROM events WHERE chat_id IS NOT NULL GROUP BY chat_id ORDER BY min(seq);
INSERT INTO device_refs (id) SELECT device_id FROM events GROUP BY device_id ORDER BY min(seq);

CREATE TABLE event_rows (
  seq INTEGER PRIMARY KEY,                 -- local arrival order only; nothing refers to it
  id TEXT NOT NULL UNIQUE,                 -- UUIDv7 from a hybrid logical clock: id order is event order
  device INTEGER NOT NULL,                 -- device_refs: the database that wrote the event
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat INTEGER,                            -- chat_refs; null for global events
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  cause_id TEXT,                           -- the event that caused this derived one
  command_id TEXT                          -- the tab's id for the user action, on its first event (events_by_command)
) STRICT;

INSERT INTO event_rows (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
  SELECT e.seq, e.id, d.ref, e.ts, e.kind, c.ref, e.payload, e.cause_id, e.command_id
  FROM events e JOIN device_refs d ON d.id = e.device_id LEFT JOIN chat_refs c ON c.id = e.chat_id
  ORDER BY e.seq;

DROP TABLE events;

-- LEFT JOINs on the refs' keys: a query that reads neither name skips them. A query that picks a
-- chat's events beside others (`chat_id = ? OR chat_id IS NULL`, a list of chats) or lets a rarer
-- index lead compares `chat_ref` with the chat's number, as the index of events by chat holds it.
CREATE VIEW events AS
  SELECT e.seq, e.id, d.id AS device_id, e.ts, e.kind, c.id AS chat_id, e.payload, e.cause_id, e.command_id, e.chat AS chat_ref
  FROM event_rows e LEFT JOIN device_refs d ON d.ref = e.device LEFT JOIN chat_refs c ON c.ref = e.chat;

-- No conflict clause is possible here: an outer `INSERT OR REPLACE` would pass its REPLACE down and
-- renumber a chat under its events.
CREATE TRIGGER events_insert INSTEAD OF INSERT ON events
BEGIN
  INSERT INTO device_refs (id) SELECT NEW.device_id WHERE NOT EXISTS (SELECT 1 FROM device_refs WHERE id = NEW.device_id);
  INSERT INTO chat_refs (id) SELECT NEW.chat_id WHERE NEW.chat_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM chat_refs WHERE id = NEW.chat_id);
  INSERT INTO event_rows (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
    VALUES (NEW.seq, NEW.id, (SELECT ref FROM device_refs WHERE id = NEW.device_id), NEW.ts, NEW.kind,
      (SELECT ref FROM chat_refs WHERE id = NEW.chat_id), NEW.payload, NEW.cause_id, NEW.command_id);
END;

CREATE TRIGGER events_delete INSTEAD OF DELETE ON events
BEGIN
  DELETE FROM event_rows WHERE seq = OLD.seq;
END;

CREATE TRIGGER events_update INSTEAD OF UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;

CREATE UNIQUE INDEX events_by_command ON event_rows (command_id) WHERE command_id IS NOT NULL;

CREATE INDEX events_by_cause ON event_rows (cause_id) WHERE cause_id IS NOT NULL;

CREATE INDEX events_by_chat ON event_rows (chat, id);

CREATE INDEX events_by_kind ON event_rows (kind, id)
  WHERE kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit');

CREATE INDEX events_by_prompt_text ON event_rows (chat, json_extract(payload, '$.hash'))
  WHERE kind = 'prompt_text_kept';

CREATE INDEX events_by_regenerated ON event_rows (json_extract(payload, '$.regenerateOf'))
  WHERE json_extract(payload, '$.regenerateOf') IS NOT NULL;

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON event_rows
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;

CREATE TRIGGER events_are_permanent BEFORE DELETE ON event_rows
WHEN OLD.kind = 'purged'
  OR (NOT EXISTS (SELECT 1 FROM event_rows p, json_each(p.payload, '$.chats') c
                  WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                    AND c.value = (SELECT id FROM chat_refs WHERE ref = OLD.chat))
      AND NOT EXISTS (SELECT 1 FROM event_rows p, json_each(p.payload, '$.events') e
                      WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                        AND e.value = OLD.id))
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event, and only a logged purge removes data');
END;

-- An event leaves the log only in a restore, a purge, or a merge that writes it again under a new
-- seq. A row reading its words from that event takes them first, so it still shows them, and the
-- search index is told the words it indexed when the row goes.
CREATE TRIGGER turn_text_kept BEFORE DELETE ON event_rows
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = OLD.payload ->> '$.text'
    WHERE chat_id = (SELECT id FROM chat_refs WHERE ref = OLD.chat) AND turn_id = OLD.payload ->> '$.turnId' AND finished_seq = OLD.seq AND text IS NULL;
END;
