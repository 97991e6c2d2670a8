-- The transcript's rows name their chat by its number in the log (issue 38: storage against the
-- text of the messages).
--
-- Every row held its chat's id as text, and both of its indexes led with it (by chat and turn,
-- by chat and seq): ~110 bytes a turn for one name. The rows now hold the chat's number from
-- `chat_refs` (migration 0056), and the view `transcript` reads the id back, so every query reads
-- a turn as before. The journal names a row by its key, now the chat's number and the turn: its
-- records of these rows are rewritten to match. The rows are copied, in order, and their indexes
-- built after: the app shows how far it has come.
-- rewrites: transcript_rows
DROP VIEW transcript_for_search;
DROP VIEW transcript;
-- It names the rows' table, which a rename checks: it is made again below.
DROP TRIGGER turn_text_kept;

INSERT INTO chat_refs (id) SELECT DISTINCT r.chat_id FROM transcript_rows r WHERE NOT EXISTS (SELECT 1 FROM chat_refs c WHERE c.id = r.chat_id);

CREATE TABLE transcript_numbered (
  seq INTEGER PRIMARY KEY,                 -- the event that opened the turn
  chat INTEGER NOT NULL,                   -- chat_refs
  turn_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  speaker TEXT NOT NULL,                   -- 'you' or a bot id
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
  UNIQUE (chat, turn_id)                   -- how projections and the journal name a row
) STRICT;

INSERT INTO transcript_numbered (seq, chat, turn_id, role, speaker, text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden, sent_at, persona_id, thinking, thinking_ms)
  SELECT r.seq, c.ref, r.turn_id, r.role, r.speaker, r.text, r.segments, r.status, r.reason, r.model, r.prompt_tokens,
    r.completion_tokens, r.finished_seq, r.error, r.analyzed_seq, r.edited, r.hidden, r.sent_at, r.persona_id, r.thinking, r.thinking_ms
  FROM transcript_rows r JOIN chat_refs c ON c.id = r.chat_id ORDER BY r.seq;

-- Dropping the rows drops their triggers (the search index's, the journal's: the app writes the
-- journal's afresh as it opens); the rows go as they are, the search index keeps what it holds.
DROP TABLE transcript_rows;
ALTER TABLE transcript_numbered RENAME TO transcript_rows;

CREATE UNIQUE INDEX transcript_by_chat ON transcript_rows (chat, seq);

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
CREATE VIEW transcript AS
  SELECT c.id AS chat_id, r.turn_id, r.seq, r.role, r.speaker,
    coalesce(r.text, (SELECT e.payload ->> '$.text' FROM event_rows e WHERE e.seq = r.finished_seq), '') AS text,
    r.segments, r.status, r.reason, r.model, r.prompt_tokens, r.completion_tokens, r.finished_seq, r.error, r.analyzed_seq,
    r.edited, r.hidden, r.sent_at, r.persona_id, r.thinking, r.thinking_ms
  FROM transcript_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;

CREATE VIEW transcript_for_search AS
  SELECT r.seq, search_text(coalesce(r.text, (SELECT e.payload ->> '$.text' FROM event_rows e WHERE e.seq = r.finished_seq), '')) AS text
  FROM transcript_rows r;

CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT e.payload ->> '$.text' FROM event_rows e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  DELETE FROM transcript_fts_pending WHERE seq = old.seq;
END;

CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript_rows BEGIN
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text, finished_seq ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT e.payload ->> '$.text' FROM event_rows e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

CREATE TRIGGER turn_text_kept BEFORE DELETE ON event_rows
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = OLD.payload ->> '$.text'
    WHERE chat = OLD.chat AND turn_id = OLD.payload ->> '$.turnId' AND finished_seq = OLD.seq AND text IS NULL;
END;

-- The journal's records of these rows: a key and a prior row name the chat by its number now.
UPDATE projection_journal
  SET key = json_object('chat', (SELECT ref FROM chat_refs WHERE id = key ->> '$.chat_id'), 'turn_id', key ->> '$.turn_id'),
      old = CASE WHEN old IS NULL OR json_type(old, '$.chat_id') IS NULL THEN old
                 ELSE json_set(json_remove(old, '$.chat_id'), '$.chat', (SELECT ref FROM chat_refs WHERE id = old ->> '$.chat_id')) END
  WHERE tbl = 'transcript_rows';
