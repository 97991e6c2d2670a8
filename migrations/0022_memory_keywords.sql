-- A memory's keywords: the people, places, objects and times it concerns and plainer words for what
-- happened, given by the turn's analysis (and the scene's place and cast), so a question in other
-- words than the story used still finds it. Indexed beside the summary, in the same FTS table.
ALTER TABLE memories ADD COLUMN keywords TEXT NOT NULL DEFAULT '';

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts5 (
  summary,
  keywords,
  content = 'memories',
  content_rowid = 'created_seq',
  tokenize = 'porter unicode61'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, summary, keywords) VALUES (new.created_seq, new.summary, new.keywords);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords) VALUES ('delete', old.created_seq, old.summary, old.keywords);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF summary, keywords ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, keywords) VALUES ('delete', old.created_seq, old.summary, old.keywords);
  INSERT INTO memories_fts (rowid, summary, keywords) VALUES (new.created_seq, new.summary, new.keywords);
END;
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
