-- The transcript keeps a turn's id and its speaker's as their 16 bytes (issue 38: storage against
-- the text of the messages).
--
-- A row held its turn's id as 36 characters, and its index by chat and turn held them again:
-- ~80 bytes a turn for one name, a fifth of what the transcript cost. A reply's speaker, a bot's
-- id, was 36 more. Both are now kept through `id_key` (db/compact-functions.ts): an id in the
-- log's own form becomes its 16 bytes, anything else ('you') stays as it was. The view
-- `transcript` reads them back through `id_text`, so every query reads a turn as before; a query
-- that finds a turn by its id compares `turn_key` with `id_key(?)`, which the index serves.
-- The journal's records of these rows hold the ids as text (JSON holds no bytes): the app writes
-- its triggers afresh as it opens, through the same two functions (`ensureJournal`).
-- rewrites: transcript_rows
DROP VIEW transcript_for_search;
DROP VIEW transcript;
-- It names the rows' table, which a rename checks: it is made again below.
DROP TRIGGER turn_text_kept;

CREATE TABLE transcript_compact (
  seq INTEGER PRIMARY KEY,                 -- the event that opened the turn
  chat INTEGER NOT NULL,                   -- chat_refs
  turn_id ANY NOT NULL,                    -- id_key: 16 bytes (read through id_text)
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  speaker ANY NOT NULL,                    -- id_key of 'you' or a bot id
  text TEXT,                               -- NULL: the words of the event at finished_seq
  segments TEXT,                           -- JSON, user turns only
  status TEXT NOT NULL CHECK (status IN ('streaming', 'done', 'truncated')),
  reason TEXT,
  model TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  finished_seq INTEGER,
  error TEXT,
  analyzed_seq INTEGER,
  edited INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  sent_at INTEGER,
  persona_id TEXT,
  thinking TEXT,
  thinking_ms INTEGER,
  UNIQUE (chat, turn_id)                   -- how projections find a turn
) STRICT;

INSERT INTO transcript_compact (seq, chat, turn_id, role, speaker, text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden, sent_at, persona_id, thinking, thinking_ms)
  SELECT seq, chat, id_key(turn_id), role, id_key(speaker), text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden, sent_at, persona_id, thinking, thinking_ms
  FROM transcript_rows ORDER BY seq;

-- Dropping the rows drops their triggers (the search index's, the journal's: the app writes the
-- journal's afresh as it opens); the search index keeps what it holds, under the same seqs.
DROP TABLE transcript_rows;
ALTER TABLE transcript_compact RENAME TO transcript_rows;

CREATE UNIQUE INDEX transcript_by_chat ON transcript_rows (chat, seq);

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
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

CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript_rows BEGIN
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text, finished_seq ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT payload_json(e.payload) ->> '$.text' FROM event_rows e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

CREATE TRIGGER turn_text_kept BEFORE DELETE ON event_rows
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = payload_json(OLD.payload) ->> '$.text'
    WHERE chat = OLD.chat AND turn_id = id_key(payload_json(OLD.payload) ->> '$.turnId') AND finished_seq = OLD.seq AND text IS NULL;
END;
