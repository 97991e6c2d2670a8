-- The log keeps each event's payload packed (issue 38: storage against the text of the messages).
--
-- Every event's JSON repeated what the log's other events hold: ids as 36 characters (a reply's
-- turn, its speaker, the bot an analysis names, the memory and scene it writes) and the same runs
-- of keys (`","speaker":"`, a prompt report's parts). Beyond the words, that was most of the log.
-- A row now keeps its payload as the JSON's bytes with each id in 17 and each common run of keys in
-- one or two (engine/log/packed-payload.ts); a payload holding a byte the marks use stays TEXT.
-- `payload_json` reads either back byte for byte, and the view `events` shows the JSON, so every
-- query, sync and backup reads the log as before; an insert into the view packs. The log is copied,
-- in order, and its indexes are built after: the app shows how far it has come.
-- rewrites: event_rows
DROP VIEW transcript_for_search;
DROP VIEW transcript;
DROP VIEW events;
DROP TRIGGER transcript_fts_delete;
DROP TRIGGER transcript_fts_update;

CREATE TABLE event_packed (
  seq INTEGER PRIMARY KEY,                 -- local arrival order only; nothing refers to it
  id TEXT NOT NULL UNIQUE,                 -- UUIDv7 from a hybrid logical clock: id order is event order
  device INTEGER NOT NULL,                 -- device_refs: the database that wrote the event
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat INTEGER,                            -- chat_refs; null for global events
  payload ANY NOT NULL CHECK (json_valid(payload_json(payload))), -- packed (BLOB) or the JSON (TEXT): read through payload_json
  cause_id TEXT,                           -- the event that caused this derived one
  command_id TEXT                          -- the tab's id for the user action, on its first event (events_by_command)
) STRICT;

INSERT INTO event_packed (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
  SELECT seq, id, device, ts, kind, chat, payload_packed(payload), cause_id, command_id FROM event_rows ORDER BY seq;

DROP TABLE event_rows;
ALTER TABLE event_packed RENAME TO event_rows;

CREATE VIEW events AS
  SELECT e.seq, e.id, d.id AS device_id, e.ts, e.kind, c.id AS chat_id, payload_json(e.payload) AS payload, e.cause_id, e.command_id, e.chat AS chat_ref
  FROM event_rows e LEFT JOIN device_refs d ON d.ref = e.device LEFT JOIN chat_refs c ON c.ref = e.chat;

CREATE TRIGGER events_insert INSTEAD OF INSERT ON events
BEGIN
  INSERT INTO device_refs (id) SELECT NEW.device_id WHERE NOT EXISTS (SELECT 1 FROM device_refs WHERE id = NEW.device_id);
  INSERT INTO chat_refs (id) SELECT NEW.chat_id WHERE NEW.chat_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM chat_refs WHERE id = NEW.chat_id);
  INSERT INTO event_rows (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
    VALUES (NEW.seq, NEW.id, (SELECT ref FROM device_refs WHERE id = NEW.device_id), NEW.ts, NEW.kind,
      (SELECT ref FROM chat_refs WHERE id = NEW.chat_id), payload_packed(NEW.payload), NEW.cause_id, NEW.command_id);
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

-- Through the view a query's `json_extract(payload, ...)` reads `json_extract(payload_json(e.payload), ...)`:
-- these expressions are that, so the planner matches them.
CREATE INDEX events_by_prompt_text ON event_rows (chat, json_extract(payload_json(payload), '$.hash'))
  WHERE kind = 'prompt_text_kept';

-- Only a reply's start names the reply it regenerates: the kind, tested first, spares every other
-- event's insert the reading of its payload.
CREATE INDEX events_by_regenerated ON event_rows (json_extract(payload_json(payload), '$.regenerateOf'))
  WHERE kind = 'assistant_turn_started' AND json_extract(payload_json(payload), '$.regenerateOf') IS NOT NULL;

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON event_rows
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;

CREATE TRIGGER events_are_permanent BEFORE DELETE ON event_rows
WHEN OLD.kind = 'purged'
  OR (NOT EXISTS (SELECT 1 FROM event_rows p, json_each(payload_json(p.payload), '$.chats') c
                  WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                    AND c.value = (SELECT id FROM chat_refs WHERE ref = OLD.chat))
      AND NOT EXISTS (SELECT 1 FROM event_rows p, json_each(payload_json(p.payload), '$.events') e
                      WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                        AND e.value = OLD.id))
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event, and only a logged purge removes data');
END;

CREATE TRIGGER turn_text_kept BEFORE DELETE ON event_rows
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = payload_json(OLD.payload) ->> '$.text'
    WHERE chat = OLD.chat AND turn_id = payload_json(OLD.payload) ->> '$.turnId' AND finished_seq = OLD.seq AND text IS NULL;
END;

CREATE VIEW transcript AS
  SELECT c.id AS chat_id, r.turn_id, r.seq, r.role, r.speaker,
    coalesce(r.text, (SELECT payload_json(e.payload) ->> '$.text' FROM event_rows e WHERE e.seq = r.finished_seq), '') AS text,
    r.segments, r.status, r.reason, r.model, r.prompt_tokens, r.completion_tokens, r.finished_seq, r.error, r.analyzed_seq,
    r.edited, r.hidden, r.sent_at, r.persona_id, r.thinking, r.thinking_ms
  FROM transcript_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;

CREATE VIEW transcript_for_search AS
  SELECT r.seq, search_text(coalesce(r.text, (SELECT payload_json(e.payload) ->> '$.text' FROM event_rows e WHERE e.seq = r.finished_seq), '')) AS text
  FROM transcript_rows r;

CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT payload_json(e.payload) ->> '$.text' FROM event_rows e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  DELETE FROM transcript_fts_pending WHERE seq = old.seq;
END;

CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text, finished_seq ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT payload_json(e.payload) ->> '$.text' FROM event_rows e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;
