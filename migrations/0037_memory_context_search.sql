-- A memory is found with the words around it (issue 33, part 6): memories_context_fts indexes,
-- for each memory, the text of the same bot's memories just before and just after it in the chat
-- and of its scene's first memory (the scene's summary once the scene has closed), each only when
-- whoever saw the memory saw that one too. Retrieval weighs a match there below one in the
-- memory's own text (memories_fts, unchanged: a table of its own keeps bm25's length
-- normalisation of a memory's own words as it was). Context changes when a neighbour comes, goes
-- or is rewritten, so the index keeps no copy of the text (contentless, rows deleted by rowid)
-- and the indexer (queries/search-index.ts) writes each waiting memory's context afresh. A write
-- marks the memories whose context it changed; retrieval indexes what waits before it searches.
-- Every existing memory waits once, here.
CREATE VIRTUAL TABLE memories_context_fts USING fts5 (
  context,
  content = '',
  contentless_delete = 1,
  tokenize = 'porter unicode61'
);
CREATE TABLE memories_context_fts_pending (
  created_seq INTEGER PRIMARY KEY
) STRICT;
INSERT INTO memories_context_fts_pending (created_seq) SELECT created_seq FROM memories;
CREATE TRIGGER memories_context_fts_insert AFTER INSERT ON memories BEGIN
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq) VALUES (new.created_seq);
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = new.owner_id AND chat_id = new.chat_id AND created_seq < new.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = new.owner_id AND chat_id = new.chat_id AND created_seq > new.created_seq ORDER BY created_seq LIMIT 1;
END;
CREATE TRIGGER memories_context_fts_delete AFTER DELETE ON memories BEGIN
  DELETE FROM memories_context_fts WHERE rowid = old.created_seq;
  DELETE FROM memories_context_fts_pending WHERE created_seq = old.created_seq;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE chat_id = old.chat_id AND scene_id = old.scene_id AND owner_id = old.owner_id;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = old.owner_id AND chat_id = old.chat_id AND created_seq < old.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = old.owner_id AND chat_id = old.chat_id AND created_seq > old.created_seq ORDER BY created_seq LIMIT 1;
END;
CREATE TRIGGER memories_context_fts_update AFTER UPDATE OF summary, witness_you, witness_host, witness_guest, scene_id ON memories BEGIN
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq) VALUES (new.created_seq);
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE chat_id = new.chat_id AND scene_id = new.scene_id AND owner_id = new.owner_id;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = new.owner_id AND chat_id = new.chat_id AND created_seq < new.created_seq ORDER BY created_seq DESC LIMIT 1;
  INSERT OR IGNORE INTO memories_context_fts_pending (created_seq)
    SELECT created_seq FROM memories WHERE owner_id = new.owner_id AND chat_id = new.chat_id AND created_seq > new.created_seq ORDER BY created_seq LIMIT 1;
END;
