-- The memories' search index is filled after the write, as the transcript's is since 0024: FTS5
-- writes an index segment per transaction, ~0.13 ms for each memory an analysis wrote. Retrieval
-- indexes what waits before it searches, so a prompt never misses a memory; the leader indexes it
-- when quiet, so it rarely has to. A row is in memories_fts, with its current summary and
-- keywords, exactly when it is not waiting here.
CREATE TABLE memories_fts_pending (
  created_seq INTEGER PRIMARY KEY
) STRICT;
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, old.summary, old.keywords
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  DELETE FROM memories_fts_pending WHERE created_seq = old.created_seq;
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, keywords ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords)
    SELECT 'delete', old.created_seq, old.summary, old.keywords
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = old.created_seq);
  INSERT INTO memories_fts_pending (created_seq) SELECT new.created_seq
    WHERE NOT EXISTS (SELECT 1 FROM memories_fts_pending WHERE created_seq = new.created_seq);
END;
