-- A bot's memories keep their ids as 16 bytes (issue 38: storage against the text of the messages).
--
-- A memory's row held three ids as 36 characters: its own, the bot's that remembers it and its
-- scene's; its key held its own again, and its indexes the bot's (three times) and the scene's:
-- ~330 bytes a memory for three names. All three are now kept through `id_key`, as the log's and
-- the transcript's ids are (0061, 0065). The view `memories` reads them back as text and shows the
-- stored keys (`memory_key`, `owner_key`, `scene_key`); a statement that finds memories by one of
-- these ids compares a key (or the rows' column) with `id_key(?)`, which the indexes serve.
-- The search indexes keep what they hold (by created_seq); their triggers compare the rows' own
-- columns with each other, and are made again on the new rows. The journal's records hold these ids
-- as text (JSON holds no bytes): an undo writes them back through `id_key` (`COMPACT_COLUMNS`).
-- rewrites: memory_rows
DROP VIEW memories_for_search;
DROP VIEW memories;

CREATE TABLE memory_compact (
  created_seq INTEGER PRIMARY KEY,         -- the memory_written event; also the FTS rowid, so any
                                           -- rebuild path gives a memory the same index entry
  id ANY NOT NULL,                         -- id_key (read through id_text)
  owner_id ANY NOT NULL,                   -- id_key of the bot that remembers
  chat INTEGER NOT NULL,                   -- chat_refs
  scene_id ANY,                            -- id_key
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

INSERT INTO memory_compact (created_seq, id, owner_id, chat, scene_id, summary, witness_you, witness_host, witness_guest,
    fiction_time, source, reliability, significance, pinned, auto_pinned, keywords)
  SELECT created_seq, id_key(id), id_key(owner_id), chat, id_key(scene_id), summary, witness_you, witness_host, witness_guest,
    fiction_time, source, reliability, significance, pinned, auto_pinned, keywords
  FROM memory_rows ORDER BY created_seq;

-- Dropping the rows drops their indexes and triggers (the search indexes', the journal's: the app
-- writes the journal's afresh as it opens); the search indexes keep what they hold, by created_seq.
DROP TABLE memory_rows;
ALTER TABLE memory_compact RENAME TO memory_rows;

CREATE INDEX memories_by_chat ON memory_rows (chat, created_seq);
CREATE INDEX memories_by_owner_chat ON memory_rows (owner_id, chat, pinned, created_seq);
CREATE INDEX memories_by_scene ON memory_rows (chat, scene_id, owner_id) WHERE scene_id IS NOT NULL;
CREATE INDEX memories_by_time ON memory_rows (owner_id, chat, fiction_time);

-- A LEFT JOIN on the ref's key: a query that reads no chat id skips it.
CREATE VIEW memories AS
  SELECT m.created_seq, id_text(m.id) AS id, id_text(m.owner_id) AS owner_id, c.id AS chat_id, id_text(m.scene_id) AS scene_id,
    m.summary, m.witness_you, m.witness_host, m.witness_guest, m.fiction_time, m.source, m.reliability, m.significance,
    m.pinned, m.auto_pinned, m.keywords, m.id AS memory_key, m.owner_id AS owner_key, m.scene_id AS scene_key
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
