-- The log keeps its ids as their 16 bytes (issue 38: storage against the text of the messages).
--
-- Every event held its own id as 36 characters, the index that finds an event by its id held them
-- again, and a derived event named its cause in 36 more, which the index by cause held again: at
-- 10,000 turns ~1.2 MB of a 7.2 MB database that holds a story alone, ~2.4 MB where each reply is
-- analysed. The three ids (an event's own, its cause's, the command's) are now kept through
-- `id_key` (db/compact-functions.ts), as the transcript's are since 0061: an id in the log's form
-- becomes its bytes, anything else stays as it was. Bytes sort as their hex does, so id order is
-- still event order, and an id not in the log's form (a hand-edited backup's) sorts before all.
-- The view `events` reads the ids back through `id_text`, so sync, backups and replays read the
-- log as before; a query that finds an event by an id compares `event_key` (`cause_key`,
-- `command_key`) with `id_key(?)`, which the indexes serve.
-- rewrites: event_rows
DROP VIEW transcript_for_search;
DROP VIEW transcript;
DROP VIEW events;
DROP TRIGGER transcript_fts_delete;
DROP TRIGGER transcript_fts_update;

CREATE TABLE event_compact (
  seq INTEGER PRIMARY KEY,                 -- local arrival order only; nothing refers to it
  id ANY NOT NULL UNIQUE,                  -- id_key of a UUIDv7 from a hybrid logical clock: id order is event order
  device INTEGER NOT NULL,                 -- device_refs: the database that wrote the event
  ts INTEGER NOT NULL,                     -- wall clock, ms since epoch
  kind TEXT NOT NULL,
  chat INTEGER,                            -- chat_refs; null for global events
  payload ANY NOT NULL CHECK (json_valid(payload_json(payload))), -- packed (BLOB) or the JSON (TEXT): read through payload_json
  cause_id ANY,                            -- id_key of the event that caused this derived one
  command_id ANY                           -- id_key of the tab's id for the user action, on its first event (events_by_command)
) STRICT;

INSERT INTO event_compact (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
  SELECT seq, id_key(id), device, ts, kind, chat, payload, id_key(cause_id), id_key(command_id) FROM event_rows ORDER BY seq;

DROP TABLE event_rows;
ALTER TABLE event_compact RENAME TO event_rows;

CREATE VIEW events AS
  SELECT e.seq, id_text(e.id) AS id, d.id AS device_id, e.ts, e.kind, c.id AS chat_id, payload_json(e.payload) AS payload,
    id_text(e.cause_id) AS cause_id, id_text(e.command_id) AS command_id, e.chat AS chat_ref,
    e.id AS event_key, e.cause_id AS cause_key, e.command_id AS command_key
  FROM event_rows e LEFT JOIN device_refs d ON d.ref = e.device LEFT JOIN chat_refs c ON c.ref = e.chat;

CREATE TRIGGER events_insert INSTEAD OF INSERT ON events
BEGIN
  INSERT INTO device_refs (id) SELECT NEW.device_id WHERE NOT EXISTS (SELECT 1 FROM device_refs WHERE id = NEW.device_id);
  INSERT INTO chat_refs (id) SELECT NEW.chat_id WHERE NEW.chat_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM chat_refs WHERE id = NEW.chat_id);
  INSERT INTO event_rows (seq, id, device, ts, kind, chat, payload, cause_id, command_id)
    VALUES (NEW.seq, id_key(NEW.id), (SELECT ref FROM device_refs WHERE id = NEW.device_id), NEW.ts, NEW.kind,
      (SELECT ref FROM chat_refs WHERE id = NEW.chat_id), payload_packed(NEW.payload), id_key(NEW.cause_id), id_key(NEW.command_id));
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

CREATE INDEX events_by_chat ON event_rows (chat);

CREATE INDEX events_by_kind ON event_rows (kind, id)
  WHERE kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit');

CREATE INDEX events_by_prompt_text ON event_rows (chat, json_extract(payload_json(payload), '$.hash'))
  WHERE kind = 'prompt_text_kept';

CREATE INDEX events_by_regenerated ON event_rows (json_extract(payload_json(payload), '$.regenerateOf'))
  WHERE kind = 'assistant_turn_started' AND json_extract(payload_json(payload), '$.regenerateOf') IS NOT NULL;

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON event_rows
BEGIN
  SELECT RAISE(ABORT, 'events are immutable: record a change as a new event');
END;

-- A purge names the events it removes as text; their rows keep the ids as bytes.
CREATE TRIGGER events_are_permanent BEFORE DELETE ON event_rows
WHEN OLD.kind = 'purged'
  OR (NOT EXISTS (SELECT 1 FROM event_rows p, json_each(payload_json(p.payload), '$.chats') c
                  WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                    AND c.value = (SELECT id FROM chat_refs WHERE ref = OLD.chat))
      AND NOT EXISTS (SELECT 1 FROM event_rows p, json_each(payload_json(p.payload), '$.events') e
                      WHERE p.kind = 'purged' AND p.kind IN ('purged', 'chat_created', 'bot_authored', 'you_authored', 'bot_reset', 'bot_reset_undone', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved', 'image_added', 'chat_background_set', 'reply_version_chosen', 'chat_rewound', 'rewind_undone', 'manual_edit')
                        AND e.value = id_text(OLD.id)))
BEGIN
  SELECT RAISE(ABORT, 'events are never deleted: a rewind or an undo is a new event, and only a logged purge removes data');
END;

CREATE TRIGGER turn_text_kept BEFORE DELETE ON event_rows
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = payload_json(OLD.payload) ->> '$.text'
    WHERE chat = OLD.chat AND turn_id = id_key(payload_json(OLD.payload) ->> '$.turnId') AND finished_seq = OLD.seq AND text IS NULL;
END;

CREATE VIEW transcript AS
  SELECT c.id AS chat_id, id_text(r.turn_id) AS turn_id, r.turn_id AS turn_key, r.seq, r.role, id_text(r.speaker) AS speaker,
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
