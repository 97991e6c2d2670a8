-- Memories and the story found in every script (issue 34): the full-text indexes read their text
-- through search_text() (text/search-text.ts, a SQL function each connection registers), which
-- marks word boundaries in scripts written without spaces (Japanese, Chinese, Thai...) with an
-- invisible ZERO WIDTH SPACE that unicode61 splits on. Text in other scripts goes in unchanged.
-- The indexes read views that apply it, so a rebuild, a snippet and an integrity check see the
-- same words the index holds; a deletion names the old row's words the same way. Every row is
-- indexed again: the tables are made afresh and every row waits, and the leader's background
-- pass fills them a batch at a time (with the progress shown), a search first indexing what
-- still waits.
CREATE VIEW memories_for_search AS
  SELECT created_seq, search_text(summary) AS summary, search_text(keywords) AS keywords FROM memories;
CREATE VIEW transcript_for_search AS
  SELECT seq, search_text(text) AS text FROM transcript;

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts5 (
  summary,
  keywords,
  content = 'memories_for_search',
  content_rowid = 'created_seq',
  tokenize = 'porter unicode61'
);
DELETE FROM memories_fts_pending;
INSERT INTO memories_fts_pending (created_seq) SELECT created_seq FROM memories;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, search_text(old.summary), search_text(old.keywords)
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  DELETE FROM memories_fts_pending WHERE created_seq = old.created_seq;
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, keywords ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, search_text(old.summary), search_text(old.keywords)
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;

-- The context index's entries are written by the indexer through search_text() too.
INSERT INTO memories_context_fts (memories_context_fts) VALUES ('delete-all');
INSERT OR IGNORE INTO memories_context_fts_pending (created_seq) SELECT created_seq FROM memories;

DROP TRIGGER transcript_fts_insert;
DROP TRIGGER transcript_fts_delete;
DROP TRIGGER transcript_fts_update;
DROP TABLE transcript_fts;
CREATE VIRTUAL TABLE transcript_fts USING fts5 (
  text,
  content = 'transcript_for_search',
  content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
DELETE FROM transcript_fts_pending;
INSERT INTO transcript_fts_pending (seq) SELECT seq FROM transcript;
CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript BEGIN
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;
CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(old.text) WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  DELETE FROM transcript_fts_pending WHERE seq = old.seq;
END;
CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, search_text(old.text) WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;
