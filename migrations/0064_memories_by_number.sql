-- A bot's memories name their chat by its number in the log (issue 38: storage against the text).
--
-- A memory's row held its chat's id (36 characters), and so did each of its four indexes and its
-- key's: ~180 bytes a memory for one name, at 10,000 turns analysed about a megabyte. The rows
-- (`memory_rows`) now hold the chat's number (`chat_refs`); the view `memories` reads the id back,
-- so a query that reads memories reads them as before. Statements that must name an index, and
-- the triggers that keep the search indexes, read the rows.
-- The journal's records of these rows are renamed for the rows' table, and name the chat by number.
-- rewrites: memories
INSERT INTO chat_refs (id) SELECT DISTINCT m.chat_id FROM memories m WHERE NOT EXISTS (SELECT 1 FROM chat_refs c WHERE c.id = m.chat_id);

DROP VIEW memories_for_search;

CREATE TABLE memory_rows (
  created_seq INTEGER PRIMARY KEY,         -- the memory_written event; also the FTS rowid, so any
                                           -- rebuild path gives a memory the same index entry
  id TEXT NOT NULL,
  owner_id TEXT NOT NULL,                  -- the bot that remembers
  chat INTEGER NOT NULL,                   -- chat_refs
  scene_id TEXT,
  summary TEXT NOT NULL,
  witness_you INTEGER NOT NULL,
  witness_host INTEGER NOT NULL,
  witness_guest INTEGER NOT NULL,
  fiction_time TEXT NOT NULL,
  source TEXT NOT NULL,
  reliability REAL NOT NULL,
  significance INTEGER NOT NULL,
  pinned INTEGER NOT NULL,
  auto_pinned INTEGER NOT NULL,
  keywords TEXT NOT NULL DEFAULT '',
  UNIQUE (chat, id)
) STRICT;

INSERT INTO memory_rows (created_seq, id, owner_id, chat, scene_id, summary, witness_you, witness_host, witness_guest,
    fiction_time, source, reliability, significance, pinned, auto_pinned, keywords)
  SELECT m.created_seq, m.id, m.owner_id, c.ref, m.scene_id, m.summary, m.witness_you, m.witness_host, m.witness_guest,
    m.fiction_time, m.source, m.reliability, m.significance, m.pinned, m.auto_pinned, m.keywords
  FROM memories m JOIN chat_refs c ON c.id = m.chat_id ORDER BY m.created_seq;

-- Dropping the rows drops their indexes and triggers (the search indexes', the journal's: the app
-- writes the journal's afresh as it opens); the search indexes keep what they hold, by created_seq.
DROP TABLE memories;

CREATE INDEX memories_by_chat ON memory_rows (chat, created_seq);
CREATE INDEX memories_by_owner_chat ON memory_rows (owner_id, chat, pinned, created_seq);
CREATE INDEX memories_by_scene ON memory_rows (chat, scene_id, owner_id) WHERE scene_id IS NOT NULL;
CREATE INDEX memories_by_time ON memory_rows (owner_id, chat, fiction_time);

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
CREATE VIEW memories AS
  SELECT m.created_seq, m.id, m.owner_id, c.id AS chat_id, m.scene_id, m.summary, m.witness_you, m.witness_host, m.witness_guest,
    m.fiction_time, m.source, m.reliability, m.significance, m.pinned, m.auto_pinned, m.keywords
  FROM memory_rows m LEFT JOIN chat_refs c ON c.ref = m.chat;

CREATE VIEW memories_for_search AS
  SELECT created_seq, search_text(summary) AS summary, search_text(keywords) AS keywords FROM memory_rows;

CREATE TRIGGER memories_context_fts_delete AFTER DELETE ON memory_rows BEGIN
  DELETE FROM memories_context_fts WHERE rowid = old.created_seq;
  DELETE FROM memories_context_fts_pending WHERE created_seq = old.created_seq;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE chat = old.chat AND scene_id = old.scene_id AND owner_id = old.owner_id;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = old.owner_id AND chat = old.chat AND created_seq < old.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = old.owner_id AND chat = old.chat AND created_seq > old.created_seq ORDER BY created_seq LIMIT 1;
END;

CREATE TRIGGER memories_context_fts_insert AFTER INSERT ON memory_rows BEGIN
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq) VALUES (new.created_seq);
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = new.owner_id AND chat = new.chat AND created_seq < new.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = new.owner_id AND chat = new.chat AND created_seq > new.created_seq ORDER BY created_seq LIMIT 1;
END;

CREATE TRIGGER memories_context_fts_update AFTER UPDATE OF summary, witness_you, witness_host, witness_guest, scene_id ON memory_rows BEGIN
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq) VALUES (new.created_seq);
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE chat = new.chat AND scene_id = new.scene_id AND owner_id = new.owner_id;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = new.owner_id AND chat = new.chat AND created_seq < new.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memory_rows WHERE owner_id = new.owner_id AND chat = new.chat AND created_seq > new.created_seq ORDER BY created_seq LIMIT 1;
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memory_rows BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, search_text(old.summary), search_text(old.keywords)
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  DELETE FROM memories_fts_pending WHERE created_seq = old.created_seq;
END;

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memory_rows BEGIN
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, keywords ON memory_rows BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, search_text(old.summary), search_text(old.keywords)
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;

UPDATE projection_journal
  SET tbl = 'memory_rows',
      key = CASE WHEN json_type(key, '$.chat_id') IS NULL THEN key ELSE json_set(json_remove(key, '$.chat_id'), '$.chat', chat) END,
      old = CASE WHEN old IS NULL OR json_type(old, '$.chat_id') IS NULL THEN old
                 ELSE json_set(json_remove(old, '$.chat_id'), '$.chat', chat) END
  WHERE tbl = 'memories';
