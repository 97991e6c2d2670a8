-- A turn's words are kept once, in the log (issue 38: storage against the text of the messages).
--
-- The transcript held every turn's text a second time: the event that wrote the turn already has
-- it. Its rows are now `transcript_rows`, whose `text` is NULL when it is the words of the event
-- at `finished_seq` (the player's turn, or the reply's last `assistant_turn`); a turn whose words
-- differ from its event's (an edit) keeps them. `transcript` is a view that reads them from the
-- log, so every query reads a turn as before. A row is stored under its `seq`, which the search
-- index keys it by too: its own index on seq goes. The rows are copied, in order, and their
-- indexes built after: the app shows how far it has come.
-- rewrites: transcript
DROP VIEW transcript_for_search;

CREATE TABLE transcript_rows (
  seq INTEGER PRIMARY KEY,                 -- the event that opened the turn
  chat_id TEXT NOT NULL,
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
  UNIQUE (chat_id, turn_id)                -- how projections and the journal name a row
) STRICT;

INSERT INTO transcript_rows (seq, chat_id, turn_id, role, speaker, text, segments, status, reason, model, prompt_tokens,
    completion_tokens, finished_seq, error, analyzed_seq, edited, hidden, sent_at, persona_id, thinking, thinking_ms)
  SELECT t.seq, t.chat_id, t.turn_id, t.role, t.speaker,
    CASE WHEN t.text IS (SELECT e.payload ->> '$.text' FROM events e WHERE e.seq = t.finished_seq) THEN NULL ELSE t.text END,
    t.segments, t.status, t.reason, t.model, t.prompt_tokens, t.completion_tokens, t.finished_seq, t.error, t.analyzed_seq,
    t.edited, t.hidden, t.sent_at, t.persona_id, t.thinking, t.thinking_ms
  FROM transcript t ORDER BY t.seq;

DROP TABLE transcript;

CREATE UNIQUE INDEX transcript_by_chat ON transcript_rows (chat_id, seq);

CREATE VIEW transcript AS
  SELECT r.chat_id, r.turn_id, r.seq, r.role, r.speaker,
    coalesce(r.text, (SELECT e.payload ->> '$.text' FROM events e WHERE e.seq = r.finished_seq), '') AS text,
    r.segments, r.status, r.reason, r.model, r.prompt_tokens, r.completion_tokens, r.finished_seq, r.error, r.analyzed_seq,
    r.edited, r.hidden, r.sent_at, r.persona_id, r.thinking, r.thinking_ms
  FROM transcript_rows r;

CREATE VIEW transcript_for_search AS
  SELECT seq, search_text(text) AS text FROM transcript;

-- The search index is told a row's words as they were indexed: the row's own, or its event's.
CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript_rows BEGIN
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT e.payload ->> '$.text' FROM events e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  DELETE FROM transcript_fts_pending WHERE seq = old.seq;
END;

CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text, finished_seq ON transcript_rows BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(coalesce(old.text, (SELECT e.payload ->> '$.text' FROM events e WHERE e.seq = old.finished_seq), ''))
    WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;

-- An event leaves the log only in a restore, a purge, or a merge that writes it again under a new
-- seq. A row reading its words from that event takes them first, so it still shows them, and the
-- search index is told the words it indexed when the row goes.
CREATE TRIGGER turn_text_kept BEFORE DELETE ON events
WHEN OLD.kind IN ('user_turn', 'assistant_turn')
BEGIN
  UPDATE transcript_rows SET text = OLD.payload ->> '$.text'
    WHERE chat_id = OLD.chat_id AND turn_id = OLD.payload ->> '$.turnId' AND finished_seq = OLD.seq AND text IS NULL;
END;

-- The journal names the rows' table: undo writes to it.
UPDATE projection_journal SET tbl = 'transcript_rows' WHERE tbl = 'transcript';
