-- Search across every chat's story: a full-text index over the transcript, kept in step by triggers
-- like memories_fts. Keyed by the turn's seq (unique in the database), so the index can find its
-- row again for a snippet.
CREATE INDEX transcript_by_seq ON transcript (seq);
CREATE VIRTUAL TABLE transcript_fts USING fts5 (
  text,
  content = 'transcript',
  content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER transcript_fts_insert AFTER INSERT ON transcript BEGIN
  INSERT INTO transcript_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER transcript_fts_delete AFTER DELETE ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER transcript_fts_update AFTER UPDATE OF text ON transcript BEGIN
  INSERT INTO transcript_fts (transcript_fts, rowid, text) VALUES ('delete', old.seq, old.text);
  INSERT INTO transcript_fts (rowid, text) VALUES (new.seq, new.text);
END;
INSERT INTO transcript_fts (transcript_fts) VALUES ('rebuild');
