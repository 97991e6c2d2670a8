-- The transcript's search index is filled after the write instead of inside it. Tokenising a reply
-- and writing its index segment were a third of a turn's commit, on the path between Send and the
-- request to the model. A write now only notes which rows changed; the leader indexes them when
-- quiet, in batches, and any search indexes what is still waiting first, so it never misses a turn.
-- A row is in transcript_fts, with its current text, exactly when it is not waiting here.
CREATE TABLE transcript_fts_pending (
  seq INTEGER PRIMARY KEY
) STRICT;
DROP TRIGGER transcript_fts_insert;
DROP TRIGGER transcript_fts_delete;
DROP TRIGGER transcript_fts_update;
-- (NOT EXISTS rather than OR IGNORE: an outer statement's conflict clause would override a trigger's.)
CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript BEGIN
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;
-- An indexed row leaves the index with the text it was indexed with (an external-content index
-- needs it); a waiting one only stops waiting.
CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, old.text WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  DELETE FROM transcript_fts_pending WHERE seq = old.seq;
END;
CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text)
    SELECT 'delete', old.seq, old.text WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = old.seq);
  INSERT INTO transcript_fts_pending (seq) SELECT new.seq WHERE NOT EXISTS (SELECT 1 FROM transcript_fts_pending WHERE seq = new.seq);
END;
